// mpgemm-query --problem and mpgemm-run --problem on a host without a GPU: a database holding two problem kinds at
// one shape (each tuned by the fake worker of tests/unit/worker_client_test.cpp with a config of its own), read one
// kind at a time, and each kind's winner run as that kind.
#include <gtest/gtest.h>

#include <algorithm>

#include <fmt/format.h>

#include "reliability/replay_fixture.hpp"

namespace mpgemm {
namespace {

namespace fs = std::filesystem;
using testing::bin;
using testing::run_command;
using testing::sql_text;

constexpr const char* kLinear = "mk_nk_bf16_bf16";

class CliProblemKind : public ::testing::Test {
 protected:
  // The default kind tuned with suite_square_coop, the linear layer's kind with suite_square_pingpong, both at
  // 256x256x256: each kind's winner is a config the other kind never measured.
  static void SetUpTestSuite() {
    dir_ = new fs::path(testing::fresh_dir("cli_problem_kind"));
    for (const auto& [point, problem] :
         {std::pair{"suite_square_coop", ""}, std::pair{"suite_square_pingpong", kLinear}}) {
      const auto r = run_command(fmt::format(
          "cd {} && MPGEMM_TEST_FAKE_WORKER=ok {} configs/sm90a_suite.json --db {} --only ={} --M 256 --N 256 "
          "--K 256 --rerank 0 --worker {} {}",
          MPGEMM_SOURCE_DIR, bin("mpgemm-tune"), db().string(), point, bin("worker_client_test"),
          *problem ? fmt::format("--problem {}", problem) : std::string()));
      ASSERT_EQ(r.exit_code, 0) << r.output;
    }
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }
  static fs::path db() { return *dir_ / "kinds.db"; }
  static std::string name_of(const std::string& point) {
    return sql_text(db(), fmt::format("SELECT name FROM configs WHERE alias = '{}'", point));
  }
  testing::CommandResult query(const std::string& extra) {
    return run_command(fmt::format("{} {} {}", bin("mpgemm-query"), db().string(), extra));
  }
  testing::CommandResult run(const std::string& extra, const std::string& log = "/dev/null") {
    return run_command(
        fmt::format("cd {} && MPGEMM_TEST_FAKE_WORKER=ok MPGEMM_TEST_FAKE_LOG={} {} --db {} --M 256 --N 256 --K 256 "
                    "--worker {} {}",
                    MPGEMM_SOURCE_DIR, log, bin("mpgemm-run"), db().string(), bin("worker_client_test"), extra));
  }
  static fs::path* dir_;
};

fs::path* CliProblemKind::dir_ = nullptr;

TEST_F(CliProblemKind, QueryListsEveryKindAndProblemKeepsOne) {
  const std::string coop = name_of("suite_square_coop");
  const std::string pingpong = name_of("suite_square_pingpong");
  ASSERT_FALSE(coop.empty());
  ASSERT_FALSE(pingpong.empty());
  const auto every = query("best --format csv");
  ASSERT_EQ(every.exit_code, 0) << every.output;
  EXPECT_NE(every.output.find(coop), std::string::npos) << every.output;
  EXPECT_NE(every.output.find(pingpong), std::string::npos) << every.output;
  EXPECT_NE(every.output.find(",mk_kn_fp16_fp32"), std::string::npos) << every.output;
  EXPECT_NE(every.output.find(std::string(",") + kLinear), std::string::npos) << every.output;

  for (const char* view : {"best", "best_per_shape", "fastest", "measurements", "references"}) {
    const auto linear = query(fmt::format("{} --problem {} --format csv", view, kLinear));
    ASSERT_EQ(linear.exit_code, 0) << view << ": " << linear.output;
    EXPECT_EQ(linear.output.find("mk_kn_fp16_fp32"), std::string::npos) << view << ": " << linear.output;
    EXPECT_NE(linear.output.find(kLinear), std::string::npos) << view << ": " << linear.output;
  }
  const auto best = query(fmt::format("best --problem {} --format csv", kLinear));
  EXPECT_NE(best.output.find(pingpong), std::string::npos) << best.output;
  EXPECT_EQ(best.output.find(coop), std::string::npos) << best.output;
  const auto plain = query("best --problem mk_kn_fp16_fp32 --format csv");
  EXPECT_NE(plain.output.find(coop), std::string::npos) << plain.output;
  EXPECT_EQ(plain.output.find(pingpong), std::string::npos) << plain.output;

  // A kind measured nowhere: an empty table, and why on stderr.
  const auto none = query("best --problem km_kn_bf16_bf16");
  EXPECT_EQ(none.exit_code, 0) << none.output;
  EXPECT_NE(none.output.find("has no verified measurement of km_kn_bf16_bf16 yet"), std::string::npos) << none.output;
}

TEST_F(CliProblemKind, QueryRefusesProblemWhereItFiltersNothing) {
  const auto configs = query(fmt::format("configs --problem {}", kLinear));
  EXPECT_EQ(configs.exit_code, 2) << configs.output;
  EXPECT_NE(configs.output.find("the configs view's rows are of no problem kind"), std::string::npos) << configs.output;
  const auto sql = query(fmt::format("--sql 'SELECT 1' --problem {}", kLinear));
  EXPECT_EQ(sql.exit_code, 2) << sql.output;
  EXPECT_NE(sql.output.find("--problem chooses the rows of a view, not of --sql"), std::string::npos) << sql.output;
  const auto bad = query("best --problem mk_kn_fp8_fp32");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("'mk_kn_fp8_fp32' is not a problem kind"), std::string::npos) << bad.output;
}

// --problem-kinds: every kind's name, once, the default first (what mpgemm-report reads instead of rebuilding the
// names); with --problem it is refused as filtering nothing.
TEST_F(CliProblemKind, QueryListsEveryProblemKind) {
  const auto r = run_command(bin("mpgemm-query") + " --problem-kinds");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.rfind("mk_kn_fp16_fp32\n", 0), 0u) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 48) << r.output;
  for (const char* kind : {"mk_nk_bf16_bf16\n", "km_kn_bf16_bf16_beta\n", "km_nk_fp16_fp16_beta\n"})
    EXPECT_NE(r.output.find(kind), std::string::npos) << kind << r.output;
  const auto with = run_command(bin("mpgemm-query") + " --problem-kinds --problem mk_nk_bf16_bf16");
  EXPECT_EQ(with.exit_code, 2) << with.output;
}

