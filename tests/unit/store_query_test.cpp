// mpgemm-query's queries: the canned ones, and user SQL that must never write.
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "store/schema.hpp"
#include "store/store.hpp"
#include "support/store_fixture.hpp"

namespace mpgemm {
namespace {

class StoreQuery : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::per_test_dir();
    path_ = dir_ / "results.db";
    Store store = Store::open(path_, Store::Mode::read_write);
    const auto run = store.begin_run(RunInfo{});
    const auto cfg = store.upsert_config(Candidate{"wmma", {{"BM", std::int64_t{64}}}, "wmma_bm64", {}}, "h1");
    CompileResult ok;
    ok.status = Status::ok;
    ok.arch = *Arch::parse("sm_90a");
    ok.registers = 96;
    ok.compile_key = "k1";
    const auto compilation = store.record_compilation(cfg, run, ok);
    CompileResult bad = ok;
    bad.status = Status::compile_failed;
    bad.compile_key = "k2";
    bad.log = "line 1: error\nline 2";
    store.record_compilation(cfg, run, bad);
    MeasurementRecord m;
    m.run_id = run;
    m.config_id = cfg;
    m.compilation_id = compilation;
    m.result_key = "r1";
    m.device_name = "NVIDIA H200";
    m.device_cc = "sm_90";
    m.arch = ok.arch;
    m.measurement.timing = TimingStats{0.5, 0.4, 0.6, 1, 2, 3};
    store.record_measurement(m);
    m.result_key = "r2";
    m.measurement.status = Status::timeout;
    m.measurement.timing.reset();
    m.measurement.message = "kernel ran past 10 s";
    store.record_measurement(m);
    store.end_run(run, "finished");
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  static void expect_refused(const Store& store, std::string_view sql, std::string_view why) {
    try {
      store.query_sql(sql);
      ADD_FAILURE() << "ran: " << sql;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << sql << " -> " << e.what();
    }
  }

  std::filesystem::path dir_;
  std::filesystem::path path_;
};

TEST_F(StoreQuery, NamedQueries) {
  Store store = Store::open(path_, Store::Mode::read_only);
  const std::vector<std::string_view> names(Store::query_names().begin(), Store::query_names().end());
  EXPECT_EQ(names, (std::vector<std::string_view>{"runs", "configs", "compilations", "warnings", "failures", "best",
                                                  "fastest", "best_per_shape", "references", "measurements", "profiles",
                                                  "winners", "reranks"}));
  for (auto name : names) {
    const auto table = store.query_named(name);
    EXPECT_FALSE(table.columns.empty()) << name;
    for (const auto& row : table.rows) EXPECT_EQ(row.size(), table.columns.size()) << name;
  }
  EXPECT_EQ(store.query_named("runs").rows.size(), 1u);
  EXPECT_EQ(store.query_named("compilations").rows.size(), 2u);
  EXPECT_EQ(store.query_named("measurements").rows.size(), 2u);
  EXPECT_EQ(store.query_named("best").rows.size(), 1u);
  EXPECT_EQ(store.query_named("best_per_shape").rows.size(), 1u);
  EXPECT_EQ(store.query_named("references").rows.size(), 0u);
  EXPECT_EQ(store.query_named("winners").rows.size(), 0u);

  const auto configs = store.query_named("configs");
  ASSERT_EQ(configs.rows.size(), 1u);  // one row per config and arch: the latest compilation there
  const auto registers = std::find(configs.columns.begin(), configs.columns.end(), "registers");
  ASSERT_NE(registers, configs.columns.end());
  EXPECT_EQ(configs.rows[0][static_cast<std::size_t>(registers - configs.columns.begin())],
            report::Cell(std::int64_t{96}));

  const auto failures = store.query_named("failures");
  ASSERT_EQ(failures.rows.size(), 2u);
  EXPECT_EQ(failures.rows[0][0], report::Cell(std::string("compile")));
  EXPECT_EQ(failures.rows[0].back(), report::Cell(std::string("line 1: error line 2")));
  EXPECT_EQ(failures.rows[1][0], report::Cell(std::string("measure")));
  EXPECT_EQ(failures.rows[1].back(), report::Cell(std::string("kernel ran past 10 s")));

  try {
    store.query_named("bests");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "unknown query 'bests' (valid: runs, configs, compilations, warnings, failures, best, "
              "fastest, best_per_shape, references, measurements, profiles, winners, reranks)");
  }
}

