// The timing protocol's options on a real GPU: the comparison kernel against the host's compare(), cold L2 against
// warm, and the quick screen. Without a device every test is skipped with the reason.
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "../kernels/device_test_nvrtc.hpp"
#include "device/candidate.hpp"
#include "device/cuda_check.hpp"
#include "device/device_compare.hpp"
#include "device/problem.hpp"
#include "device/query.hpp"
#include "device/session.hpp"
#include "device/timing.hpp"
#include "measure/stats.hpp"

namespace mpgemm {
namespace {

const Shape kShape{512, 512, 512};

LaunchGeometry tiles_of(const Shape& s, std::uint32_t side) {
  LaunchGeometry g;
  g.block = {side, side, 1};
  g.grid = {static_cast<std::uint32_t>((s.n + side - 1) / side), static_cast<std::uint32_t>((s.m + side - 1) / side),
            1};
  return g;
}

class DeviceTimingTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!device_available(&skip_reason_)) return;
    try {
      session_ = std::make_unique<DeviceSession>(0);
      cubin_ = test::compile_test_kernels(session_->info().arch);
      problem_ = std::make_unique<ProblemContext>(*session_, kShape, 7);
    } catch (const std::exception& e) {
      setup_error_ = e.what();
    }
  }
  static void TearDownTestSuite() {
    problem_.reset();
    session_.reset();
  }
  void SetUp() override {
    if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
    ASSERT_TRUE(setup_error_.empty()) << setup_error_;
  }
  // The naive kernel in 16 x 16 blocks (the "best"), or in blocks of one thread (deliberately slow, same result).
  static CandidateKernel naive(std::uint32_t side) {
    return CandidateKernel{cubin_, "test_gemm_naive", tiles_of(kShape, side), standard_args(), {}};
  }

  static inline std::string skip_reason_;
  static inline std::string setup_error_;
  static inline std::unique_ptr<DeviceSession> session_;
  static inline std::vector<char> cubin_;
  static inline std::unique_ptr<ProblemContext> problem_;
};

// The comparison kernel gives exactly the host's ErrorStats, on data with every case of the rule: agreement,
// small and large errors, NaN and Inf in the output, non-finite and zero references, denormals.
TEST_F(DeviceTimingTest, DeviceCompareEqualsHostCompare) {
  DeviceCompare* gpu = session_->device_compare();
  ASSERT_NE(gpu, nullptr) << session_->compare_fallback_reason();
  const std::size_t n = 1'000'003;  // not a multiple of anything
  std::vector<float> out(n), ref(n);
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<float> value(-300, 300), noise(-1e-2f, 1e-2f);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (std::size_t i = 0; i < n; ++i) {
    ref[i] = value(rng);
    out[i] = ref[i] * (1 + noise(rng) * 0.3f);
    switch (i % 997) {
      case 1:
        out[i] = nan;
        break;
      case 2:
        out[i] = -inf;
        break;
      case 3:
        ref[i] = inf;
        break;
      case 4:
        ref[i] = 0;
        out[i] = 0.25f;
        break;
      case 5:
        ref[i] = 1e-40f;
        break;  // a denormal reference: a huge relative error
      case 6:
        out[i] = ref[i] + 0.5f + 1e-3f * std::fabs(ref[i]);
        break;  // just outside
      case 7:
        out[i] = ref[i];
        break;
      default:
        break;
    }
  }
  DeviceBuffer d_out(n * 4, "out"), d_ref(n * 4, "ref");
  MPGEMM_CUDA(cudaMemcpy(d_out.get(), out.data(), n * 4, cudaMemcpyHostToDevice));
  MPGEMM_CUDA(cudaMemcpy(d_ref.get(), ref.data(), n * 4, cudaMemcpyHostToDevice));
  for (auto [atol, rtol] : {std::pair{0.5, 1e-3}, std::pair{0.0, 0.0}, std::pair{1e-2, 5e-3}}) {
    const ErrorStats host = compare(out, ref, atol, rtol);
    const ErrorStats dev = gpu->compare(static_cast<const float*>(d_out.get()), static_cast<const float*>(d_ref.get()),
                                        n, atol, rtol, session_->stream());
    EXPECT_EQ(dev.max_abs, host.max_abs) << atol << " " << rtol;
    EXPECT_EQ(dev.max_rel, host.max_rel);
    EXPECT_EQ(dev.bad_count, host.bad_count);
    EXPECT_EQ(dev.nan_count, host.nan_count);
    EXPECT_EQ(dev.atol, host.atol);
    EXPECT_EQ(dev.rtol, host.rtol);
    EXPECT_GT(host.bad_count, 0);
  }
}

