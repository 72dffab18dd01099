// libmpgemm's problem kinds on a GPU: gemm() of a kind other than the default against cuBLAS computing that kind
// on the same inputs (device/problem.hpp ProblemContext). On an sm_90 GPU a small database tuned by mpgemm-tune
// --problem mk_nk_bf16_bf16 (the Hopper family's wgmma_tile128 and wgmma_persistent points) serves that kind with
// its own winner, and a default-kind call on the same library never takes it. On any GPU a kind with no winner runs
// cublasGemmEx of that kind, with alpha, beta and a C that is D. Skipped, with the reason, without a device.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "device/cuda_check.hpp"
#include "device/problem.hpp"
#include "device/query.hpp"
#include "device/session.hpp"
#include "mpgemm/gemm.hpp"
#include "support/run_command.hpp"

using namespace mpgemm;
using namespace mpgemm::testing;

namespace {

const Shape kTuned{1024, 1024, 1024};
const char* const kLinear = "mk_nk_bf16_bf16";

class LibGemmKinds : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string why;
    if (!device_available(&why)) {
      skip_ = "no CUDA device: " + why;
      return;
    }
    hopper_ = query_device().arch.cc() == 90;
    dir_ = fresh_dir("lib_gemm_kinds");
    db_ = (dir_ / "lib.db").string();
    const std::string space = hopper_ ? fmt::format(
                                            "configs/sm90a.json --only wgmma_tile128,wgmma_persistent "
                                            "--problem {}",
                                            kLinear)
                                      : "configs/sm86.json --only wmma_cp_async";
    const auto r = run_command(fmt::format("cd {} && {} {} --shapes {} --no-screen --rerank 0 --db {}",
                                           MPGEMM_SOURCE_DIR, bin("mpgemm-tune"), space, kTuned.str(), db_));
    tune_output_ = r.output;
    tune_ok_ = r.exit_code == 0;
  }
  static void TearDownTestSuite() {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
    ASSERT_TRUE(tune_ok_) << tune_output_;
  }

  // gemm() of `kind` at `shape` on random inputs (C too when the kind reads it), compared with cuBLAS's FP32 result
  // of the same kind on the same inputs. in_place: C is copied into D first and D is passed as C.
  static Dispatch run_and_compare(Library& lib, const std::string& kind, const Shape& shape, float alpha = 1,
                                  float beta = 0, bool in_place = false) {
    DeviceSession session(0);
    const Problem p = parse_problem(kind);
    ProblemContext problem(session, GemmProblem{shape, *ProblemKind::parse(kind)}, 7, alpha, beta);
    problem.poison_output();
    const ProblemBuffers b = problem.buffers();
    const void* c = b.c_in;
    if (in_place && b.c_in) {
      const std::size_t bytes = problem.output_elements() * static_cast<std::size_t>(bytes_of(problem.kind().out));
      MPGEMM_CUDA(cudaMemcpyAsync(b.c, b.c_in, bytes, cudaMemcpyDeviceToDevice, session.stream()));
      c = b.c;
    }
    const Dispatch d = lib.gemm(p, b.a, b.b, b.c, shape.m, shape.n, shape.k, session.stream(), alpha, beta, c);
    const ErrorStats e = problem.compare_output(0.5, 1e-3);
    EXPECT_EQ(e.bad_count, 0) << kind << " " << shape.str() << " via " << d.config << ": max abs error " << e.max_abs;
    EXPECT_EQ(e.nan_count, 0) << kind << " " << shape.str();
    return d;
  }

  static inline std::string skip_;
  static inline bool hopper_ = false;
  static inline std::filesystem::path dir_;
  static inline std::string db_;
  static inline std::string tune_output_;
  static inline bool tune_ok_ = false;
};

Library::Options any_winner() {
  Library::Options o;
  o.min_ratio = 0;  // a two-config space rarely beats cuBLAS: run its winners anyway
  return o;
}

}  // namespace