TEST_F(StoreQuery, SqlReadsTypedCells) {
  Store store = Store::open(path_, Store::Mode::read_only);
  const auto t = store.query_sql("SELECT id, status, median_ms, NULL AS empty FROM measurements ORDER BY id;  -- hi");
  EXPECT_EQ(t.columns, (std::vector<std::string>{"id", "status", "median_ms", "empty"}));
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0], (std::vector<report::Cell>{std::int64_t{1}, std::string("ok"), 0.5, std::monostate{}}));
  EXPECT_EQ(t.rows[1][2], report::Cell(std::monostate{}));
  EXPECT_EQ(store.query_sql("PRAGMA table_info(runs)").rows.size(), 24u);      // time_accounts: version 13
  EXPECT_EQ(store.query_sql("SELECT config_name FROM best").rows.size(), 1u);  // the view and its window function
  EXPECT_EQ(store.query_sql("SELECT json_extract(params, '$.BM') FROM configs").rows[0][0],
            report::Cell(std::int64_t{64}));
  EXPECT_EQ(store
                .query_sql("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3) "
                           "SELECT count(*) FROM n")
                .rows[0][0],
            report::Cell(std::int64_t{3}));
}

TEST_F(StoreQuery, SqlRefusesAnythingThatWrites) {
  Store store = Store::open(path_, Store::Mode::read_only);
  expect_refused(store, "INSERT INTO runs (tool_version, git_sha, argv, mode) VALUES ('x', 'y', '[]', 'gpu')",
                 "query refused");
  expect_refused(store, "DELETE FROM measurements", "query refused");
  expect_refused(store, "UPDATE measurements SET median_ms = 0", "query refused");
  expect_refused(store, "DROP TABLE measurements", "query refused");
  expect_refused(store, "DROP VIEW best", "query refused");
  expect_refused(store, "CREATE TABLE t (x)", "query refused");
  expect_refused(store, "ATTACH DATABASE ':memory:' AS other", "query refused");
  expect_refused(store, fmt::format("ATTACH DATABASE '{}' AS other", (dir_ / "new.db").string()), "query refused");
  expect_refused(store, "DETACH DATABASE main", "query refused");
  expect_refused(store, "PRAGMA user_version = 7", "query refused");
  expect_refused(store, "PRAGMA journal_mode = DELETE", "query refused");
  expect_refused(store, "VACUUM", "query refused");
  expect_refused(store, "BEGIN", "query refused");
  expect_refused(store, "SELECT 1; DELETE FROM runs", "only one statement");
  expect_refused(store, "SELECT 1; SELECT 2", "only one statement");
  expect_refused(store, "  -- nothing\n", "empty");
  EXPECT_THROW(store.query_sql("SELEC 1"), StoreError);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "new.db"));
  EXPECT_EQ(store.query_sql("SELECT count(*) FROM measurements").rows[0][0], report::Cell(std::int64_t{2}));
  EXPECT_EQ(store.query_sql("PRAGMA user_version").rows[0][0], report::Cell(std::int64_t{schema_version()}));
}

TEST_F(StoreQuery, SqlNeedsAReadOnlyStore) {
  Store store = Store::open(path_, Store::Mode::read_write);
  EXPECT_THROW(store.query_sql("SELECT 1"), Error);
  EXPECT_EQ(store.query_named("runs").rows.size(), 1u);  // canned queries work in either mode
}

}  // namespace
}  // namespace mpgemm
