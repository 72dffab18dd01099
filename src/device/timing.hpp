#pragma once
// The timing protocol shared by cuBLAS and the candidates: `warmup` launches, then `runs` batches of `iters`
// launches; one per-launch time per batch (batch time / iters). With warm L2 a batch is timed between two CUDA
// events around all its launches; with cold L2 each launch follows a write of the flush buffer and is timed between
// its own events, so the flush is not in the time. With a noise target (measure/sampling.hpp NoiseStop) batches are
// taken until next_sampling_step() says stop, instead of `runs`. With warm L2 a batch may be one replay of the
// `iters` launches captured as a CUDA graph (BatchEnqueue::graph), so that it runs at the GPU's pace.
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include <cuda_runtime_api.h>

#include "common/records.hpp"
#include "device/cuda_event.hpp"
#include "measure/protocol_defaults.hpp"
#include "measure/sampling.hpp"

namespace mpgemm {

struct TimingPlan {
  int warmup = kProtocolDefaults.warmup;  // launches before timing
  int runs = kProtocolDefaults.runs;      // timed batches (ignored with a noise target)
  int iters = kProtocolDefaults.iters;    // launches per batch
  L2Mode l2 = L2Mode::warm;
  std::optional<NoiseStop> noise_stop;
  // Warm L2 only (with cold L2 every launch is timed alone). Graph: when the launches cannot be captured, the
  // batches are enqueued from the host and the timing says so (TimingStats::batches).
  BatchEnqueue batches = BatchEnqueue::stream;
};

// A device buffer of at least twice the L2 size; flush() writes all of it on a stream, evicting from L2 whatever
// a kernel left there.
class L2Flusher {
 public:
  // Throws CudaError when the allocation fails.
  explicit L2Flusher(std::int64_t l2_bytes);
  ~L2Flusher();
  L2Flusher(const L2Flusher&) = delete;
  L2Flusher& operator=(const L2Flusher&) = delete;
  void flush(cudaStream_t stream) const;
  std::size_t bytes() const { return bytes_; }

 private:
  void* buffer_ = nullptr;
  std::size_t bytes_ = 0;
};

// `launch` enqueues one launch on `stream` and throws on failure. Event and synchronisation failures throw
// CudaError with the runtime's code (a kernel fault shows up there). Throws mpgemm::Error on a bad protocol, or
// for cold L2 without a flusher.
TimingStats time_launches(cudaStream_t stream, const TimingPlan& plan, const L2Flusher* flusher,
                          const std::function<void()>& launch);
// Warm L2, a fixed number of batches.
TimingStats time_launches(cudaStream_t stream, int warmup, int runs, int iters, const std::function<void()>& launch);

// Two launches timed side by side, for a ratio that slow drift (SM clock under a power cap, temperature) cannot
// bias: warm-ups of both, then `runs` rounds of one batch of `iters` launches each, the first of a round
// alternating (a b, b a, a b, ...: paired_first_is_a). Each TimingStats is over its own batches. The plan's L2 mode
// applies; a noise target does not (always `runs` rounds).
struct PairedTimingStats {
  TimingStats a;
  TimingStats b;
};
PairedTimingStats time_paired(cudaStream_t stream, const TimingPlan& plan, const L2Flusher* flusher,
                              const std::function<void()>& a, const std::function<void()>& b);
PairedTimingStats time_paired(cudaStream_t stream, int warmup, int runs, int iters, const std::function<void()>& a,
                              const std::function<void()>& b);

// Whether round `round` (0-based) of time_paired starts with a.
constexpr bool paired_first_is_a(int round) {
  return round % 2 == 0;
}

// One warm batch of `iters` launches of `launch`, timed between two events (made once, reused) as often as asked:
// enqueued call by call from the host, or captured once as a CUDA graph (stream capture, so launch attributes such
// as a dependent launch become the graph's edges) and replayed whole, so that a batch of microsecond launches runs
// at the GPU's pace whatever each call costs the host.
class WarmBatch {
 public:
  // With BatchEnqueue::graph, captures the calls on `stream` (a non-default stream) and instantiates the graph.
  // Throws CudaError (or whatever `launch` throws) when the capture or the instantiation fails, leaving the stream
  // out of capture.
  WarmBatch(cudaStream_t stream, int iters, std::function<void()> launch, BatchEnqueue how);
  // The same, but a graph that cannot be captured falls back to host-enqueued calls (how() tells which it is).
  static WarmBatch graph_or_stream(cudaStream_t stream, int iters, std::function<void()> launch, BatchEnqueue how);

  // Milliseconds per launch of one batch. Throws CudaError when a launch or the events fail.
  double time();
  BatchEnqueue how() const { return exec_ ? BatchEnqueue::graph : BatchEnqueue::stream; }

 private:
  void capture();

  cudaStream_t stream_ = nullptr;
  int iters_ = 0;
  std::function<void()> launch_;
  Event start_, stop_;  // made once, reused by every batch
  GraphExec exec_;      // set: each batch is one replay of it
};

// Milliseconds one call of `launch` takes on `stream`, from events around it, after waiting for it.
double time_one_launch(cudaStream_t stream, const std::function<void()>& launch);

// `count` launches, each between its own events (after a flush when `flusher` is given): their times (ms), in
// order. The screening launches.
std::vector<double> time_each_launch(cudaStream_t stream, int count, const L2Flusher* flusher,
                                     const std::function<void()>& launch);

}  // namespace mpgemm
