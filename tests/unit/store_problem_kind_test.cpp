// The problem kind in the database (schema version 14, issue 58): every row keyed by a shape carries the kind it is
// of, rows written before it are the default kind with their result keys unchanged, a kind round-trips through every
// record, the views and the store's lookups keep kinds apart (two kinds at one shape are two winners, never one), the
// merge carries each row's kind, and a problem that names no kind is refused with a message.
#include <sqlite3.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "store/merge.hpp"
#include "store/shape_winners.hpp"
#include "store/store.hpp"
#include "support/export_fixture.hpp"
#include "support/old_database.hpp"
#include "support/store_fixture.hpp"

namespace mpgemm {
namespace {

namespace fs = std::filesystem;

const ProblemKind kLinear = *ProblemKind::parse("mk_nk_bf16_bf16");
const std::string kDefaultName = "mk_kn_fp16_fp32";

// The one text value of a one-row, one-column query, read with plain SQLite (the file as it is).
std::string raw_text(const fs::path& db, const std::string& sql) {
  sqlite3* c = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db.c_str(), &c, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* q = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(c, sql.c_str(), -1, &q, nullptr), SQLITE_OK) << sqlite3_errmsg(c) << "\n" << sql;
  std::string out;
  if (q && sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
    out = reinterpret_cast<const char*>(sqlite3_column_text(q, 0));
  sqlite3_finalize(q);
  sqlite3_close(c);
  return out;
}

std::string text(const report::Cell& c) {
  const auto* s = std::get_if<std::string>(&c);
  return s ? *s : std::string("<not text>");
}

int column(const report::Table& t, const std::string& name) {
  for (std::size_t i = 0; i < t.columns.size(); ++i)
    if (t.columns[i] == name) return static_cast<int>(i);
  ADD_FAILURE() << "no column " << name;
  return 0;
}

// The fixture's database (tests/support/export_fixture.hpp: default-kind winners on two devices), plus the same
// wgmma configs measured at 4096^3 as kLinear on the H200, where the default kind's slower config is the faster.
class ProblemKinds : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::per_test_dir();
    fs::create_directories(dir_);
    db_ = dir_ / "kinds.db";
    testing::write_export_db(db_);
    Store s = Store::open(db_, Store::Mode::read_write);
    const auto run = testing::add_run(s, testing::kH200, "sm_90", 132);
    add_linear(s, run, testing::add_config(s, "wgmma", testing::wgmma_winner_params()), 0.150, "l1");
    add_linear(s, run, testing::add_config(s, "wgmma", testing::wgmma_other_params()), 0.140, "l2");
    s.end_run(run, "finished");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // An 'ok' measurement of kLinear at 4096^3 with its cuBLAS and cuBLASLt references of the same kind.
  static void add_linear(Store& s, std::int64_t run, std::int64_t config, double ms, const std::string& key) {
    MeasurementRecord m;
    m.run_id = run;
    m.config_id = config;
    m.result_key = key;
    m.device_name = testing::kH200;
    m.device_cc = "sm_90";
    m.arch = *Arch::parse("sm_90a");
    m.shape = testing::kBig;
    m.kind = kLinear;
    m.measurement.status = Status::ok;
    m.measurement.timing = TimingStats{ms, ms, ms, 3, 5, 20};
    CublasRecord c{testing::kH200, "sm_90", testing::kBig, TimingStats{0.16, 0.16, 0.16, 3, 5, 20}, 0, std::nullopt};
    c.kind = kLinear;
    m.cublas_id = s.record_cublas(run, c);
    m.ratio_to_cublas = 0.16 / ms;
    CublasLtRecord lt{testing::kH200, "sm_90", testing::kBig, {}, std::nullopt, kLinear};
    lt.reference.heuristics_returned = 8;
    lt.reference.heuristics_valid = 8;
    lt.reference.timing = TimingStats{0.155, 0.155, 0.155, 3, 5, 20};
    lt.reference.algo = CublasLtAlgo{};
    m.cublaslt_id = s.record_cublaslt(run, lt);
    m.ratio_to_cublaslt = 0.155 / ms;
    s.record_measurement(m);
  }

