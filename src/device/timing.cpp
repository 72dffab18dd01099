#include "device/timing.hpp"

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/error.hpp"
#include "device/cuda_check.hpp"
#include "measure/stats.hpp"

namespace mpgemm {

namespace {

void check_plan(const TimingPlan& plan, const L2Flusher* flusher) {
  if (plan.warmup < 0 || plan.runs < 1 || plan.iters < 1)
    throw Error(fmt::format("bad timing protocol: warmup {}, runs {}, iters {}", plan.warmup, plan.runs, plan.iters));
  if (plan.l2 == L2Mode::cold && flusher == nullptr) throw Error("cold L2 timing needs an L2 flusher");
  if (plan.noise_stop &&
      (!(plan.noise_stop->target > 0) || plan.noise_stop->min_samples < 1 || !(plan.noise_stop->max_time_s > 0)))
    throw Error(fmt::format("bad noise target: {} with at least {} samples in {} s", plan.noise_stop->target,
                            plan.noise_stop->min_samples, plan.noise_stop->max_time_s));
  if (plan.l2 == L2Mode::cold && plan.batches == BatchEnqueue::graph)
    throw Error("graph batches need warm L2: with cold L2 every launch is timed alone after a flush");
}

// Times cold batches: a flush, then events around each launch (made once and reused).
class ColdBatchTimer {
 public:
  ColdBatchTimer(cudaStream_t stream, int iters, const L2Flusher& flusher)
      : stream_(stream),
        flusher_(flusher),
        starts_(static_cast<std::size_t>(iters)),
        stops_(static_cast<std::size_t>(iters)) {}

  // Milliseconds per launch of one batch.
  double batch(const std::function<void()>& launch) {
    for (std::size_t i = 0; i < starts_.size(); ++i) {
      flusher_.flush(stream_);
      MPGEMM_CUDA(cudaEventRecord(starts_[i].get(), stream_));
      launch();
      MPGEMM_CUDA(cudaEventRecord(stops_[i].get(), stream_));
    }
    double total = 0;
    for (std::size_t i = 0; i < starts_.size(); ++i) total += elapsed_ms(starts_[i], stops_[i]);
    MPGEMM_CUDA(cudaGetLastError());
    return total / static_cast<double>(starts_.size());
  }

 private:
  cudaStream_t stream_;
  const L2Flusher& flusher_;
  std::vector<Event> starts_, stops_;
};

// One batch source per launch function for a plan: a WarmBatch (host calls or a graph) or a cold timer.
class PlanBatches {
 public:
  PlanBatches(cudaStream_t stream, const TimingPlan& plan, const L2Flusher* flusher, std::function<void()> launch)
      : launch_(launch) {
    if (plan.l2 == L2Mode::cold)
      cold_.emplace(stream, plan.iters, *flusher);
    else
      warm_.emplace(WarmBatch::graph_or_stream(stream, plan.iters, std::move(launch), plan.batches));
  }
  double batch() { return warm_ ? warm_->time() : cold_->batch(launch_); }
  BatchEnqueue how() const { return warm_ ? warm_->how() : BatchEnqueue::stream; }

 private:
  std::function<void()> launch_;
  std::optional<WarmBatch> warm_;
  std::optional<ColdBatchTimer> cold_;
};

void warm_up(cudaStream_t stream, int warmup, const std::function<void()>& launch) {
  for (int i = 0; i < warmup; ++i) launch();
  MPGEMM_CUDA(cudaStreamSynchronize(stream));
  MPGEMM_CUDA(cudaGetLastError());
}

TimingStats stats_of(std::vector<double> per_launch, const TimingPlan& plan, BatchEnqueue batches) {
  const int runs = static_cast<int>(per_launch.size());
  TimingStats t = summarize(std::move(per_launch), plan.warmup, runs, plan.iters);
  t.l2 = plan.l2;
  t.batches = batches;
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
  PlanBatches batches(stream, plan, flusher, launch);
  std::vector<double> per_launch;
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    per_launch.push_back(batches.batch());
    if (!plan.noise_stop) {
      if (static_cast<int>(per_launch.size()) >= plan.runs) break;
      continue;
    }
    const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (next_sampling_step(per_launch, elapsed_s, *plan.noise_stop) != SamplingStep::more) break;
  }
  return stats_of(std::move(per_launch), plan, batches.how());
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

