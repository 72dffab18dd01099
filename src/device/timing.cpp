#include "device/timing.hpp"

#include <algorithm>
#include <chrono>
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

void check_plan(const TimingPlan& plan, const L2Flusher* flusher) {
  if (plan.warmup < 0 || plan.runs < 1 || plan.iters < 1)
    throw Error(fmt::format("bad timing protocol: warmup {}, runs {}, iters {}", plan.warmup, plan.runs, plan.iters));
  if (plan.l2 == L2Mode::cold && flusher == nullptr) throw Error("cold L2 timing needs an L2 flusher");
  if (plan.noise_stop &&
      (!(plan.noise_stop->target > 0) || plan.noise_stop->min_samples < 1 || !(plan.noise_stop->max_time_s > 0)))
    throw Error(fmt::format("bad noise target: {} with at least {} samples in {} s", plan.noise_stop->target,
                            plan.noise_stop->min_samples, plan.noise_stop->max_time_s));
}

// Times batches of one launch function: warm (events around the batch) or cold (a flush, then events around each
// launch). The events are made once and reused.
class BatchTimer {
 public:
  BatchTimer(cudaStream_t stream, int iters, const L2Flusher* flusher)
      : stream_(stream), iters_(iters), flusher_(flusher), starts_(flusher ? iters : 1), stops_(flusher ? iters : 1) {}

  // Milliseconds per launch of one batch.
  double batch(const std::function<void()>& launch) {
    double total = 0;
    if (!flusher_) {
      MPGEMM_CUDA(cudaEventRecord(starts_[0].get(), stream_));
      for (int i = 0; i < iters_; ++i) launch();
      MPGEMM_CUDA(cudaEventRecord(stops_[0].get(), stream_));
      total = elapsed_ms(starts_[0], stops_[0]);
    } else {
      for (std::size_t i = 0; i < starts_.size(); ++i) {
        flusher_->flush(stream_);
        MPGEMM_CUDA(cudaEventRecord(starts_[i].get(), stream_));
        launch();
        MPGEMM_CUDA(cudaEventRecord(stops_[i].get(), stream_));
      }
      for (std::size_t i = 0; i < starts_.size(); ++i) total += elapsed_ms(starts_[i], stops_[i]);
    }
    MPGEMM_CUDA(cudaGetLastError());
    return total / iters_;
  }

 private:
  cudaStream_t stream_;
  int iters_;
  const L2Flusher* flusher_;  // null: warm
  std::vector<Event> starts_, stops_;
};

void warm_up(cudaStream_t stream, int warmup, const std::function<void()>& launch) {
  for (int i = 0; i < warmup; ++i) launch();
  MPGEMM_CUDA(cudaStreamSynchronize(stream));
  MPGEMM_CUDA(cudaGetLastError());
}

TimingStats stats_of(std::vector<double> per_launch, const TimingPlan& plan) {
  const int runs = static_cast<int>(per_launch.size());
  TimingStats t = summarize(std::move(per_launch), plan.warmup, runs, plan.iters);
  t.l2 = plan.l2;
  if (plan.noise_stop) t.noise_target = plan.noise_stop->target;
  return t;
}

}  // namespace

L2Flusher::L2Flusher(std::int64_t l2_bytes)
    : bytes_(std::max<std::size_t>(2 * static_cast<std::size_t>(std::max<std::int64_t>(l2_bytes, 0)), 64u << 20)) {
  MPGEMM_CUDA(cudaMalloc(&buffer_, bytes_));
}

L2Flusher::~L2Flusher() {
  if (buffer_) (void)cudaFree(buffer_);
}

void L2Flusher::flush(cudaStream_t stream) const {
  MPGEMM_CUDA(cudaMemsetAsync(buffer_, 0, bytes_, stream));
}

TimingStats time_launches(cudaStream_t stream, const TimingPlan& plan, const L2Flusher* flusher,
                          const std::function<void()>& launch) {
  check_plan(plan, flusher);
  warm_up(stream, plan.warmup, launch);
  BatchTimer timer(stream, plan.iters, plan.l2 == L2Mode::cold ? flusher : nullptr);
  std::vector<double> per_launch;
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    per_launch.push_back(timer.batch(launch));
    if (!plan.noise_stop) {
      if (static_cast<int>(per_launch.size()) >= plan.runs) break;
      continue;
    }
    const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (next_sampling_step(per_launch, elapsed_s, *plan.noise_stop) != SamplingStep::more) break;
  }
  return stats_of(std::move(per_launch), plan);
}