  fs::path dir_;
  fs::path db_;
};

TEST_F(ProblemKinds, EveryRecordRoundTripsItsKind) {
  Store s = Store::open(db_, Store::Mode::read_only);
  const auto m = s.find_measurement("l1");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->kind, kLinear);
  EXPECT_EQ(m->shape, testing::kBig);
  ASSERT_TRUE(m->cublas_id && m->cublaslt_id);
  EXPECT_EQ(s.find_cublas(*m->cublas_id)->kind, kLinear);
  EXPECT_EQ(s.find_cublaslt(*m->cublaslt_id)->kind, kLinear);
  EXPECT_TRUE(s.find_measurement("w1")->kind.is_default());
  EXPECT_EQ(raw_text(db_, "SELECT problem FROM measurements WHERE result_key = 'l1'"), "mk_nk_bf16_bf16");
  EXPECT_EQ(raw_text(db_, "SELECT problem FROM measurements WHERE result_key = 'w1'"), kDefaultName);
}

TEST_F(ProblemKinds, LookupsByShapeFindOnlyTheirKind) {
  Store s = Store::open(db_, Store::Mode::read_only);
  const GemmProblem linear{testing::kBig, kLinear};
  ASSERT_TRUE(s.find_latest_cublas(testing::kH200, linear));
  EXPECT_DOUBLE_EQ(s.find_latest_cublas(testing::kH200, linear)->timing.median_ms, 0.16);
  EXPECT_DOUBLE_EQ(s.find_latest_cublas(testing::kH200, testing::kBig)->timing.median_ms, 0.190);  // the default
  EXPECT_DOUBLE_EQ(s.find_latest_cublaslt(testing::kH200, linear)->reference.timing->median_ms, 0.155);
  EXPECT_DOUBLE_EQ(s.find_latest_cublaslt(testing::kH200, testing::kBig)->reference.timing->median_ms, 0.180);
  EXPECT_FALSE(s.find_latest_cublas(testing::kH200, GemmProblem{testing::kMid, kLinear}));

  const std::string other = family("wgmma").config_name(testing::wgmma_other_params());
  EXPECT_EQ(s.find_measurement_by_config(other, "sm_90a", linear)->result_key, "l2");
  EXPECT_EQ(s.find_measurement_by_config(other, "sm_90a", testing::kBig)->result_key, "w2");

  const auto ranked = s.ranked_configs(testing::kH200, linear, 5);
  ASSERT_EQ(ranked.size(), 2u);
  EXPECT_DOUBLE_EQ(ranked[0].median_ms, 0.140);
  EXPECT_DOUBLE_EQ(s.ranked_configs(testing::kH200, testing::kBig, 5)[0].median_ms, 0.198);

  EXPECT_TRUE(s.find_latest_rerank(testing::kH200, testing::kBig));  // the fixture's, of the default kind
  EXPECT_FALSE(s.find_latest_rerank(testing::kH200, linear));

  const auto problems = s.cublas_problems(testing::kH200);
  ASSERT_EQ(problems.size(), 3u);  // 2048^3 and 4096^3 of the default kind, 4096^3 of kLinear
  EXPECT_EQ(problems[2], linear);
}

