// On a GPU, end to end through mpgemm-tune: the writeup's three points verify against cuBLAS at 2048^3 and at
// shapes that are not multiples of the block tile (or are rejected up front with a reason), and cuBLAS's timing
// and each ratio are stored.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "device/query.hpp"
#include "store/store.hpp"
#include "support/run_command.hpp"

using namespace mpgemm;
using namespace mpgemm::testing;

namespace {

class TunePoints : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!device_available(&why)) GTEST_SKIP() << "no CUDA device: " << why;
    dir_ = fresh_dir("tune_points");
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  // Tunes the three points at one shape into a fresh database; returns (alias, status, message, ratio) rows.
  report::Table tune_points(std::int64_t m, std::int64_t n, std::int64_t k) {
    auto db = (dir_ / fmt::format("{}x{}x{}.db", m, n, k)).string();
    auto r =
        run_command(fmt::format("cd {} && {} configs/sm86.json --only wmma_naive,wmma_shared,wmma_cp_async "
                                "--M {} --N {} --K {} --no-screen --db {}",
                                MPGEMM_SOURCE_DIR, bin("mpgemm-tune"), m, n, k, db));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    Store s = Store::open(db, Store::Mode::read_only);
    EXPECT_EQ(s.query_sql("SELECT * FROM cublas_timings WHERE median_ms > 0").rows.size(), 1u);
    // Throttling shows in the SM clock (NVML), stored with cuBLAS's timing and every timed measurement.
    EXPECT_EQ(s.query_sql("SELECT * FROM cublas_timings WHERE sm_clock_mhz > 0").rows.size(), 1u);
    EXPECT_EQ(s.query_sql("SELECT * FROM measurements WHERE status = 'ok' AND NOT sm_clock_mhz > 0").rows.size(), 0u);
    // cuBLASLt, the second reference: one row per shape, recorded whether or not it could be timed.
    EXPECT_EQ(s.query_sql("SELECT * FROM cublaslt_timings").rows.size(), 1u);
    return s.query_sql(
        "SELECT c.alias, m.status, m.message, m.ratio_to_cublas, m.max_abs_err, m.bad_count, "
        "m.ratio_to_cublaslt "
        "FROM measurements m "
        "JOIN configs c ON c.id = m.config_id WHERE c.alias IS NOT NULL ORDER BY c.id");
  }
  std::filesystem::path dir_;
};

std::string text(const report::Cell& c) {
  auto* s = std::get_if<std::string>(&c);
  return s ? *s : "";
}

}  // namespace

TEST_F(TunePoints, AllVerifyAt2048Cubed) {
  auto t = tune_points(2048, 2048, 2048);
  ASSERT_EQ(t.rows.size(), 3u);
  for (const auto& r : t.rows) {
    EXPECT_EQ(text(r[1]), "ok") << text(r[0]) << ": " << text(r[2]);
    ASSERT_TRUE(std::holds_alternative<double>(r[3])) << text(r[0]) << " has no ratio to cuBLAS";
    EXPECT_GT(std::get<double>(r[3]), 0.0);
    EXPECT_EQ(std::get<std::int64_t>(r[5]), 0);
    ASSERT_TRUE(std::holds_alternative<double>(r[6])) << text(r[0]) << " has no ratio to cuBLASLt";
    EXPECT_GT(std::get<double>(r[6]), 0.0);
  }
}

TEST_F(TunePoints, CublasLtIsTimedVerifiedAndCanBeSkipped) {
  tune_points(2048, 2048, 2048);
  Store s = Store::open((dir_ / "2048x2048x2048.db").string(), Store::Mode::read_only);
  const auto lt = s.query_sql(
      "SELECT median_ms, heuristics_returned, heuristics_valid, algo, max_abs_err, message FROM "
      "cublaslt_timings");
  ASSERT_EQ(lt.rows.size(), 1u);
  const auto& r = lt.rows[0];
  ASSERT_TRUE(std::holds_alternative<double>(r[0])) << "no cuBLASLt timing: " << text(r[5]);
  EXPECT_GT(std::get<double>(r[0]), 0.0);
  EXPECT_GE(std::get<std::int64_t>(r[1]), 1);
  EXPECT_LE(std::get<std::int64_t>(r[1]), 8);
  EXPECT_GE(std::get<std::int64_t>(r[2]), 1);
  EXPECT_NE(text(r[3]).find("algo "), std::string::npos);
  EXPECT_LE(std::get<double>(r[4]), 0.5);

  // --no-cublaslt: no row, no ratio, and the candidates are measured as before.
  const auto db = (dir_ / "skipped.db").string();
  auto run =
      run_command(fmt::format("cd {} && {} configs/sm86.json --only wmma_cp_async_bm128_bn64_bk32_s2_w32x32_p8x8 "
                              "--M 1024 --N 1024 --K 1024 --no-cublaslt --db {}",
                              MPGEMM_SOURCE_DIR, bin("mpgemm-tune"), db));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  Store skipped = Store::open(db, Store::Mode::read_only);
  EXPECT_EQ(skipped.query_sql("SELECT * FROM cublaslt_timings").rows.size(), 0u);
  EXPECT_EQ(
      skipped.query_sql("SELECT * FROM measurements WHERE status = 'ok' AND ratio_to_cublaslt IS NULL").rows.size(),
      1u);
}

TEST_F(TunePoints, SharedMemoryPointsHandleRaggedShapesAndNaiveIsRejectedWithAReason) {
  for (auto [m, n, k] : {std::tuple{1000, 1000, 1000}, std::tuple{777, 1234, 520}}) {
    auto t = tune_points(m, n, k);
    ASSERT_EQ(t.rows.size(), 3u);
    for (const auto& r : t.rows) {
      if (text(r[0]) == "wmma_naive") {
        EXPECT_EQ(text(r[1]), "constraint_rejected");
        EXPECT_NE(text(r[2]).find("multiple of 16"), std::string::npos) << text(r[2]);
      } else {
        EXPECT_EQ(text(r[1]), "ok") << text(r[0]) << " at " << m << "x" << n << "x" << k << ": " << text(r[2]);
      }
    }
  }
}
