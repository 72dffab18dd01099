#pragma once
// How many timed batches to take and whether to take them at all: the pure decisions of the timing protocol, kept
// apart from the CUDA code that carries them out (device/timing.cpp, device/candidate.cpp) so they are unit-tested
// without a GPU.
//   L2Mode      (common/types.hpp) warm: launches back to back (the writeup's protocol); cold: L2 flushed before every
//   timed launch NoiseStop   nvbench's rule: batches until their relative noise is under a target, with a minimum and a
//   time cap ScreenRule  a config whose first launches are far slower than the best so far for its shape is not timed
//   further
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
  double threshold = 1.5;  // screened out when slower than threshold x the best so far for the shape
  int launches = 3;        // launches timed after the verification launch (warm L2: after as many untimed ones,
                           // back to back as one batch; cold L2: one by one, each after a flush); their per-launch
                           // time is compared
  friend bool operator==(const ScreenRule&, const ScreenRule&) = default;
};

// Whether a config whose screening launches showed `screen_ms` (median per launch) is screened out: only when a
// best time so far for the shape is known (positive) and screen_ms > rule.threshold x best_ms.
bool screened_out(double screen_ms, std::optional<double> best_ms, const ScreenRule& rule);

}  // namespace mpgemm
