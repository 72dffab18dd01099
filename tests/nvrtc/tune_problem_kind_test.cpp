// mpgemm-tune --problem end to end on a host without a GPU (issue 58): the kind is refused by name where the family
// or the vendor's reference cannot compute it, and otherwise reaches the kernels NVRTC builds, the worker (the fake of
// tests/unit/worker_client_test.cpp logs what prepare_shape asked for), the result keys and the database, apart
// from the default kind's results at the same shape.
#include <gtest/gtest.h>

#include <fstream>

#include <fmt/format.h>

#include "reliability/replay_fixture.hpp"

namespace mpgemm {
namespace {

namespace fs = std::filesystem;
using testing::bin;
using testing::run_command;
using testing::sql_int;
using testing::sql_text;

class TuneProblemKind : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::fresh_dir(std::string("tune_problem_kind_") +
                              ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override { fs::remove_all(dir_); }

  testing::CommandResult tune(const std::string& space, const std::string& extra, const std::string& env = "") {
    return run_command(fmt::format("cd {} && {} {} {} --db {} {}", MPGEMM_SOURCE_DIR, env, bin("mpgemm-tune"), space,
                                   db().string(), extra));
  }
  // One Hopper config at one small shape, measured by the fake worker (an sm_90 GPU that answers everything).
  testing::CommandResult fake_gpu_tune(const std::string& extra) {
    return tune("configs/sm90a_suite.json",
                fmt::format("--only =suite_square_coop --M 256 --N 256 --K 256 --rerank 2 --worker {} {}",
                            bin("worker_client_test"), extra),
                fmt::format("MPGEMM_TEST_FAKE_WORKER=ok MPGEMM_TEST_FAKE_LOG={}", (dir_ / "fake.log").string()));
  }
  // The same config over a shape file (`json`), measured by the fake worker.
  testing::CommandResult fake_gpu_tune_file(const std::string& json, const std::string& extra = "") {
    std::ofstream(dir_ / "shapes.json") << json;
    return tune("configs/sm90a_suite.json",
                fmt::format("--only =suite_square_coop --shapes {} --rerank 2 --worker {} {}",
                            (dir_ / "shapes.json").string(), bin("worker_client_test"), extra),
                "MPGEMM_TEST_FAKE_WORKER=ok");
  }
  fs::path db() const { return dir_ / "t.db"; }
  fs::path dir_;
};

TEST_F(TuneProblemKind, AKindTheFamilyCannotComputeIsAUsageErrorBeforeAnythingIsWritten) {
  const auto r = tune("configs/sm86.json", "--problem mk_nk_bf16_bf16 --compile-only --arch sm_86");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--problem mk_nk_bf16_bf16: the wmma family computes mk_kn_fp16_fp32 only"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(db()));
}

// A space's "problems" says which kinds it is meant for: a run of another kind is refused, naming the listed ones,
// before anything is written; a listed kind runs.
TEST_F(TuneProblemKind, AKindTheSpaceDoesNotListIsAUsageErrorBeforeAnythingIsWritten) {
  std::ifstream in(fs::path(MPGEMM_SOURCE_DIR) / "configs/sm90a_suite.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string any = "\"problems\": \"any\"";
  ASSERT_NE(text.find(any), std::string::npos);
  text.replace(text.find(any), any.size(), "\"problems\": [\"mk_nk_bf16_bf16\", \"mk_nk_bf16_bf16_beta\"]");
  const fs::path space = dir_ / "linear.json";
  std::ofstream(space) << text;
  const auto r = tune(space.string(),
                      "--only =suite_square_coop --M 256 --N 256 --K 256 --problem mk_kn_bf16_bf16 --compile-only");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(
      r.output.find("--problem mk_kn_bf16_bf16: " + space.string() +
                    " is meant for mk_nk_bf16_bf16, mk_nk_bf16_bf16_beta (its \"problems\"), not mk_kn_bf16_bf16"),
      std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(db()));
  const auto ok =
      tune(space.string(), "--only =suite_square_coop --M 256 --N 256 --K 256 --problem mk_nk_bf16_bf16 --dry-run");
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
}

TEST_F(TuneProblemKind, WhatIsNotAKindNamesTheForm) {
  const auto r = tune("configs/sm90a_suite.json", "--problem mk_kn_fp8_fp32 --compile-only");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("'mk_kn_fp8_fp32' is not a problem kind: the input type 'fp8'"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("e.g. mk_nk_bf16_bf16"), std::string::npos) << r.output;
}

TEST_F(TuneProblemKind, AKindWithoutAVendorReferenceIsNotMeasured) {
  const auto r = fake_gpu_tune("--problem mk_nk_bf16_fp16");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("do not compute bf16 operands into fp16 outputs"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(db()));
}

// The same config at the same shape, measured for the default kind and for a linear layer's: two compilations (the
// kind is in the kernel's template arguments), two measurements with different result keys, each recorded with its
// kind, and the worker told which kind to prepare. The config row is one: a point of the space whatever it computes.
TEST_F(TuneProblemKind, AKindIsBuiltMeasuredAndRecordedApartFromTheDefault) {
  const auto plain = fake_gpu_tune("");
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  const auto linear = fake_gpu_tune("--problem mk_nk_bf16_bf16");
  ASSERT_EQ(linear.exit_code, 0) << linear.output;
  EXPECT_NE(linear.output.find("measured now 1,"), std::string::npos) << linear.output;
  EXPECT_NE(linear.output.find("(gpu, sm_90, problem mk_nk_bf16_bf16): 1 candidates"), std::string::npos)
      << linear.output;
  // The closing table is the kind's: one row at the shape, not the default kind's beside it.
  const std::size_t table = linear.output.find("Fastest verified configs of mk_nk_bf16_bf16");
  ASSERT_NE(table, std::string::npos) << linear.output;
  EXPECT_EQ(linear.output.find("256x256x256     2", table), std::string::npos) << linear.output;

  const std::string log = testing::file_text(dir_ / "fake.log");
  EXPECT_NE(log.find("shape 256x256x256 seed"), std::string::npos) << log;
  EXPECT_NE(log.find("problem mk_nk_bf16_bf16"), std::string::npos) << log;

  EXPECT_EQ(sql_int(db(), "SELECT count(*) FROM configs"), 1);
  EXPECT_EQ(sql_int(db(), "SELECT count(DISTINCT compile_key) FROM compilations WHERE status = 'ok'"), 2);
  EXPECT_EQ(sql_int(db(), "SELECT count(DISTINCT result_key) FROM measurements"), 2);
  EXPECT_EQ(sql_text(db(), "SELECT group_concat(problem, ' ') FROM (SELECT problem FROM measurements ORDER BY id)"),
            "mk_kn_fp16_fp32 mk_nk_bf16_bf16");
  EXPECT_EQ(sql_int(db(), "SELECT count(DISTINCT problem) FROM cublas_timings"), 2);
  EXPECT_EQ(sql_int(db(), "SELECT count(DISTINCT problem) FROM reranks"), 2);

  // Run again: both kinds' results are found, nothing is measured twice.
  const auto again = fake_gpu_tune("--problem mk_nk_bf16_bf16");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("measured now 0, already in the database 1"), std::string::npos) << again.output;
}

// A config the family cannot build for the run's kind (swap-AB with A stored K x M) among others that it can, as
// --leaders-from brings them: recorded constraint_rejected with the reason at each shape, never compiled for the
// kind, while the run goes on and measures the others (it stopped the whole run before).
TEST_F(TuneProblemKind, AConfigThatCannotComputeTheKindIsRejectedAndTheRunGoesOn) {
  const std::string swapped = "wgmma_bm16_bn64_bk256_s5_c1_coop_cl1x1_m8_direct_pers_swab_l2p128_pdl";
  const auto r = tune("configs/sm90a_suite.json",
                      fmt::format("--only =suite_square_coop,={} --M 256 --N 256 --K 256 --rerank 0 --worker {} "
                                  "--problem km_kn_bf16_bf16",
                                  swapped, bin("worker_client_test")),
                      "MPGEMM_TEST_FAKE_WORKER=ok");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("not for this kind: 1 config(s), not compiled (SWAP_AB=1 with km_kn_bf16_bf16"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(sql_text(db(),
                     "SELECT group_concat(m.status, ' ') FROM (SELECT status FROM measurements m JOIN configs c "
                     "ON c.id = m.config_id WHERE c.name = '" +
                         swapped + "') m"),
            "constraint_rejected");
  EXPECT_NE(
      sql_text(db(), "SELECT m.message FROM measurements m JOIN configs c ON c.id = m.config_id WHERE c.name = '" +
                         swapped + "'")
          .find("A stored K x M"),
      std::string::npos);
  EXPECT_EQ(sql_text(db(),
                     "SELECT m.status FROM measurements m JOIN configs c ON c.id = m.config_id "
                     "WHERE c.name LIKE '%bm128_bn256%'"),
            "ok");
  EXPECT_EQ(sql_int(db(), "SELECT count(*) FROM compilations c JOIN configs g ON g.id = c.config_id WHERE g.name = '" +
                              swapped + "'"),
            0);
}

// A shape file naming kinds per shape (and a file default) is one run per kind, in the order the file first names
// them: each shape measured and recorded as its kind, the default kind's result key as a run of that kind alone
// gives it.
TEST_F(TuneProblemKind, AShapeFileOfSeveralKindsTunesEachShapeAsItsKind) {
  const auto r = fake_gpu_tune_file(R"({"problem": "mk_nk_bf16_bf16", "shapes": [
      {"M": 256, "N": 256, "K": 256}, {"M": 128, "N": 256, "K": 256, "problem": "mk_kn_fp16_fp32"},
      {"M": 256, "N": 256, "K": 256, "problem": "mk_kn_fp16_fp32"}, {"M": 128, "N": 128, "K": 256}]})");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::size_t first = r.output.find("problem kind mk_nk_bf16_bf16 (1 of 2): 2 shape(s)");
  const std::size_t second = r.output.find("problem kind mk_kn_fp16_fp32 (2 of 2): 2 shape(s)");
  ASSERT_NE(first, std::string::npos) << r.output;
  ASSERT_NE(second, std::string::npos) << r.output;
  EXPECT_LT(first, second) << r.output;
  EXPECT_EQ(sql_text(db(),
                     "SELECT group_concat(p, ' ') FROM (SELECT problem || ':' || m || 'x' || n || 'x' || k AS p "
                     "FROM measurements ORDER BY p)"),
            "mk_kn_fp16_fp32:128x256x256 mk_kn_fp16_fp32:256x256x256 mk_nk_bf16_bf16:128x128x256 "
            "mk_nk_bf16_bf16:256x256x256");
  EXPECT_EQ(sql_int(db(), "SELECT count(*) FROM runs"), 2);