TEST_F(ProblemKinds, AReRankRoundTripsItsKindAndCrownsOnlyItsKind) {
  {
    Store s = Store::open(db_, Store::Mode::read_write);
    RerankRecord r;
    r.run_id = s.begin_run(RunInfo{});
    r.device_name = testing::kH200;
    r.device_cc = "sm_90";
    r.shape = testing::kBig;
    r.kind = kLinear;
    r.rounds = 4;
    r.iters = 20;
    r.rule = "test_rule";
    const std::string name = family("wgmma").config_name(testing::wgmma_other_params());
    const auto id = s.find_measurement_by_config(name, "sm_90a", GemmProblem{testing::kBig, kLinear})->config_id;
    r.winner_config_id = id;
    r.cublas_median_ms = 0.16;
    RerankEntryRecord e;
    e.config_id = id;
    e.arch = *Arch::parse("sm_90a");
    e.prior_median_ms = 0.14;
    e.timing = TimingStats{0.141, 0.141, 0.141, 0, 4, 20};
    e.ratio_to_cublas = 0.16 / 0.141;
    e.place = 1;
    r.entries = {e};
    s.record_rerank(r);
    EXPECT_EQ(s.find_latest_rerank(testing::kH200, GemmProblem{testing::kBig, kLinear})->kind, kLinear);
    EXPECT_TRUE(s.find_latest_rerank(testing::kH200, testing::kBig)->kind.is_default());
  }
  EXPECT_EQ(raw_text(db_, "SELECT count(*) FROM winners WHERE M = 4096"), "2");
  EXPECT_EQ(raw_text(db_, "SELECT group_concat(problem, ',') FROM (SELECT problem FROM winners ORDER BY problem)"),
            "mk_kn_fp16_fp32,mk_nk_bf16_bf16");
  Store s = Store::open(db_, Store::Mode::read_only);
  const auto winners = s.query_named("winners", kLinear);
  ASSERT_EQ(winners.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(std::get<double>(winners.rows[0][column(winners, "median_ms")]), 0.141);
}

// Two kinds at one shape are two rows of every view and every listing: a winner of one kind never stands for
// another, and the default kind's winner is the one it was before the other kind was measured.
TEST_F(ProblemKinds, TheViewsAndListingsGiveOneRowPerKind) {
  EXPECT_EQ(raw_text(db_, "SELECT count(*) FROM best_per_shape WHERE M = 4096"), "2");
  EXPECT_EQ(raw_text(db_, "SELECT count(*) FROM best WHERE M = 4096"), "2");
  EXPECT_EQ(raw_text(db_, "SELECT median_ms FROM best_per_shape WHERE M = 4096 AND problem = 'mk_nk_bf16_bf16'"),
            "0.14");
  EXPECT_EQ(raw_text(db_, "SELECT median_ms FROM best_per_shape WHERE M = 4096 AND problem = 'mk_kn_fp16_fp32'"),
            "0.198");

  Store s = Store::open(db_, Store::Mode::read_only);
  const auto best = s.query_named("best");
  ASSERT_EQ(best.rows.size(), 4u);  // the fixture's three winners, and 4096^3 of kLinear
  std::set<std::string> at_big;
  for (const auto& r : best.rows)
    if (std::get<std::int64_t>(r[0]) == 4096)
      at_big.insert(text(r[column(best, "problem")]) + " " + text(r[column(best, "chosen_by")]));
  EXPECT_EQ(at_big, (std::set<std::string>{"mk_kn_fp16_fp32 re-rank", "mk_nk_bf16_bf16 first pass"}));
  EXPECT_EQ(s.query_named("best", kLinear).rows.size(), 1u);
  EXPECT_EQ(s.query_named("best", ProblemKind{}).rows.size(), 3u);
  EXPECT_EQ(s.query_named("measurements", kLinear).rows.size(), 2u);
  EXPECT_EQ(s.query_named("references", kLinear).rows.size(), 4u);  // each measurement's cuBLAS and cuBLASLt
  EXPECT_EQ(s.query_named("best_per_shape", kLinear).rows.size(), 1u);
  EXPECT_EQ(s.query_named("fastest", kLinear).rows.size(), 1u);
  EXPECT_TRUE(Store::query_has_problem("winners"));
  EXPECT_FALSE(Store::query_has_problem("runs"));
  try {
    s.query_named("runs", kLinear);
    ADD_FAILURE() << "a query of no kind took one";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("has no problem kind"), std::string::npos) << e.what();
  }

  // The winners: the default kind's are those it had; kLinear's its own.
  const auto all = all_shape_winners(s);
  ASSERT_EQ(all.size(), 4u);
  const auto defaults = shape_winners(s);
  ASSERT_EQ(defaults.size(), 3u);
  for (const auto& w : defaults) EXPECT_TRUE(w.kind.is_default()) << w.config_name;
  const auto linear = shape_winners(s, kLinear);
  ASSERT_EQ(linear.size(), 1u);
  EXPECT_EQ(linear[0].kind, kLinear);
  EXPECT_DOUBLE_EQ(linear[0].median_ms, 0.140);
  ASSERT_TRUE(linear[0].cublaslt_ms);
  EXPECT_DOUBLE_EQ(*linear[0].cublaslt_ms, 0.155);  // its kind's cuBLASLt, not the default kind's 0.180
  EXPECT_EQ(linear[0].problem().str(), "4096x4096x4096 mk_nk_bf16_bf16");
}

