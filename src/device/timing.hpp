#pragma once
// The timing protocol shared by cuBLAS and the candidates: `warmup` launches, then `runs` batches of `iters`
// launches, each batch between two CUDA events on the stream; one per-launch time per batch (batch time / iters).
#include <functional>

#include <cuda_runtime_api.h>

#include "common/records.hpp"

namespace mpgemm {

// `launch` enqueues one launch on `stream` and throws on failure. Event and synchronisation failures throw
// CudaError with the runtime's code (a kernel fault shows up there). Throws mpgemm::Error on a bad protocol.
TimingStats time_launches(cudaStream_t stream, int warmup, int runs, int iters, const std::function<void()>& launch);

// Two launches timed side by side, for a ratio that slow drift (SM clock under a power cap, temperature) cannot
// bias: warm-ups of both, then `runs` rounds of one batch of `iters` launches each, the first of a round
// alternating (a b, b a, a b, ...: paired_first_is_a). Each TimingStats is over its own batches.
struct PairedTimingStats {
  TimingStats a;
  TimingStats b;
};
PairedTimingStats time_paired(cudaStream_t stream, int warmup, int runs, int iters, const std::function<void()>& a,
                              const std::function<void()>& b);

// Whether round `round` (0-based) of time_paired starts with a.
constexpr bool paired_first_is_a(int round) { return round % 2 == 0; }

// Milliseconds per launch of one batch of `iters` launches between two events on `stream` (the batch
// time_launches times `runs` of), for callers that order batches themselves (the interleaved re-rank).
double time_single_batch(cudaStream_t stream, int iters, const std::function<void()>& launch);

// Milliseconds one call of `launch` takes on `stream`, from events around it, after waiting for it.
double time_one_launch(cudaStream_t stream, const std::function<void()>& launch);

}  // namespace mpgemm
