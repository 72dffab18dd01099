// libmpgemm's C interface (include/mpgemm/gemm.h): statuses and the thread's last error instead of exceptions, on
// a recorded H200 database; no GPU needed (without one, plan and gemm say no_device). The header is also compiled
// as C99, which it must be for the bindings it serves.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "mpgemm/gemm.h"
#include "support/run_command.hpp"

namespace {

const std::filesystem::path kDb = std::filesystem::path(MPGEMM_SOURCE_DIR) / "tests/data/db/h200_rerank_three_cubes.db";

TEST(CApi, OpenFailsWithAStatusAndTheReason) {
  mpgemm_library* lib = reinterpret_cast<mpgemm_library*>(0x1);
  EXPECT_EQ(mpgemm_open("/nonexistent/results.db", nullptr, &lib), MPGEMM_OPEN_FAILED);
  EXPECT_EQ(lib, nullptr);
  EXPECT_NE(std::string(mpgemm_last_error()).find("/nonexistent/results.db"), std::string::npos) << mpgemm_last_error();
  EXPECT_STREQ(mpgemm_status_name(MPGEMM_OPEN_FAILED), "open_failed");
  EXPECT_EQ(mpgemm_open(nullptr, nullptr, &lib), MPGEMM_BAD_ARGUMENT);
  EXPECT_EQ(mpgemm_open(kDb.c_str(), nullptr, nullptr), MPGEMM_BAD_ARGUMENT);
}

TEST(CApi, OpensARecordedDatabaseAndAnswersForEveryShape) {
  mpgemm_library* lib = nullptr;
  ASSERT_EQ(mpgemm_open(kDb.c_str(), nullptr, &lib), MPGEMM_OK) << mpgemm_last_error();
  EXPECT_STREQ(mpgemm_last_error(), "");    // a success clears the thread's last error
  EXPECT_EQ(mpgemm_tuned_shapes(lib), 3u);  // 2048^3, 4096^3, 8192^3 on one H200

  mpgemm_dispatch d{};
  const mpgemm_status planned = mpgemm_plan(lib, 4096, 4096, 4096, &d);
  if (planned == MPGEMM_OK) {  // a GPU: the H200 of the recording gets its winner, another device cuBLAS
    EXPECT_NE(std::strlen(d.config), 0u);
    EXPECT_NE(std::strlen(d.reason), 0u);
  } else {
    EXPECT_EQ(planned, MPGEMM_NO_DEVICE) << mpgemm_last_error();
    EXPECT_NE(std::string(mpgemm_last_error()).find("device"), std::string::npos) << mpgemm_last_error();
  }
  // Null pointers are refused before anything touches a device.
  EXPECT_EQ(mpgemm_gemm(lib, nullptr, nullptr, nullptr, 64, 64, 64, nullptr, &d), MPGEMM_BAD_ARGUMENT);
  EXPECT_NE(std::string(mpgemm_last_error()).find("pointers"), std::string::npos) << mpgemm_last_error();
  EXPECT_EQ(mpgemm_plan(lib, 64, 64, 64, nullptr), MPGEMM_BAD_ARGUMENT);
  mpgemm_close(lib);
}

TEST(CApi, NullLibrariesAreRefusedNotDereferenced) {
  mpgemm_dispatch d{};
  EXPECT_EQ(mpgemm_gemm(nullptr, nullptr, nullptr, nullptr, 1, 1, 1, nullptr, &d), MPGEMM_BAD_ARGUMENT);
  EXPECT_EQ(mpgemm_plan(nullptr, 1, 1, 1, &d), MPGEMM_BAD_ARGUMENT);
  EXPECT_EQ(mpgemm_tuned_shapes(nullptr), 0u);
  mpgemm_close(nullptr);
  const mpgemm_options o = mpgemm_default_options();
  EXPECT_EQ(o.min_ratio, 1.0);
  EXPECT_EQ(o.allow_cublas, 1);
  EXPECT_EQ(o.allow_compile, 1);
  EXPECT_EQ(o.cubin_cache, nullptr);
  for (int s = MPGEMM_OK; s <= MPGEMM_INTERNAL; ++s)
    EXPECT_STRNE(mpgemm_status_name(static_cast<mpgemm_status>(s)), "?") << s;
}

// A threshold no ratio can be compared with (NaN), or one below the documented 0, is the caller's mistake: refused
// before the file is read, with the C API's convention (a status, *out NULL, a last error naming the option).
TEST(CApi, AMinRatioThatIsNotANumberAtLeastZeroIsABadArgument) {
  for (const double bad :
       {std::nan(""), -0.5, -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()}) {
    mpgemm_options o = mpgemm_default_options();
    o.min_ratio = bad;
    mpgemm_library* lib = reinterpret_cast<mpgemm_library*>(0x1);
    EXPECT_EQ(mpgemm_open(kDb.c_str(), &o, &lib), MPGEMM_BAD_ARGUMENT) << bad;
    EXPECT_EQ(lib, nullptr);
    EXPECT_NE(std::string(mpgemm_last_error()).find("min_ratio"), std::string::npos) << mpgemm_last_error();
    EXPECT_EQ(std::string(mpgemm_last_error()).find('\n'), std::string::npos) << mpgemm_last_error();
  }
  for (const double good : {0.0, 0.9, 1.0}) {  // 0: every tuned winner runs
    mpgemm_options o = mpgemm_default_options();
    o.min_ratio = good;
    mpgemm_library* lib = nullptr;
    EXPECT_EQ(mpgemm_open(kDb.c_str(), &o, &lib), MPGEMM_OK) << good << ": " << mpgemm_last_error();
    mpgemm_close(lib);
  }
}

// mpgemm_gemm_ex's descriptor carries its own size: one smaller than the first version or larger than this library
// knows is refused naming both; a value outside its enums, a NULL D, a beta that reads a NULL C are refused naming
// what is wrong; all of it before any device is looked for. Every kind is served: mpgemm_plan_ex of a non-default
// kind asks for the device (no_device here) or, on a GPU, plans it for that kind.
TEST(CApi, TheGemmDescriptorCarriesItsSizeAndServesEveryKind) {
  mpgemm_library* lib = nullptr;
  ASSERT_EQ(mpgemm_open(kDb.c_str(), nullptr, &lib), MPGEMM_OK) << mpgemm_last_error();
  const mpgemm_gemm_desc base = mpgemm_default_gemm_desc();
  EXPECT_EQ(base.size, sizeof(mpgemm_gemm_desc));
  EXPECT_EQ(base.a_layout, MPGEMM_A_MK);
  EXPECT_EQ(base.out_type, MPGEMM_FP32);
  EXPECT_EQ(base.alpha, 1.0f);
  EXPECT_EQ(base.beta, 0.0f);
  const auto refused = [&](mpgemm_gemm_desc d, const std::string& says) {
    EXPECT_EQ(mpgemm_gemm_ex(lib, &d, nullptr, nullptr), MPGEMM_BAD_ARGUMENT) << says;
    EXPECT_NE(std::string(mpgemm_last_error()).find(says), std::string::npos) << mpgemm_last_error();
  };
  mpgemm_gemm_desc d = base;
  d.size = sizeof(mpgemm_gemm_desc) + 8;  // a newer header's descriptor
  refused(d, "the descriptor's size is");
  d.size = 8;
  refused(d, "a larger one comes from a newer mpgemm/gemm.h");
  d = base;
  d.beta = 0.5f;
  d.D = &d;  // never used: the missing C is refused first
  refused(d, "beta != 0 reads C, and C is NULL");
  d = base;
  d.in_type = MPGEMM_FP32;
  refused(d, "in_type is neither MPGEMM_FP16 nor MPGEMM_BF16");
  d = base;
  refused(d, "D is NULL");
  EXPECT_EQ(mpgemm_gemm_ex(lib, nullptr, nullptr, nullptr), MPGEMM_BAD_ARGUMENT);
  EXPECT_EQ(mpgemm_gemm_ex(nullptr, &base, nullptr, nullptr), MPGEMM_BAD_ARGUMENT);

  mpgemm_dispatch planned{};
  d = base;
  d.b_layout = MPGEMM_B_NK;
  d.in_type = MPGEMM_BF16;
  d.out_type = MPGEMM_BF16;
  d.M = d.N = d.K = 4096;
  const mpgemm_status s = mpgemm_plan_ex(lib, &d, &planned);
  if (s == MPGEMM_OK) {  // a GPU: the recorded database has no mk_nk_bf16_bf16 winner
    EXPECT_EQ(planned.path, MPGEMM_PATH_CUBLAS);
    EXPECT_EQ(std::string(planned.reason).rfind("mk_nk_bf16_bf16: ", 0), 0u) << planned.reason;
  } else {
    EXPECT_EQ(s, MPGEMM_NO_DEVICE) << mpgemm_last_error();
  }
  d.in_type = MPGEMM_FP32;
  EXPECT_EQ(mpgemm_plan_ex(lib, &d, &planned), MPGEMM_BAD_ARGUMENT);
  EXPECT_EQ(mpgemm_plan_ex(lib, nullptr, &planned), MPGEMM_BAD_ARGUMENT);
  mpgemm_close(lib);
}

TEST(CApi, TheHeaderIsC99) {
  const auto r = mpgemm::testing::run_command(
      fmt::format("g++ -x c -std=c99 -pedantic-errors -Wall -Werror -fsyntax-only -I{} {}",
                  (std::filesystem::path(MPGEMM_SOURCE_DIR) / "include").string(),
                  (std::filesystem::path(MPGEMM_SOURCE_DIR) / "include/mpgemm/gemm.h").string()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

}  // namespace