  // The default kind's results are those a run of that kind alone records: tuned again, nothing new is measured.
  const auto alone = tune("configs/sm90a_suite.json",
                          fmt::format("--only =suite_square_coop --shapes 256x256x256,128x256x256 --rerank 2 "
                                      "--worker {}",
                                      bin("worker_client_test")),
                          "MPGEMM_TEST_FAKE_WORKER=ok");
  ASSERT_EQ(alone.exit_code, 0) << alone.output;
  EXPECT_NE(alone.output.find("measured now 0, already in the database 2"), std::string::npos) << alone.output;
}

// --problem is the kind of the entries that name none; an entry's own kind wins.
TEST_F(TuneProblemKind, ProblemIsTheKindOfTheShapesThatNameNone) {
  const auto r = fake_gpu_tune_file(
      R"([{"M": 256, "N": 256, "K": 256}, {"M": 128, "N": 256, "K": 256, "problem": "mk_kn_fp16_fp32"}])",
      "--problem km_kn_bf16_bf16 --dry-run");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("problem kind km_kn_bf16_bf16 (1 of 2): 1 shape(s)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("problem kind mk_kn_fp16_fp32 (2 of 2): 1 shape(s)"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(db()));
}

// Every kind is checked before the first is run: a kind without a vendor reference, listed last, stops the run
// before anything is written.
TEST_F(TuneProblemKind, AKindThatCannotBeMeasuredStopsTheFileBeforeAnythingIsWritten) {
  const auto r = fake_gpu_tune_file(
      R"([{"M": 256, "N": 256, "K": 256}, {"M": 256, "N": 256, "K": 256, "problem": "mk_nk_bf16_fp16"}])");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--problem mk_nk_bf16_fp16: "), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(db()));
}

// --leaders-from takes the leaders of the run's kind: a database whose leaders are of the default kind only is
// refused for another kind, saying so, unless --leaders-kind names the default; once it holds the kind's own leaders
// those are taken, not the default kind's. The run's first line names the kind whose leaders it took.
TEST_F(TuneProblemKind, LeadersFromAnotherDatabaseAreOfTheRunsKind) {
  const fs::path leaders = dir_ / "leaders.db";
  const auto lead = [&](const std::string& point, const std::string& problem) {
    return tune("configs/sm90a_suite.json",
                fmt::format("--only ={} --M 256 --N 256 --K 256 --rerank 0 --worker {} {}", point,
                            bin("worker_client_test"), problem.empty() ? "" : "--problem " + problem),
                "MPGEMM_TEST_FAKE_WORKER=ok")
        .exit_code;
  };
  // tune() writes db(): move each leaders run there into leaders.db's place.
  ASSERT_EQ(lead("suite_square_coop", ""), 0);
  fs::rename(db(), leaders);
  const auto linear_from = [&](const std::string& extra) {
    return tune("configs/sm90a_suite.json", fmt::format("--problem mk_nk_bf16_bf16 --M 256 --N 256 --K 256 "
                                                        "--leaders-from {} --dry-run {}",
                                                        leaders.string(), extra));
  };
  auto r = linear_from("");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no config of family wgmma was measured there for mk_nk_bf16_bf16; 1 led there for "
                          "mk_kn_fp16_fp32 (--leaders-kind mk_kn_fp16_fp32 takes them)"),
            std::string::npos)
      << r.output;
  r = linear_from("--leaders-kind mk_kn_fp16_fp32 --only =suite_square_coop");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("1 led at 1 shape(s) of kind mk_kn_fp16_fp32 of"), std::string::npos) << r.output;

  // The linear kind's own leader (another config) joins the database: it is the one taken.
  fs::rename(leaders, db());
  ASSERT_EQ(lead("suite_square_pingpong", "mk_nk_bf16_bf16"), 0);
  fs::rename(db(), leaders);
  r = linear_from("--only =suite_square_pingpong");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("1 led at 1 shape(s) of kind mk_nk_bf16_bf16 of"), std::string::npos) << r.output;
  r = linear_from("--only =suite_square_coop");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("none of the 1 configs that led there"), std::string::npos) << r.output;
  // The default kind's run still takes the default kind's leaders, its first line as before.
  r = tune(
      "configs/sm90a_suite.json",
      fmt::format("--M 256 --N 256 --K 256 --leaders-from {} --dry-run --only =suite_square_coop", leaders.string()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("1 led at 1 shape(s) of " + leaders.string()), std::string::npos) << r.output;
  r = tune("configs/sm90a_suite.json", "--leaders-kind mk_kn_fp16_fp32 --dry-run");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--leaders-kind need --leaders-from"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace mpgemm
