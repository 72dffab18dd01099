#pragma once
// How many timed batches to take and whether to take them at all: the pure decisions of the timing protocol, kept
// apart from the CUDA code that carries them out (device/timing.cpp, device/candidate.cpp) so they are unit-tested
// without a GPU.
//   L2Mode (common/types.hpp): warm: launches back to back (the writeup's protocol); cold: L2 flushed before every
//     timed launch.
//   NoiseStop: nvbench's rule: batches until their relative noise is under a target, with a minimum and a time cap.
//   ScreenRule: a config whose first launches are far slower than the best so far for its shape is not timed
//     further.
//   ClockHold: the card kept at the clock sustained load holds between measurements.
#include <optional>
#include <span>

#include "common/types.hpp"  // L2Mode

namespace mpgemm {

// Keep taking batches until the relative noise of the per-launch batch times (sample stdev / mean) is below
// `target` with at least `min_samples` batches, or `max_time_s` of timing has passed (the stats then say the target
// was missed). `runs` of the protocol is ignored while this is in force; TimingStats::runs says how many were taken.
struct NoiseStop {
  double target = 0.005;   // relative noise to reach (unitless; 0.005 = 0.5%)
  int min_samples = 10;    // batches before the target may stop the sampling
  double max_time_s = 10;  // seconds of timed batches (wall clock) after which sampling stops anyway
  friend bool operator==(const NoiseStop&, const NoiseStop&) = default;
};

// Sample standard deviation / mean of `samples` (unitless); 0 with fewer than 2 samples or a mean that is not
// positive.
double relative_noise(std::span<const double> samples);

enum class SamplingStep {
  more,       // take another batch
  converged,  // the noise is under the target with enough samples
  time_cap,   // out of time before the target was reached
};

// nvbench's stopping rule after the batches `samples` (per-launch ms, one per batch) taken in `elapsed_s` seconds.
SamplingStep next_sampling_step(std::span<const double> samples, double elapsed_s, const NoiseStop& rule);

// The quick screen before the full protocol.
struct ScreenRule {
  double threshold = 1.5;  // screened out when slower than threshold x the best so far for the shape (the fastest
                           // screen on it: ScreenBaseline)
  int launches = 3;        // launches timed after the verification launch (warm L2: after as many untimed ones,
                           // back to back as one batch; cold L2: one by one, each after a flush); their per-launch
                           // time is compared
  friend bool operator==(const ScreenRule&, const ScreenRule&) = default;
};

// Whether a config whose screening launches showed `screen_ms` (median per launch) is screened out: only when a
// best time so far for the shape is known (positive) and screen_ms > rule.threshold x best_ms.
bool screened_out(double screen_ms, std::optional<double> best_ms, const ScreenRule& rule);

// What one worker's screen compares against on the prepared shape: like with like. A screen's few launches read
// slower per launch than the full protocol's batches of the same kernel wherever launch latency is a visible part
// of a launch (a 3-launch batch carries its first launch's latency over few launches), so against a full median the
// screen throws out configs close to the best (docs/findings.md, "The quick screen must compare like with like"). Once
// the worker has screened configs on the shape, the fastest screen time it saw is the baseline (every config is
// screened, also before a best is known, so the best config's own screen time is among them); until then the
// coordinator's best full median.
class ScreenBaseline {
 public:
  void reset() { fastest_screen_ms_.reset(); }  // a new shape
  void saw(double screen_ms) {
    if (screen_ms > 0 && (!fastest_screen_ms_ || screen_ms < *fastest_screen_ms_)) fastest_screen_ms_ = screen_ms;
  }
  // The time to compare a screen against, given the coordinator's best median so far; nullopt (nothing is screened
  // out) while the coordinator knows no best for the shape.
  std::optional<double> against(std::optional<double> best_median_ms) const {
    if (!best_median_ms) return std::nullopt;
    return fastest_screen_ms_ ? fastest_screen_ms_ : best_median_ms;
  }

 private:
  std::optional<double> fastest_screen_ms_;
};

// Holding the card at the clock sustained load holds while a shape is tuned (the worker, worker/server.cpp). After
// an idle gap a power-capped GPU runs its first tens of milliseconds of load fast (a clock burst) and reaches its
// sustained pace only after 100-200 ms, so a config timed right after a compile wait would be timed fast
// (docs/findings.md, "A cool card runs fast, for about 100 ms").
struct ClockHold {
  // Between requests, untimed cuBLAS on the prepared shape until the next request arrives, for at most this long
  // after the last one (ms); 0: never.
  int keep_warm_ms = 0;
  // A measurement that finds the card idle for longer than kIdleGapMs (the keep-warm window ran out, or there is
  // none) runs untimed cuBLAS for this long between its verification and its timing (ms); 0: never.
  int idle_settle_ms = 0;
  friend bool operator==(const ClockHold&, const ClockHold&) = default;
};
inline constexpr double kIdleGapMs = 10;

// Whether the worker keeps the card busy now, `since_request_ms` after it finished the last request.
bool keep_warm_now(double since_request_ms, const ClockHold& hold);
// How long (ms) to settle before a measurement that finds the card idle for `idle_ms`: 0 for none.
int idle_settle_for(double idle_ms, const ClockHold& hold);

}  // namespace mpgemm