TimingStats time_launches(cudaStream_t stream, int warmup, int runs, int iters, const std::function<void()>& launch) {
  return time_launches(stream, TimingPlan{warmup, runs, iters, L2Mode::warm, std::nullopt}, nullptr, launch);
}

PairedTimingStats time_paired(cudaStream_t stream, const TimingPlan& plan, const L2Flusher* flusher,
                              const std::function<void()>& a, const std::function<void()>& b) {
  check_plan(plan, flusher);
  for (int i = 0; i < plan.warmup; ++i) {
    a();
    b();
  }
  MPGEMM_CUDA(cudaStreamSynchronize(stream));
  MPGEMM_CUDA(cudaGetLastError());

  BatchTimer timer(stream, plan.iters, plan.l2 == L2Mode::cold ? flusher : nullptr);
  std::vector<double> per_a, per_b;
  per_a.reserve(static_cast<std::size_t>(plan.runs));
  per_b.reserve(static_cast<std::size_t>(plan.runs));
  for (int r = 0; r < plan.runs; ++r) {
    if (paired_first_is_a(r)) {
      per_a.push_back(timer.batch(a));
      per_b.push_back(timer.batch(b));
    } else {
      per_b.push_back(timer.batch(b));
      per_a.push_back(timer.batch(a));
    }
  }
  TimingPlan fixed = plan;
  fixed.noise_stop.reset();
  return {stats_of(std::move(per_a), fixed), stats_of(std::move(per_b), fixed)};
}

PairedTimingStats time_paired(cudaStream_t stream, int warmup, int runs, int iters, const std::function<void()>& a,
                              const std::function<void()>& b) {
  return time_paired(stream, TimingPlan{warmup, runs, iters, L2Mode::warm, std::nullopt}, nullptr, a, b);
}

double time_single_batch(cudaStream_t stream, int iters, const std::function<void()>& launch) {
  if (iters < 1) throw Error(fmt::format("bad timing protocol: iters {}", iters));
  return BatchTimer(stream, iters, nullptr).batch(launch);
}

GraphBatch::GraphBatch(cudaStream_t stream, int iters, const std::function<void()>& launch)
    : stream_(stream), iters_(iters) {
  if (iters < 1) throw Error(fmt::format("bad timing protocol: iters {}", iters));
  MPGEMM_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  try {
    for (int i = 0; i < iters; ++i) launch();
  } catch (...) {
    cudaGraph_t partial = nullptr;
    (void)cudaStreamEndCapture(stream, &partial);  // leave the stream usable; the capture is abandoned
    if (partial) (void)cudaGraphDestroy(partial);
    throw;
  }
  MPGEMM_CUDA(cudaStreamEndCapture(stream, &graph_));
  const cudaError_t made = cudaGraphInstantiateWithFlags(&exec_, graph_, 0);
  if (made != cudaSuccess) {
    (void)cudaGraphDestroy(graph_);
    graph_ = nullptr;
    MPGEMM_CUDA(made);
  }
}

GraphBatch::~GraphBatch() {
  if (exec_) (void)cudaGraphExecDestroy(exec_);
  if (graph_) (void)cudaGraphDestroy(graph_);
}

double GraphBatch::time() const {
  Event start, stop;
  MPGEMM_CUDA(cudaEventRecord(start.get(), stream_));
  MPGEMM_CUDA(cudaGraphLaunch(exec_, stream_));
  MPGEMM_CUDA(cudaEventRecord(stop.get(), stream_));
  const double ms = static_cast<double>(elapsed_ms(start, stop)) / iters_;
  MPGEMM_CUDA(cudaGetLastError());
  return ms;
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

std::vector<double> time_each_launch(cudaStream_t stream, int count, const L2Flusher* flusher,
                                     const std::function<void()>& launch) {
  if (count < 1) throw Error(fmt::format("time_each_launch: {} launches", count));
  std::vector<Event> starts(static_cast<std::size_t>(count)), stops(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < starts.size(); ++i) {
    if (flusher) flusher->flush(stream);
    MPGEMM_CUDA(cudaEventRecord(starts[i].get(), stream));
    launch();
    MPGEMM_CUDA(cudaEventRecord(stops[i].get(), stream));
  }
  std::vector<double> ms;
  for (std::size_t i = 0; i < starts.size(); ++i) ms.push_back(elapsed_ms(starts[i], stops[i]));
  MPGEMM_CUDA(cudaStreamSynchronize(stream));
  MPGEMM_CUDA(cudaGetLastError());
  return ms;
}

}  // namespace mpgemm
