// time_interleaved on a real GPU: in this process (worker/interleaved.hpp) for the rounds, the samples and the
// kernels that drop out, and through mpgemm-worker (WorkerClient) for a sticky fault in the middle of the rounds.
// Without a device every test is skipped with the reason.
#include <chrono>
#include <filesystem>
#include <memory>

#include <gtest/gtest.h>

#include "../kernels/device_test_nvrtc.hpp"
#include "device/cublaslt.hpp"
#include "device/query.hpp"
#include "device/session.hpp"
#include "support/interleaved_position.hpp"
#include "worker/client.hpp"
#include "worker/interleaved.hpp"

namespace mpgemm {
namespace {

const Shape kShape{250, 190, 130};

LaunchGeometry geometry_for(const Shape& s) {
  LaunchGeometry g;
  g.block = {16, 16, 1};
  g.grid = {static_cast<std::uint32_t>((s.n + 15) / 16), static_cast<std::uint32_t>((s.m + 15) / 16), 1};
  return g;
}

class WorkerInterleaved : public ::testing::Test {
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

  static InterleavedKernel kernel(const std::string& name, LaunchGeometry g = geometry_for(kShape)) {
    InterleavedKernel k;
    k.cubin = cubin_;
    k.lowered_name = name;
    k.geometry = g;
    return k;
  }