TEST_F(LibGemmKinds, ATunedKindRunsItsOwnWinner) {
  if (!hopper_) GTEST_SKIP() << "the Hopper family (sm_90) is the one that computes " << kLinear;
  Library lib = Library::open(db_, any_winner());
  const Dispatch d = run_and_compare(lib, kLinear, kTuned);
  EXPECT_EQ(d.path, Path::tuned) << d.reason;
  EXPECT_EQ(d.problem, kLinear);
  EXPECT_EQ(d.reason.rfind(std::string(kLinear) + ": ", 0), 0u) << d.reason;
  // The default kind was never tuned here: its call goes to cuBLAS, never to the linear winner.
  const Dispatch plain = lib.plan(kTuned.m, kTuned.n, kTuned.k);
  EXPECT_EQ(plain.path, Path::cublas) << plain.reason;
  // An untuned shape of the kind takes the kind's nearest winner.
  EXPECT_EQ(run_and_compare(lib, kLinear, Shape{1000, 1096, 520}).path, Path::nearest);
}

TEST_F(LibGemmKinds, AKindWithoutAWinnerRunsCublasOfThatKind) {
  Library lib = Library::open(db_, any_winner());
  for (const char* kind : {"km_kn_fp16_fp32", "mk_nk_fp16_fp16", "km_nk_bf16_fp32"}) {
    const Dispatch d = run_and_compare(lib, kind, Shape{512, 768, 256});
    EXPECT_EQ(d.path, Path::cublas) << kind << ": " << d.reason;
    EXPECT_EQ(d.config, "cublasGemmEx");
  }
  // alpha and beta, C apart from D and C that is D.
  EXPECT_EQ(run_and_compare(lib, "mk_nk_bf16_bf16_beta", Shape{512, 768, 256}, 1.5f, 0.5f).path, Path::cublas);
  EXPECT_EQ(run_and_compare(lib, "mk_kn_fp16_fp32_beta", Shape{512, 768, 256}, 0.5f, -1.0f, true).path, Path::cublas);
}

TEST_F(LibGemmKinds, AKindCublasCannotComputeIsRefusedWithoutAWinner) {
  Library lib = Library::open(db_, any_winner());
  DeviceSession session(0);
  DeviceBuffer a(512 * 512 * 2, "A"), b(512 * 512 * 2, "B"), d(512 * 512 * 2, "D");
  try {
    lib.gemm(parse_problem("mk_kn_fp16_bf16"), a.get(), b.get(), d.get(), 512, 512, 512, session.stream());
    ADD_FAILURE() << "mk_kn_fp16_bf16 ran without a winner";
  } catch (const GemmError& e) {
    EXPECT_EQ(e.kind(), GemmError::Kind::no_tuned_config) << e.what();
    EXPECT_NE(std::string(e.what()).find("do not compute fp16 operands into bf16"), std::string::npos) << e.what();
  }
}

// A 16-bit D from split-K and stream-K winners: the library grows the stream's workspace for their FP32 partial sums
// (the flags' megabyte is not enough), beta with C apart from D and C that is D, and a shape whose split tiles are
// sized differently right after (the larger workspace taken, the smaller kept for the calls made before).
TEST_F(LibGemmKinds, SplitWinnersWithA16BitOutputRunInTheGrownWorkspace) {
  if (!hopper_) GTEST_SKIP() << "the Hopper family (sm_90) computes split tiles with a 16-bit D";
  const std::string db = (dir_ / "split.db").string();
  const char* kind = "mk_nk_bf16_bf16_beta";
  const auto r = run_command(
      fmt::format("cd {} && {} configs/sm90a_suite.json --only "
                  "=wgmma_bm16_bn64_bk64_s12_c1_coop_cl1x1_m8_direct_pers_sk2_swab,"
                  "=wgmma_bm128_bn256_bk64_s4_c2_coop_cl1x1_m8_direct_pers_stk --shapes 64x4096x8192,3000x3000x3000 "
                  "--problem {} --no-screen --rerank 0 --db {}",
                  MPGEMM_SOURCE_DIR, bin("mpgemm-tune"), kind, db));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  Library lib = Library::open(db, any_winner());
  for (const Shape& s : {Shape{64, 4096, 8192}, Shape{3000, 3000, 3000}, Shape{64, 4096, 8192}}) {
    const Dispatch d = run_and_compare(lib, kind, s, 1.0f, 0.5f);
    EXPECT_EQ(d.path, Path::tuned) << d.reason;
    EXPECT_TRUE(d.config.find("_sk2") != std::string::npos || d.config.find("_stk") != std::string::npos) << d.config;
    EXPECT_EQ(run_and_compare(lib, kind, s, 0.5f, -1.0f, true).path, Path::tuned);
  }
}