TEST_F(ProblemKinds, LeadersAreOfOneKind) {
  Store s = Store::open(db_, Store::Mode::read_only);
  LeaderRule rule;
  rule.within = 0.001;
  rule.places = 0;
  const std::string winner = family("wgmma").config_name(testing::wgmma_winner_params());
  const std::string other = family("wgmma").config_name(testing::wgmma_other_params());
  const auto by_default = s.leaders("wgmma", rule);
  EXPECT_EQ(by_default.names, std::vector<std::string>{other});  // 0.198 against 0.200
  EXPECT_EQ(by_default.shapes, 1u);
  const auto linear = s.leaders("wgmma", rule, kLinear);
  EXPECT_EQ(linear.names, std::vector<std::string>{other});  // 0.140 against 0.150
  EXPECT_EQ(linear.shapes, 1u);
  rule.places = 1;  // the default kind's re-rank crowned `winner`; kLinear had none
  EXPECT_EQ(s.leaders("wgmma", rule).names, (std::vector<std::string>{other, winner}));  // by name: bn128, bn256
  EXPECT_EQ(s.leaders("wgmma", rule, kLinear).names, std::vector<std::string>{other});
  EXPECT_TRUE(s.leaders("wgmma", rule, *ProblemKind::parse("km_kn_fp16_fp32_beta")).names.empty());
}

// A database of schema 13 (the last before the kind) migrates with every row the default kind and every result key
// as it was, read-only (in memory) and read-write (in place).
TEST(ProblemKindMigration, ASchema13DatabaseIsTheDefaultKindWithItsKeys) {
  const fs::path dir = testing::per_test_dir();
  fs::create_directories(dir);
  const fs::path db = dir / "v13.db";
  testing::database_at_version(db, 13, std::string(testing::kRowsOfEveryVersion) + R"sql(
INSERT INTO cublaslt_timings (id, run_id, device_name, device_cc, M, N, K, heuristics_returned, heuristics_valid,
                              message)
  VALUES (1, 1, 'NVIDIA H200', 'sm_90', 1024, 1024, 1024, 0, 0, 'none verified');
INSERT INTO reranks (id, run_id, device_name, device_cc, M, N, K, top_k, warmup, rounds, iters, tie_band, rule,
                     winner_config_id, cublas_median_ms)
  VALUES (1, 1, 'NVIDIA H200', 'sm_90', 1024, 1024, 1024, 1, 0, 2, 10, 0.01, 'test_rule', 1, 0.01);
INSERT INTO rerank_configs (rerank_id, config_id, arch, prior_median_ms, status, samples, median_ms, min_ms, max_ms,
                            ratio_to_cublas, tied, place)
  VALUES (1, 1, 'sm_90a', 0.02, 'ok', 2, 0.02, 0.02, 0.02, 0.5, 1, 1);
)sql");
  {
    Store s = Store::open(db, Store::Mode::read_only);
    EXPECT_TRUE(s.find_measurement("r1")->kind.is_default());
    EXPECT_TRUE(s.find_cublas(1)->kind.is_default());
    EXPECT_TRUE(s.find_cublaslt(1)->kind.is_default());
    EXPECT_TRUE(s.find_latest_rerank("NVIDIA H200", Shape{1024, 1024, 1024}));
    EXPECT_EQ(text(s.query_named("winners").rows.at(0).back()), kDefaultName);
    EXPECT_EQ(text(s.query_named("best").rows.at(0).back()), kDefaultName);
  }
  EXPECT_EQ(raw_text(db, "PRAGMA user_version"), "13") << "a read-only open wrote the file";
  { Store s = Store::open(db, Store::Mode::read_write); }
  EXPECT_EQ(raw_text(db, "PRAGMA user_version"), "14");
  for (const char* table : {"measurements", "cublas_timings", "cublaslt_timings", "reranks"})
    EXPECT_EQ(raw_text(db, fmt::format("SELECT group_concat(DISTINCT problem) FROM {}", table)), kDefaultName) << table;
  EXPECT_EQ(raw_text(db, "SELECT group_concat(result_key) FROM measurements"), "r1");
  EXPECT_EQ(raw_text(db, "SELECT problem FROM winners"), kDefaultName);
  EXPECT_EQ(raw_text(db, "SELECT problem FROM best_per_shape"), kDefaultName);
  std::error_code ec;
  fs::remove_all(dir, ec);
}