  static inline std::string skip_reason_;
  static inline std::string setup_error_;
  static inline std::unique_ptr<DeviceSession> session_;
  static inline std::unique_ptr<ProblemContext> problem_;
  static inline std::vector<char> cubin_;
};

// Two copies of one kernel (A/A), a wrong kernel and one the device refuses: the wrong and the refused drop out
// before the rounds, the copies and cuBLAS are timed in every round in that round's order, and the copies agree.
TEST_F(WorkerInterleaved, RoundsRunInTheirOrderAndFailuresDropOut) {
  LaunchGeometry too_big = geometry_for(kShape);
  too_big.block = {64, 32, 1};  // 2048 threads: over every device's limit
  TimeInterleavedRequest req;
  req.kernels = {kernel("test_gemm_naive"), kernel("test_gemm_off_by_one"), kernel("test_gemm_naive"),
                 kernel("test_gemm_naive", too_big)};
  req.warmup = 3;
  req.rounds = 10;
  req.iters = 20;
  const InterleavedReply r = time_interleaved(*session_, *problem_, req, nullptr);
  ASSERT_EQ(r.kernels.size(), 4u);
  EXPECT_FALSE(r.context_lost);
  EXPECT_EQ(r.kernels[1].status, Status::incorrect);
  EXPECT_TRUE(r.kernels[1].samples.empty());
  EXPECT_NE(r.kernels[3].status, Status::ok);
  EXPECT_TRUE(r.kernels[3].samples.empty());
  for (const std::size_t i : {0u, 2u}) {
    const auto& k = r.kernels[i];
    ASSERT_EQ(k.status, Status::ok) << k.message;
    ASSERT_EQ(k.samples.size(), 10u);
    ASSERT_TRUE(k.timing);
    EXPECT_EQ(k.timing->runs, 10);
    for (int round = 0; round < 10; ++round) {
      EXPECT_EQ(k.samples[static_cast<std::size_t>(round)].round, round);
      EXPECT_GT(k.samples[static_cast<std::size_t>(round)].ms, 0);
    }
  }
  ASSERT_EQ(r.cublas.size(), 10u);
  ASSERT_TRUE(r.cublas_timing);
  // Three entries timed per round (the copies and cuBLAS, entry 4; the wrong kernel, entry 1, and the refused one,
  // entry 3, dropped before the rounds): each sample's position is its entry's place in that round's order.
  const std::vector<bool> survivors{true, false, true, false, true};
  for (const auto& [entry, samples] :
       {std::pair{0, r.kernels[0].samples}, std::pair{2, r.kernels[2].samples}, std::pair{4, r.cublas}})
    for (const auto& s : samples)
      EXPECT_EQ(s.position, testing::interleaved_position(s.round, survivors, entry)) << "entry " << entry;
  EXPECT_NEAR(r.kernels[2].timing->median_ms / r.kernels[0].timing->median_ms, 1.0, 0.1);
  // No cuBLASLt session: not in the rounds, and the reply says why.
  EXPECT_TRUE(r.cublaslt.empty());
  EXPECT_FALSE(r.cublaslt_timing);
  EXPECT_FALSE(r.cublaslt_message.empty());
}

// cuBLASLt's chosen algorithm as one more entry: with its session it is timed in every round (kernels + 2 entries)
// with a positive median; asked not to, or without an algorithm for the shape, it is absent and the reply says why.
TEST_F(WorkerInterleaved, CublasLtJoinsTheRoundsWhenAskedFor) {
  const Shape shape{256, 256, 128};
  ProblemContext problem(*session_, shape, 11);
  CublasLtSession lt(*session_);
  EXPECT_FALSE(lt.has_best(problem.problem()));
  const CublasLtReference ref = lt.best_of_heuristics(problem, 3, 5, 20, 0.5, 1e-3);
  ASSERT_TRUE(ref.timing) << ref.message;
  ASSERT_TRUE(lt.has_best(problem.problem()));
  EXPECT_FALSE(lt.has_best(GemmProblem{kShape, ProblemKind{}}));

  TimeInterleavedRequest req;
  req.kernels = {kernel("test_gemm_naive", geometry_for(shape)), kernel("test_gemm_naive", geometry_for(shape))};
  req.rounds = 8;
  const InterleavedReply r = time_interleaved(*session_, problem, req, &lt);
  ASSERT_EQ(r.kernels.size(), 2u);
  for (const auto& k : r.kernels) ASSERT_EQ(k.status, Status::ok) << k.message;
  ASSERT_EQ(r.cublaslt.size(), 8u) << r.cublaslt_message;
  ASSERT_TRUE(r.cublaslt_timing);
  EXPECT_GT(r.cublaslt_timing->median_ms, 0);
  EXPECT_TRUE(r.cublaslt_message.empty());
  ASSERT_EQ(r.cublas.size(), 8u);
  // Four entries (two kernels, cuBLAS, cuBLASLt as entry 3): each of its samples at its place in its round's order.
  for (const auto& s : r.cublaslt)
    EXPECT_EQ(s.position, testing::interleaved_position(s.round, std::vector<bool>(4, true), 3));
  // The same algorithm as at the start, on the same problem: the rounds' median is near the start's.
  EXPECT_NEAR(r.cublaslt_timing->median_ms / ref.timing->median_ms, 1.0, 0.5);

  req.cublaslt = false;
  const InterleavedReply off = time_interleaved(*session_, problem, req, &lt);
  EXPECT_TRUE(off.cublaslt.empty());
  EXPECT_FALSE(off.cublaslt_timing);
  EXPECT_FALSE(off.cublaslt_message.empty());
  EXPECT_EQ(off.cublas.size(), 8u);
  EXPECT_EQ(off.kernels[0].samples.size(), 8u);

  // A session whose algorithm is for another shape is not run on this one.
  req.cublaslt = true;
  const InterleavedReply other = time_interleaved(*session_, *problem_, {{kernel("test_gemm_naive")}}, &lt);
  EXPECT_TRUE(other.cublaslt.empty());
  EXPECT_FALSE(other.cublaslt_message.empty());
}

// Graph batches: every entry (two copies of a kernel, cuBLAS, cuBLASLt) is captured once and replayed in every
// round; a wrong kernel still drops out at verification; the copies agree; and a replayed batch is not slower than
// the same batch enqueued from the host (the host's calls are what it takes out).
TEST_F(WorkerInterleaved, GraphBatchesTimeEveryEntryAtTheGpusPace) {
  const Shape shape{256, 256, 128};
  ProblemContext problem(*session_, shape, 13);
  CublasLtSession lt(*session_);
  const CublasLtReference ref = lt.best_of_heuristics(problem, 3, 5, 20, 0.5, 1e-3);
  ASSERT_TRUE(ref.timing) << ref.message;

  TimeInterleavedRequest req;
  req.kernels = {kernel("test_gemm_naive", geometry_for(shape)), kernel("test_gemm_off_by_one", geometry_for(shape)),
                 kernel("test_gemm_naive", geometry_for(shape))};
  req.rounds = 8;
  req.graphs = true;
  const InterleavedReply g = time_interleaved(*session_, problem, req, &lt);
  ASSERT_TRUE(g.graphs) << g.graphs_message;
  EXPECT_TRUE(g.graphs_message.empty());
  EXPECT_EQ(g.kernels[1].status, Status::incorrect);
  for (const std::size_t i : {0u, 2u}) {
    ASSERT_EQ(g.kernels[i].status, Status::ok) << g.kernels[i].message;
    ASSERT_EQ(g.kernels[i].samples.size(), 8u);
  }
  ASSERT_EQ(g.cublas.size(), 8u);
  ASSERT_EQ(g.cublaslt.size(), 8u) << g.cublaslt_message;
  EXPECT_NEAR(g.kernels[2].timing->median_ms / g.kernels[0].timing->median_ms, 1.0, 0.1);

  req.graphs = false;
  const InterleavedReply h = time_interleaved(*session_, problem, req, &lt);
  EXPECT_FALSE(h.graphs);
  EXPECT_LE(g.kernels[0].timing->median_ms, 1.1 * h.kernels[0].timing->median_ms);
  EXPECT_LE(g.cublas_timing->median_ms, 1.1 * h.cublas_timing->median_ms);
  EXPECT_LE(g.cublaslt_timing->median_ms, 1.1 * h.cublaslt_timing->median_ms);
  EXPECT_GT(g.cublas_timing->median_ms, 0);
}

// Untimed rounds before the timed ones: they run for at least settle_ms of wall time and add no samples (each
// entry still has one per timed round, rounds numbered from 0); a kernel wrong at verification never runs in them.
TEST_F(WorkerInterleaved, SettlingRoundsRunFirstAndAreNotTimed) {
  const Shape shape{256, 256, 128};
  ProblemContext problem(*session_, shape, 17);
  TimeInterleavedRequest req;
  req.kernels = {kernel("test_gemm_naive", geometry_for(shape)), kernel("test_gemm_off_by_one", geometry_for(shape))};
  req.rounds = 5;
  req.graphs = true;
  req.settle_ms = 200;
  const auto start = std::chrono::steady_clock::now();
  const InterleavedReply r = time_interleaved(*session_, problem, req, nullptr);
  const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(r.settled_ms, 200);
  EXPECT_GE(wall_ms, r.settled_ms);
  // 200 ms of 256x256x128 batches (microseconds each): many untimed rounds, not a sleep.
  EXPECT_GT(r.settle_rounds, 10);
  EXPECT_EQ(r.kernels[1].status, Status::incorrect);
  ASSERT_EQ(r.kernels[0].status, Status::ok) << r.kernels[0].message;
  ASSERT_EQ(r.kernels[0].samples.size(), 5u);
  ASSERT_EQ(r.cublas.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(r.kernels[0].samples[static_cast<std::size_t>(i)].round, i);

  req.settle_ms = 0;
  const InterleavedReply none = time_interleaved(*session_, problem, req, nullptr);
  EXPECT_EQ(none.settled_ms, 0);
  EXPECT_EQ(none.settle_rounds, 0);
}

// Through the worker: prepare_shape with cuBLASLt keeps its algorithm for time_interleaved; without, none.
TEST_F(WorkerInterleaved, TheWorkerTimesCublasLtAsPreparedAndAsked) {
  WorkerOptions o;
  o.executable = (std::filesystem::path(MPGEMM_BINARY_DIR) / "bin" / "mpgemm-worker").string();
  WorkerClient client(o);
  client.hello();
  PrepareShapeRequest prep;
  prep.shape = Shape{256, 256, 128};
  prep.cublaslt = true;
  const PrepareShapeReply prepared = client.prepare_shape(prep);
  ASSERT_TRUE(prepared.cublaslt);
  ASSERT_TRUE(prepared.cublaslt->timing) << prepared.cublaslt->message;
  TimeInterleavedRequest req;
  req.kernels = {kernel("test_gemm_naive", geometry_for(prep.shape))};
  req.rounds = 6;
  const InterleavedReply r = client.time_interleaved(req);
  ASSERT_EQ(r.cublaslt.size(), 6u) << r.cublaslt_message;
  ASSERT_TRUE(r.cublaslt_timing);
  EXPECT_GT(r.cublaslt_timing->median_ms, 0);
  req.cublaslt = false;
  EXPECT_TRUE(client.time_interleaved(req).cublaslt.empty());

  prep.cublaslt = false;  // the same shape again, without cuBLASLt: its algorithm is not kept
  client.prepare_shape(prep);
  req.cublaslt = true;
  const InterleavedReply without = client.time_interleaved(req);
  EXPECT_TRUE(without.cublaslt.empty());
  EXPECT_FALSE(without.cublaslt_timing);
  EXPECT_FALSE(without.cublaslt_message.empty());
  EXPECT_EQ(without.cublas.size(), 6u);
}

// Through the worker: a kernel that faults in its verification launch loses the context; the reply still comes,
// says so, and the worker is ended; the next request gets a fresh worker.
TEST_F(WorkerInterleaved, AStickyFaultEndsTheWorkerNotTheRequest) {
  WorkerOptions o;
  o.executable = (std::filesystem::path(MPGEMM_BINARY_DIR) / "bin" / "mpgemm-worker").string();
  WorkerClient client(o);
  client.hello();
  PrepareShapeRequest prep;
  prep.shape = kShape;
  prep.cublaslt = false;
  client.prepare_shape(prep);
  TimeInterleavedRequest req;
  req.kernels = {kernel("test_gemm_naive"), kernel("test_gemm_illegal_address")};
  req.rounds = 4;
  const InterleavedReply r = client.time_interleaved(req);
  EXPECT_TRUE(r.context_lost);
  EXPECT_EQ(r.kernels[1].status, Status::runtime_fault);
  EXPECT_FALSE(client.running());
  req.kernels.pop_back();
  const InterleavedReply again = client.time_interleaved(req);
  EXPECT_FALSE(again.context_lost);
  EXPECT_EQ(again.kernels[0].samples.size(), 4u);
  EXPECT_EQ(again.cublas.size(), 4u);
  EXPECT_TRUE(again.cublaslt.empty());  // prepared without cuBLASLt
}

}  // namespace
}  // namespace mpgemm
