// The device layer in this process on a real GPU: verification, poison, resource checks, launch refusals, cuBLAS's
// reference and timing. Sticky faults are tested through the worker process (device_worker_test.cpp), since they
// would poison this process's context. Without a device every test is skipped with the reason.
#include <cmath>
#include <memory>

#include <gtest/gtest.h>

#include "../kernels/device_test_nvrtc.hpp"
#include "common/error.hpp"
#include "device/candidate.hpp"
#include "device/problem.hpp"
#include "device/query.hpp"
#include "device/session.hpp"
#include "device/timing.hpp"
#include "measure/fp16.hpp"
#include "measure/random_fill.hpp"

namespace mpgemm {
namespace {

// Sizes that are not multiples of the 16 x 16 blocks, so the kernels' bounds checks matter.
const Shape kShape{250, 190, 130};
constexpr std::uint64_t kSeed = 42;

LaunchGeometry geometry_for(const Shape& s) {
  LaunchGeometry g;
  g.block = {16, 16, 1};
  g.grid = {static_cast<std::uint32_t>((s.n + 15) / 16), static_cast<std::uint32_t>((s.m + 15) / 16), 1};
  return g;
}

class DeviceMeasureTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!device_available(&skip_reason_)) return;
    try {
      session_ = std::make_unique<DeviceSession>(0);
      cubin_ = test::compile_test_kernels(session_->info().arch);
      problem_ = std::make_unique<ProblemContext>(*session_, kShape, kSeed);
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

  static CandidateKernel kernel(const std::string& name, const LaunchGeometry& g = geometry_for(kShape)) {
    return CandidateKernel{cubin_, name, g, standard_args(), {}};
  }
  static VerifyOutcome verify(const CandidateKernel& k) {
    CandidateRun run(*session_, *problem_, k);
    return run.verify(0.5, 1e-3);
  }

  static inline std::string skip_reason_;
  static inline std::string setup_error_;
  static inline std::unique_ptr<DeviceSession> session_;
  static inline std::unique_ptr<ProblemContext> problem_;
  static inline std::vector<char> cubin_;
};

TEST_F(DeviceMeasureTest, DeviceInfoIsFilledIn) {
  const DeviceInfo& d = session_->info();
  EXPECT_FALSE(d.name.empty());
  EXPECT_GE(d.arch.major, 7);
  EXPECT_GT(d.sm_count, 0);
  EXPECT_GE(d.smem_per_block_optin, 48 * 1024);
  EXPECT_GT(d.total_memory_bytes, 0);
  EXPECT_GT(d.driver_version, 0);
  EXPECT_GT(d.runtime_version, 0);
  EXPECT_GT(d.cublas_version, 0);
}

TEST_F(DeviceMeasureTest, ReferenceIsRowMajorAB) {
  const auto m = static_cast<std::size_t>(kShape.m), n = static_cast<std::size_t>(kShape.n),
             k = static_cast<std::size_t>(kShape.k);
  std::vector<std::uint16_t> a(m * k), b(k * n);
  fill_random_halves(a, derive_seed(kSeed, 0));
  fill_random_halves(b, derive_seed(kSeed, 1));
  const auto ref = problem_->reference();
  ASSERT_EQ(ref.size(), m * n);
  for (std::size_t i = 0; i < m; i += 7) {
    for (std::size_t j = 0; j < n; j += 11) {
      double expect = 0;
      for (std::size_t p = 0; p < k; ++p)
        expect += double{half_bits_to_float(a[i * k + p])} * double{half_bits_to_float(b[p * n + j])};
      ASSERT_NEAR(ref[i * n + j], expect, 1e-3 + 1e-4 * std::fabs(expect)) << i << "," << j;
    }
  }
}

TEST_F(DeviceMeasureTest, CublasTimingIsPositive) {
  const TimingStats t = problem_->time_cublas(3, 5, 20);
  EXPECT_GT(t.median_ms, 0);
  EXPECT_LE(t.min_ms, t.median_ms);
  EXPECT_LE(t.median_ms, t.max_ms);
  EXPECT_EQ(t.runs, 5);
}

TEST_F(DeviceMeasureTest, CorrectKernelVerifiesAndTimes) {
  CandidateRun run(*session_, *problem_, kernel("test_gemm_naive"));
  const VerifyOutcome v = run.verify(0.5, 1e-3);
  ASSERT_EQ(v.status, Status::ok) << v.message;
  ASSERT_TRUE(v.error);
  EXPECT_EQ(v.error->bad_count, 0);
  EXPECT_LT(v.error->max_abs, 1e-2);
  EXPECT_GT(v.first_launch_ms, 0);
  const Measurement m = run.time(3, 5, 20);
  ASSERT_EQ(m.status, Status::ok) << m.message;
  ASSERT_TRUE(m.timing);
  EXPECT_GT(m.timing->median_ms, 0);
  EXPECT_LE(m.timing->min_ms, m.timing->median_ms);
  EXPECT_GE(m.sm_clock_mhz, 0);
  ASSERT_TRUE(m.error);
  EXPECT_EQ(m.error->bad_count, 0);
}

TEST_F(DeviceMeasureTest, PairedTimingTimesCublasBesideTheKernel) {
  CandidateRun run(*session_, *problem_, kernel("test_gemm_naive"));
  ASSERT_EQ(run.verify(0.5, 1e-3).status, Status::ok);
  const Measurement m = run.time(2, 6, 10, /*pair_with_cublas=*/true);
  ASSERT_EQ(m.status, Status::ok) << m.message;
  ASSERT_TRUE(m.timing);
  ASSERT_TRUE(m.paired_cublas);
  EXPECT_EQ(m.timing->runs, 6);
  EXPECT_EQ(m.paired_cublas->runs, 6);
  EXPECT_GT(m.paired_cublas->median_ms, 0);
  EXPECT_FALSE(run.time(2, 3, 10).paired_cublas);  // only when asked
}

TEST_F(DeviceMeasureTest, PairedTimingOfOneLaunchWithItselfAgrees) {
  // A/A: the same cuBLAS call on both sides; the medians of alternating batches must agree closely.
  const auto launch = [] { problem_->run_cublas(); };
  const PairedTimingStats p = time_paired(session_->stream(), 3, 10, 20, launch, launch);
  ASSERT_GT(p.a.median_ms, 0);
  EXPECT_NEAR(p.b.median_ms / p.a.median_ms, 1.0, 0.1) << p.a.median_ms << " vs " << p.b.median_ms;
  EXPECT_EQ(p.a.runs, 10);
}

TEST_F(DeviceMeasureTest, OffByOneIsIncorrect) {
  const VerifyOutcome v = verify(kernel("test_gemm_off_by_one"));
  EXPECT_EQ(v.status, Status::incorrect);
  ASSERT_TRUE(v.error);
  EXPECT_EQ(v.error->bad_count, kShape.m * kShape.n);
  EXPECT_EQ(v.error->nan_count, 0);
  EXPECT_NEAR(v.error->max_abs, 1.0, 1e-2);
  EXPECT_NE(v.message.find("differ from cuBLAS"), std::string::npos) << v.message;
}

TEST_F(DeviceMeasureTest, PoisonCatchesUnwrittenOutput) {
  // A correct run first leaves right answers in C: only the poison before the next launch can expose a kernel
  // that writes nothing.
  ASSERT_EQ(verify(kernel("test_gemm_naive")).status, Status::ok);
  const VerifyOutcome none = verify(kernel("test_gemm_no_write"));
  EXPECT_EQ(none.status, Status::incorrect);
  ASSERT_TRUE(none.error);
  EXPECT_EQ(none.error->nan_count, kShape.m * kShape.n);

  ASSERT_EQ(verify(kernel("test_gemm_naive")).status, Status::ok);
  const VerifyOutcome partial = verify(kernel("test_gemm_skip_last_row"));
  EXPECT_EQ(partial.status, Status::incorrect);
  ASSERT_TRUE(partial.error);
  EXPECT_EQ(partial.error->bad_count, kShape.n);
  EXPECT_EQ(partial.error->nan_count, kShape.n);
}

TEST_F(DeviceMeasureTest, ResourcesAreCheckedBeforeLaunch) {
  LaunchGeometry g = geometry_for(kShape);
  g.block = {32, 64, 1};  // 2048 threads
  VerifyOutcome v = verify(kernel("test_gemm_naive", g));
  EXPECT_EQ(v.status, Status::resources_exceeded);
  EXPECT_NE(v.message.find("2048 threads"), std::string::npos) << v.message;

  g = geometry_for(kShape);
  g.dynamic_smem_bytes = static_cast<std::uint32_t>(session_->info().smem_per_block_optin) + 1;
  v = verify(kernel("test_gemm_naive", g));
  EXPECT_EQ(v.status, Status::resources_exceeded);
  EXPECT_NE(v.message.find("opt-in limit"), std::string::npos) << v.message;

  g = geometry_for(kShape);
  g.dynamic_smem_bytes = 100 * 1024;  // over 48 KiB, within the opt-in: the attribute is raised, the launch runs
  v = verify(kernel("test_gemm_naive", g));
  EXPECT_EQ(v.status, Status::ok) << v.message;
}

// A persistent launch of test_gemm_persistent: far more blocks than the device holds at once.
LaunchGeometry persistent_geometry(std::uint32_t grid_x, std::uint32_t cluster_x = 1) {
  LaunchGeometry g;
  g.grid = {grid_x, 1, 1};
  g.block = {256, 1, 1};
  g.cluster = {cluster_x, 1, 1};
  g.persistent = true;
  return g;
}

TEST_F(DeviceMeasureTest, PersistentGridIsLoweredToWhatIsCoResident) {
  CandidateRun run(*session_, *problem_, kernel("test_gemm_persistent", persistent_geometry(1'000'000)));
  const VerifyOutcome v = run.verify(0.5, 1e-3);
  ASSERT_EQ(v.status, Status::ok) << v.message;
  // cuOccupancyMaxActiveBlocksPerMultiprocessor x SMs: a whole number of blocks per SM, at most what the SM's
  // thread limit allows (2048 threads on every arch since Volta but Turing's 1024).
  const auto sms = static_cast<std::uint32_t>(session_->info().sm_count);
  const std::uint32_t grid = run.geometry().grid.x;
  EXPECT_GT(grid, 0u);
  EXPECT_EQ(grid % sms, 0u) << grid;
  EXPECT_LE(grid, sms * 2048 / 256) << grid;
  EXPECT_EQ(run.geometry().grid.y, 1u);
  // The same geometry is timed.
  const Measurement m = run.time(1, 2, 3);
  EXPECT_EQ(m.status, Status::ok) << m.message;
  EXPECT_EQ(run.geometry().grid.x, grid);
}

TEST_F(DeviceMeasureTest, PersistentGridIsNeverRaised) {
  CandidateRun run(*session_, *problem_, kernel("test_gemm_persistent", persistent_geometry(3)));
  const VerifyOutcome v = run.verify(0.5, 1e-3);
  ASSERT_EQ(v.status, Status::ok) << v.message;  // three blocks still cover C
  EXPECT_EQ(run.geometry().grid.x, 3u);
}

TEST_F(DeviceMeasureTest, ClusterLaunchesAreCheckedAndPersistentOnesLowered) {
  if (session_->info().arch.cc() < 90) GTEST_SKIP() << "thread block clusters need sm_90";
  // A cluster launch that fits: checked with cuOccupancyMaxActiveClusters, launched as asked.
  LaunchGeometry g = geometry_for(kShape);  // 12 x 16 blocks: grid.x divisible by the cluster
  g.cluster = {2, 1, 1};
  CandidateRun plain(*session_, *problem_, kernel("test_gemm_naive", g));
  VerifyOutcome v = plain.verify(0.5, 1e-3);
  ASSERT_EQ(v.status, Status::ok) << v.message;
  EXPECT_EQ(plain.geometry().grid.x, g.grid.x);
  EXPECT_EQ(plain.geometry().grid.y, g.grid.y);

  // Persistent with clusters of 2: lowered to a whole number of co-resident clusters.
  CandidateRun persistent(*session_, *problem_, kernel("test_gemm_persistent", persistent_geometry(1'000'000, 2)));
  v = persistent.verify(0.5, 1e-3);
  ASSERT_EQ(v.status, Status::ok) << v.message;
  const std::uint32_t grid = persistent.geometry().grid.x;
  EXPECT_GT(grid, 0u);
  EXPECT_EQ(grid % 2, 0u) << grid;
  EXPECT_LE(grid, static_cast<std::uint32_t>(session_->info().sm_count) * 2048 / 256) << grid;
}

TEST_F(DeviceMeasureTest, RefusalsAreLaunchFailures) {
  VerifyOutcome v = verify(kernel("no_such_kernel"));
  EXPECT_EQ(v.status, Status::launch_failed);
  EXPECT_NE(v.message.find("CUDA_ERROR_NOT_FOUND"), std::string::npos) << v.message;
  EXPECT_FALSE(v.context_lost);

  const std::vector<char> garbage(4096, 'g');
  v = verify(CandidateKernel{garbage, "test_gemm_naive", geometry_for(kShape), standard_args(), {}});
  EXPECT_EQ(v.status, Status::launch_failed) << v.message;

  LaunchGeometry g = geometry_for(kShape);
  g.grid.y = 70000;  // over the 65535 limit of gridDim.y
  v = verify(kernel("test_gemm_naive", g));
  EXPECT_EQ(v.status, Status::launch_failed) << v.message;

  // The context is intact after refusals.
  EXPECT_EQ(verify(kernel("test_gemm_naive")).status, Status::ok);
}

TEST_F(DeviceMeasureTest, OutOfMemoryNamesTheSizes) {
  const Shape huge{1 << 20, 1 << 20, 16};  // C alone is 4 TiB
  try {
    ProblemContext p(*session_, huge, 1);
    FAIL() << "allocated 4 TiB";
  } catch (const CudaError& e) {
    EXPECT_EQ(e.code(), static_cast<int>(cudaErrorMemoryAllocation));
    EXPECT_NE(std::string(e.what()).find("4398046511104 bytes for C"), std::string::npos) << e.what();
  }
  EXPECT_EQ(verify(kernel("test_gemm_naive")).status, Status::ok);  // and the session goes on
}

}  // namespace
}  // namespace mpgemm