// --config best --problem KIND runs that kind's winner, the worker told to prepare that kind; without --problem the
// default kind's.
TEST_F(CliProblemKind, RunTakesTheWinnerOfItsKind) {
  const fs::path log = *dir_ / "run.log";
  const auto linear =
      run(fmt::format("--config best --space configs/sm90a_suite.json --problem {}", kLinear), log.string());
  ASSERT_EQ(linear.exit_code, 0) << linear.output;
  const std::size_t best = linear.output.find("best tuned");
  ASSERT_NE(best, std::string::npos) << linear.output;
  EXPECT_EQ(linear.output.substr(best, linear.output.find('\n', best) - best).find(name_of("suite_square_pingpong")) !=
                std::string::npos,
            true)
      << linear.output;
  EXPECT_NE(linear.output.find(std::string("256x256x256 ") + kLinear), std::string::npos) << linear.output;
  EXPECT_NE(testing::file_text(log).find(std::string("problem ") + kLinear), std::string::npos)
      << testing::file_text(log);

  const auto plain = run("--config best --space configs/sm90a_suite.json");
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  const std::size_t plain_best = plain.output.find("best tuned");
  ASSERT_NE(plain_best, std::string::npos) << plain.output;
  EXPECT_NE(plain.output.substr(plain_best, plain.output.find('\n', plain_best) - plain_best)
                .find(name_of("suite_square_coop")),
            std::string::npos)
      << plain.output;
}

// A space whose family cannot compute the kind gives no named-point rows to "best" (only the winner), and naming
// one of its points is refused saying why.
TEST_F(CliProblemKind, RunLeavesOutPointsThatCannotComputeTheKind) {
  const auto best = run(fmt::format("--config best --space configs/sm86.json --problem {}", kLinear));
  ASSERT_EQ(best.exit_code, 0) << best.output;
  EXPECT_EQ(best.output.find("wmma_naive"), std::string::npos) << best.output;
  EXPECT_NE(best.output.find("best tuned"), std::string::npos) << best.output;
  const auto point = run(fmt::format("--config wmma_naive --space configs/sm86.json --problem {}", kLinear));
  EXPECT_EQ(point.exit_code, 2) << point.output;
  EXPECT_NE(point.output.find("--config wmma_naive --problem mk_nk_bf16_bf16: the wmma family computes"),
            std::string::npos)
      << point.output;
  const auto gap = run("--config best --space configs/sm90a_suite.json --problem mk_nk_bf16_fp16");
  EXPECT_EQ(gap.exit_code, 2) << gap.output;
  EXPECT_NE(gap.output.find("--problem mk_nk_bf16_fp16: cuBLAS and cuBLASLt do not compute"), std::string::npos)
      << gap.output;
}

}  // namespace
}  // namespace mpgemm
