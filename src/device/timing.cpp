#include "device/timing.hpp"

#include <vector>

#include <fmt/format.h>

#include "common/error.hpp"
#include "device/cuda_check.hpp"
#include "measure/stats.hpp"

namespace mpgemm {

namespace {

class Event {
 public:
  Event() { MPGEMM_CUDA(cudaEventCreate(&event_)); }
  ~Event() {
    if (event_) (void)cudaEventDestroy(event_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

float elapsed_ms(const Event& start, const Event& stop) {
  MPGEMM_CUDA(cudaEventSynchronize(stop.get()));
  float ms = 0;
  MPGEMM_CUDA(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms;
}

// Milliseconds per launch of one batch of `iters` launches between two events on `stream`.
double time_batch(cudaStream_t stream, const Event& start, const Event& stop, int iters,
                  const std::function<void()>& launch) {
  MPGEMM_CUDA(cudaEventRecord(start.get(), stream));
  for (int i = 0; i < iters; ++i) launch();
  MPGEMM_CUDA(cudaEventRecord(stop.get(), stream));
  const float ms = elapsed_ms(start, stop);
  MPGEMM_CUDA(cudaGetLastError());
  return static_cast<double>(ms) / iters;
}

}  // namespace

TimingStats time_launches(cudaStream_t stream, int warmup, int runs, int iters, const std::function<void()>& launch) {
  if (warmup < 0 || runs < 1 || iters < 1)
    throw Error(fmt::format("bad timing protocol: warmup {}, runs {}, iters {}", warmup, runs, iters));
  for (int i = 0; i < warmup; ++i) launch();
  MPGEMM_CUDA(cudaStreamSynchronize(stream));
  MPGEMM_CUDA(cudaGetLastError());

  Event start, stop;
  std::vector<double> per_launch;
  per_launch.reserve(static_cast<std::size_t>(runs));
  for (int r = 0; r < runs; ++r) per_launch.push_back(time_batch(stream, start, stop, iters, launch));
  return summarize(std::move(per_launch), warmup, runs, iters);
}

PairedTimingStats time_paired(cudaStream_t stream, int warmup, int runs, int iters, const std::function<void()>& a,
                              const std::function<void()>& b) {
  if (warmup < 0 || runs < 1 || iters < 1)
    throw Error(fmt::format("bad timing protocol: warmup {}, runs {}, iters {}", warmup, runs, iters));
  for (int i = 0; i < warmup; ++i) {
    a();
    b();
  }
  MPGEMM_CUDA(cudaStreamSynchronize(stream));
  MPGEMM_CUDA(cudaGetLastError());

  Event start, stop;
  const auto batch = [&](const std::function<void()>& launch) {
    return time_batch(stream, start, stop, iters, launch);
  };
  std::vector<double> per_a, per_b;
  per_a.reserve(static_cast<std::size_t>(runs));
  per_b.reserve(static_cast<std::size_t>(runs));
  for (int r = 0; r < runs; ++r) {
    if (paired_first_is_a(r)) {
      per_a.push_back(batch(a));
      per_b.push_back(batch(b));
    } else {
      per_b.push_back(batch(b));
      per_a.push_back(batch(a));
    }
  }
  return {summarize(std::move(per_a), warmup, runs, iters), summarize(std::move(per_b), warmup, runs, iters)};
}

double time_single_batch(cudaStream_t stream, int iters, const std::function<void()>& launch) {
  if (iters < 1) throw Error(fmt::format("bad timing protocol: iters {}", iters));
  Event start, stop;
  return time_batch(stream, start, stop, iters, launch);
}

double time_one_launch(cudaStream_t stream, const std::function<void()>& launch) {
  Event start, stop;
  MPGEMM_CUDA(cudaEventRecord(start.get(), stream));
  launch();
  MPGEMM_CUDA(cudaEventRecord(stop.get(), stream));
  const float ms = elapsed_ms(start, stop);
  MPGEMM_CUDA(cudaStreamSynchronize(stream));
  MPGEMM_CUDA(cudaGetLastError());
  return ms;
}

}  // namespace mpgemm