// The recorded fixtures of schemas 5 and 12 read as the default kind, every row and every winner.
TEST(ProblemKindMigration, TheRecordedFixturesAreTheDefaultKind) {
  for (const char* name : {"h200_wgmma_schema5.db", "h200_rerank_three_cubes.db"}) {
    SCOPED_TRACE(name);
    const fs::path db = fs::path(MPGEMM_SOURCE_DIR) / "tests/data/db" / name;
    Store s = Store::open(db, Store::Mode::read_only);
    const auto measurements = s.query_named("measurements");
    ASSERT_FALSE(measurements.rows.empty());
    for (const auto& r : measurements.rows) EXPECT_EQ(text(r[column(measurements, "problem")]), kDefaultName);
    EXPECT_EQ(s.query_named("measurements", ProblemKind{}).rows.size(), measurements.rows.size());
    EXPECT_TRUE(s.query_named("measurements", kLinear).rows.empty());
    const auto winners = all_shape_winners(s);
    ASSERT_FALSE(winners.empty());
    EXPECT_EQ(shape_winners(s).size(), winners.size());
    for (const auto& w : winners) EXPECT_TRUE(w.kind.is_default());
  }
}

// Merging databases of two kinds at one shape keeps both: each row carries its problem, and the merged views give a
// winner per kind.
TEST_F(ProblemKinds, TheMergeKeepsKindsApart) {
  const fs::path only_default = dir_ / "default.db";
  testing::write_export_db(only_default);
  const fs::path out = dir_ / "out.db";
  merge_databases(out, {only_default, db_});
  EXPECT_EQ(raw_text(out, "SELECT count(*) FROM best_per_shape WHERE M = 4096"), "2");
  EXPECT_EQ(raw_text(out, "SELECT problem FROM measurements WHERE result_key = 'l1'"), "mk_nk_bf16_bf16");
  EXPECT_EQ(raw_text(out,
                     "SELECT t.problem FROM measurements AS m JOIN cublas_timings AS t ON t.id = m.cublas_id "
                     "WHERE m.result_key = 'l2'"),
            "mk_nk_bf16_bf16");
  EXPECT_EQ(raw_text(out,
                     "SELECT t.problem FROM measurements AS m JOIN cublaslt_timings AS t ON t.id = m.cublaslt_id "
                     "WHERE m.result_key = 'w2'"),
            kDefaultName);
  Store s = Store::open(out, Store::Mode::read_only);
  EXPECT_EQ(shape_winners(s, kLinear).size(), 1u);
  EXPECT_EQ(shape_winners(s).size(), 3u);
}

// A problem that names no kind is damage: the CHECK refuses most (other layouts, other characters); one it lets
// through ('mk_kn_fp16_fp64'), or one planted past it, is refused by every reader with a message naming the row.
TEST_F(ProblemKinds, AProblemThatNamesNoKindIsRefusedWithAMessage) {
  sqlite3* c = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &c), SQLITE_OK);
  for (const char* bad : {"zz_kn_fp16_fp32", "mk_kn_fp16_fp32;", "MK_KN_FP16_FP32", "mk_kn_fp16\nfp32", ""})
    EXPECT_EQ(
        sqlite3_exec(c, fmt::format("UPDATE measurements SET problem = '{}' WHERE result_key = 'l1'", bad).c_str(),
                     nullptr, nullptr, nullptr),
        SQLITE_CONSTRAINT)
        << bad;
  sqlite3_close(c);
  for (const char* bad : {"mk_kn_fp16_fp64", "mk_kn_fp16_fp32\n\x1b[31m"}) {
    SCOPED_TRACE(bad);
    testing::raw_exec(db_, fmt::format("PRAGMA ignore_check_constraints = ON; UPDATE measurements SET problem = '{}' "
                                       "WHERE result_key = 'l2'",
                                       bad));
    Store s = Store::open(db_, Store::Mode::read_only);
    try {
      s.find_measurement("l2");
      ADD_FAILURE() << "read";
    } catch (const StoreError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("measurement "), std::string::npos) << what;
      EXPECT_NE(what.find("its problem"), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      EXPECT_EQ(what.find('\x1b'), std::string::npos) << what;
    }
    try {
      all_shape_winners(s);
      ADD_FAILURE() << "the winners read";
    } catch (const StoreError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("the best_per_shape row"), std::string::npos) << what;
      EXPECT_NE(what.find("its problem"), std::string::npos) << what;
      EXPECT_NE(what.find("the database is refused"), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
    EXPECT_THROW(shape_winners(s), StoreError) << "the default kind's reader reads every kind's rows";
  }
}

}  // namespace
}  // namespace mpgemm
