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

// Milliseconds one call of `launch` takes on `stream`, from events around it, after waiting for it.
double time_one_launch(cudaStream_t stream, const std::function<void()>& launch);

}  // namespace mpgemm