// The same on a problem: a kernel's output compared by the problem (on the GPU) and downloaded to the host.
TEST_F(DeviceTimingTest, ProblemComparesOnTheDeviceLikeTheHost) {
  CandidateRun run(*session_, *problem_, naive(16));
  ASSERT_EQ(run.verify(0.5, 1e-3).status, Status::ok);
  const ErrorStats dev = problem_->compare_output(0.5, 1e-3);
  const ErrorStats host = compare(problem_->download_output(), problem_->reference(), 0.5, 1e-3);
  EXPECT_EQ(dev.max_abs, host.max_abs);
  EXPECT_EQ(dev.max_rel, host.max_rel);
  EXPECT_EQ(dev.bad_count, host.bad_count);
  EXPECT_EQ(dev.nan_count, host.nan_count);
  problem_->poison_output();  // every element NaN
  const ErrorStats poisoned = problem_->compare_output(0.5, 1e-3);
  EXPECT_EQ(poisoned.nan_count, kShape.m * kShape.n);
  EXPECT_EQ(poisoned.bad_count, kShape.m * kShape.n);
}

// A flushed L2 can only slow a launch down: cold is slower or equal to warm (a few percent of noise allowed).
TEST_F(DeviceTimingTest, ColdL2IsNotFasterThanWarm) {
  CandidateRun run(*session_, *problem_, naive(16));
  ASSERT_EQ(run.verify(0.5, 1e-3).status, Status::ok);
  const Measurement warm =
      run.time(TimingPlan{3, 7, 10, L2Mode::warm, std::nullopt}, false, std::nullopt, std::nullopt);
  const Measurement cold =
      run.time(TimingPlan{3, 7, 10, L2Mode::cold, std::nullopt}, false, std::nullopt, std::nullopt);
  ASSERT_EQ(warm.status, Status::ok) << warm.message;
  ASSERT_EQ(cold.status, Status::ok) << cold.message;
  EXPECT_EQ(warm.timing->l2, L2Mode::warm);
  EXPECT_EQ(cold.timing->l2, L2Mode::cold);
  EXPECT_GE(cold.timing->median_ms, 0.97 * warm.timing->median_ms)
      << "cold " << cold.timing->median_ms << " ms, warm " << warm.timing->median_ms << " ms";
  const TimingStats cublas_warm = problem_->time_cublas(3, 7, 10, L2Mode::warm);
  const TimingStats cublas_cold = problem_->time_cublas(3, 7, 10, L2Mode::cold);
  // cuBLAS takes a few microseconds here: a warm batch of back-to-back launches carries each launch's host
  // overhead, a cold launch between its own events does not (on the H200: 12 us warm, 6.7 us cold), so at this size
  // the two modes are only checked to time and to say which they were.
  EXPECT_GT(cublas_cold.median_ms, 0);
  EXPECT_EQ(cublas_cold.l2, L2Mode::cold);
  EXPECT_EQ(cublas_warm.l2, L2Mode::warm);
  EXPECT_GE(session_->l2_flusher().bytes(), 2 * static_cast<std::size_t>(session_->info().l2_bytes));
}