  PlanBatches batches_a(stream, plan, flusher, a), batches_b(stream, plan, flusher, b);
  std::vector<double> per_a, per_b;
  per_a.reserve(static_cast<std::size_t>(plan.runs));
  per_b.reserve(static_cast<std::size_t>(plan.runs));
  for (int r = 0; r < plan.runs; ++r) {
    if (paired_first_is_a(r)) {
      per_a.push_back(batches_a.batch());
      per_b.push_back(batches_b.batch());
    } else {
      per_b.push_back(batches_b.batch());
      per_a.push_back(batches_a.batch());
    }
  }
  TimingPlan fixed = plan;
  fixed.noise_stop.reset();
  return {stats_of(std::move(per_a), fixed, batches_a.how()), stats_of(std::move(per_b), fixed, batches_b.how())};
}

PairedTimingStats time_paired(cudaStream_t stream, int warmup, int runs, int iters, const std::function<void()>& a,
                              const std::function<void()>& b) {
  return time_paired(stream, TimingPlan{warmup, runs, iters, L2Mode::warm, std::nullopt}, nullptr, a, b);
}

WarmBatch::WarmBatch(cudaStream_t stream, int iters, std::function<void()> launch, BatchEnqueue how)
    : stream_(stream), iters_(iters), launch_(std::move(launch)) {
  if (iters < 1) throw Error(fmt::format("bad timing protocol: iters {}", iters));
  if (how == BatchEnqueue::graph) capture();
}

void WarmBatch::capture() {
  MPGEMM_CUDA(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
  try {
    for (int i = 0; i < iters_; ++i) launch_();
  } catch (...) {
    cudaGraph_t partial = nullptr;
    (void)cudaStreamEndCapture(stream_, &partial);  // leave the stream usable; the capture is abandoned
    if (partial) (void)cudaGraphDestroy(partial);
    (void)cudaGetLastError();  // the invalidated capture's error is not the next launch's
    throw;
  }
  cudaGraph_t graph = nullptr;
  MPGEMM_CUDA(cudaStreamEndCapture(stream_, &graph));
  cudaGraphExec_t exec = nullptr;
  const cudaError_t made = cudaGraphInstantiateWithFlags(&exec, graph, 0);
  (void)cudaGraphDestroy(graph);  // the instantiated graph no longer needs it
  MPGEMM_CUDA(made);
  exec_.reset(exec);
  // Uploaded now, in stream order before any timed replay: otherwise the first replay uploads it, and that upload,
  // tens of microseconds, lands in one timed batch and widens a microsecond timing's spread until it is measured
  // again and flagged noisy (measure protocol 5; docs/findings.md, "The quick screen must compare like with like").
  MPGEMM_CUDA(cudaGraphUpload(exec_.get(), stream_));
}

WarmBatch WarmBatch::graph_or_stream(cudaStream_t stream, int iters, std::function<void()> launch, BatchEnqueue how) {
  if (how == BatchEnqueue::graph) {
    try {
      return WarmBatch(stream, iters, launch, BatchEnqueue::graph);
    } catch (const std::exception&) {
      (void)cudaGetLastError();  // the refused instantiation's error is not the next launch's either
    }
  }
  return WarmBatch(stream, iters, std::move(launch), BatchEnqueue::stream);
}

double WarmBatch::time() {
  MPGEMM_CUDA(cudaEventRecord(start_.get(), stream_));
  if (exec_) {
    MPGEMM_CUDA(cudaGraphLaunch(exec_.get(), stream_));
  } else {
    for (int i = 0; i < iters_; ++i) launch_();
  }
  MPGEMM_CUDA(cudaEventRecord(stop_.get(), stream_));
  const double ms = elapsed_ms(start_, stop_);
  MPGEMM_CUDA(cudaGetLastError());
  return ms / iters_;
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