// With a noise target the batches stop at the rule: at least the minimum, and the stats say how many.
TEST_F(DeviceTimingTest, NoiseTargetTakesAtLeastTheMinimumAndSaysHowMany) {
  CandidateRun run(*session_, *problem_, naive(16));
  ASSERT_EQ(run.verify(0.5, 1e-3).status, Status::ok);
  const Measurement m =
      run.time(TimingPlan{2, 5, 10, L2Mode::warm, NoiseStop{0.05, 8, 2.0}}, false, std::nullopt, std::nullopt);
  ASSERT_EQ(m.status, Status::ok) << m.message;
  EXPECT_GE(m.timing->runs, 8);
  ASSERT_TRUE(m.timing->noise_target);
  EXPECT_EQ(*m.timing->noise_target, 0.05);
  EXPECT_TRUE(m.timing->noise < 0.05 || m.timing->runs > 8) << m.timing->noise;
}

// The screen fires for a config far slower than the best so far, and not for the best itself.
TEST_F(DeviceTimingTest, ScreenFiresForASlowConfigAndNotForTheBest) {
  const ScreenRule rule{1.5, 3};
  CandidateRun best(*session_, *problem_, naive(16));
  ASSERT_EQ(best.verify(0.5, 1e-3).status, Status::ok);
  const Measurement full = best.time(3, 5, 10);
  ASSERT_EQ(full.status, Status::ok);
  const double best_ms = full.timing->median_ms;

  const Measurement again = best.time(TimingPlan{3, 5, 10, L2Mode::warm, std::nullopt}, false, rule, best_ms);
  EXPECT_EQ(again.status, Status::ok) << again.message;
  EXPECT_EQ(again.timing->runs, 5);  // the full protocol ran

  CandidateRun slow(*session_, *problem_, naive(1));  // one thread per block: many times slower, same result
  ASSERT_EQ(slow.verify(0.5, 1e-3).status, Status::ok);
  const Measurement screened = slow.time(TimingPlan{3, 5, 10, L2Mode::warm, std::nullopt}, false, rule, best_ms);
  ASSERT_EQ(screened.status, Status::screened_out) << screened.message;
  ASSERT_TRUE(screened.timing);
  EXPECT_GT(screened.timing->median_ms, 1.5 * best_ms);
  EXPECT_EQ(screened.timing->runs, 1);  // warm L2: 3 untimed launches, then the 3 screening launches as one batch
  EXPECT_EQ(screened.timing->iters, 3);
  EXPECT_EQ(screened.timing->warmup, 3);
  ASSERT_TRUE(screened.error);  // it did verify
  EXPECT_EQ(slow.last_screen_ms(), screened.timing->median_ms);
  // Without a best so far (the first config of a shape) nothing is screened out, but the screen runs: its time is
  // the baseline of the screens after it.
  EXPECT_EQ(slow.time(TimingPlan{1, 2, 2, L2Mode::warm, std::nullopt}, false, rule, std::nullopt).status, Status::ok);
  ASSERT_TRUE(slow.last_screen_ms());
  EXPECT_GT(*slow.last_screen_ms(), 1.5 * best_ms);
  const Measurement unscreened =
      best.time(TimingPlan{1, 2, 2, L2Mode::warm, std::nullopt}, false, std::nullopt, best_ms);
  EXPECT_EQ(unscreened.status, Status::ok);
  EXPECT_FALSE(best.last_screen_ms());  // no rule, no screen
}

// --graphs: every warm batch a replay of a captured graph, the kernel's, cuBLAS's, the screen's and a pairing's;
// each timing says how it was enqueued. cuBLAS at 512^3 costs the host more per call than the GPU spends on it, so
// replays are not slower than host-enqueued calls (on the H200: ~3.5 us against ~10 us).
TEST_F(DeviceTimingTest, GraphBatchesTimeAtTheGpusPaceAndSaySo) {
  const TimingPlan graphs{3, 7, 20, L2Mode::warm, std::nullopt, BatchEnqueue::graph};
  const TimingPlan stream{3, 7, 20, L2Mode::warm, std::nullopt, BatchEnqueue::stream};
  CandidateRun run(*session_, *problem_, naive(16));
  ASSERT_EQ(run.verify(0.5, 1e-3).status, Status::ok);
  const Measurement g = run.time(graphs, false, std::nullopt, std::nullopt);
  const Measurement s = run.time(stream, false, std::nullopt, std::nullopt);
  ASSERT_EQ(g.status, Status::ok) << g.message;
  ASSERT_EQ(s.status, Status::ok) << s.message;
  EXPECT_EQ(g.timing->batches, BatchEnqueue::graph);
  EXPECT_EQ(s.timing->batches, BatchEnqueue::stream);
  EXPECT_EQ(g.timing->runs, 7);
  // The naive kernel is GPU-bound: both ways time the same launches (a graph replaying fewer would read faster).
  EXPECT_LE(g.timing->median_ms, 1.10 * s.timing->median_ms)
      << "graph " << g.timing->median_ms << " ms, stream " << s.timing->median_ms << " ms";
  EXPECT_GE(g.timing->median_ms, 0.80 * s.timing->median_ms)
      << "graph " << g.timing->median_ms << " ms, stream " << s.timing->median_ms << " ms";

  const TimingStats cublas_graph = problem_->time_cublas(3, 7, 20, L2Mode::warm, BatchEnqueue::graph);
  const TimingStats cublas_stream = problem_->time_cublas(3, 7, 20, L2Mode::warm, BatchEnqueue::stream);
  EXPECT_EQ(cublas_graph.batches, BatchEnqueue::graph);  // cuBLAS can be captured
  // The graph is uploaded before the first timed replay: uploaded by that replay, it put cuBLAS's max at 512^3
  // 2.3 us per launch above a 3.5 us median on the H200.
  EXPECT_LT(cublas_graph.spread(), 0.15) << "min " << cublas_graph.min_ms << " median " << cublas_graph.median_ms
                                         << " max " << cublas_graph.max_ms << " ms";
  EXPECT_LE(cublas_graph.median_ms, 1.10 * cublas_stream.median_ms)
      << "graph " << cublas_graph.median_ms << " ms, stream " << cublas_stream.median_ms << " ms";

  // The screen's batch, and a pairing with cuBLAS, are enqueued the same way.
  CandidateRun slow(*session_, *problem_, naive(1));
  ASSERT_EQ(slow.verify(0.5, 1e-3).status, Status::ok);
  const Measurement screened = slow.time(graphs, false, ScreenRule{1.5, 3}, g.timing->median_ms);
  ASSERT_EQ(screened.status, Status::screened_out) << screened.message;
  EXPECT_EQ(screened.timing->batches, BatchEnqueue::graph);
  const Measurement paired = run.time(graphs, true, std::nullopt, std::nullopt);
  ASSERT_EQ(paired.status, Status::ok) << paired.message;
  ASSERT_TRUE(paired.paired_cublas);
  EXPECT_EQ(paired.timing->batches, BatchEnqueue::graph);
  EXPECT_EQ(paired.paired_cublas->batches, BatchEnqueue::graph);

  // Calls that cannot be captured (a synchronisation inside the capture) fall back to host calls, say so, and
  // leave no error behind for the next launch or capture.
  const cudaStream_t stream_handle = session_->stream();
  WarmBatch refused = WarmBatch::graph_or_stream(
      stream_handle, 3, [stream_handle] { MPGEMM_CUDA(cudaStreamSynchronize(stream_handle)); }, BatchEnqueue::graph);
  EXPECT_EQ(refused.how(), BatchEnqueue::stream);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_GE(refused.time(), 0.0);
  const Measurement after = run.time(graphs, false, std::nullopt, std::nullopt);
  ASSERT_EQ(after.status, Status::ok) << after.message;
  EXPECT_EQ(after.timing->batches, BatchEnqueue::graph);

  // Cold L2 times each launch alone after a flush: graph batches there are a mistake, said so before any launch.
  const TimingPlan cold_graphs{3, 7, 20, L2Mode::cold, std::nullopt, BatchEnqueue::graph};
  EXPECT_THROW(time_launches(session_->stream(), cold_graphs, &session_->l2_flusher(), [] {}), Error);
}

}  // namespace
}  // namespace mpgemm
