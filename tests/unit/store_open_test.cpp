// Opening results databases: initialization, identity checks that leave foreign files untouched, schema
// versions, read-only mode and error messages.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sqlite3.h>
#include <regex>

#include "common/error.hpp"
#include "store/schema.hpp"
#include "store/sqlite.hpp"
#include "store/store.hpp"
#include "support/old_database.hpp"
#include "support/store_fixture.hpp"

namespace mpgemm {
namespace {

class StoreOpen : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::per_test_dir();
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  static void raw_exec(const std::filesystem::path& path, const std::string& sql) { testing::raw_exec(path, sql); }
  static std::string raw_text(const std::filesystem::path& path, const std::string& sql) {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    std::string text;
    if (sqlite3_step(stmt) == SQLITE_ROW) text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return text;
  }
  static std::string bytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  // Expects open() to throw StoreError with `code` and a message containing `text`.
  static void expect_refused(const std::filesystem::path& path, Store::Mode mode, int code, const std::string& text) {
    try {
      Store::open(path, mode);
      ADD_FAILURE() << "opened " << path;
    } catch (const StoreError& e) {
      EXPECT_EQ(e.code() & 0xff, code) << e.what();
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  }

  std::filesystem::path dir_;
};

TEST_F(StoreOpen, NewFileGetsSchemaVersionApplicationIdAndWal) {
  const auto path = dir_ / "sub" / "folder" / "results.db";  // folders are created
  {
    Store store = Store::open(path, Store::Mode::read_write);
    EXPECT_EQ(raw_text(path, "PRAGMA journal_mode"), "wal");  // while open: readers work beside the writer
  }
  EXPECT_EQ(raw_text(path, "PRAGMA user_version"), std::to_string(schema_version()));
  EXPECT_EQ(raw_text(path, "PRAGMA application_id"), std::to_string(kStoreApplicationId));
  EXPECT_EQ(raw_text(path, "PRAGMA journal_mode"), "delete");  // closed: one self-contained file
  for (const char* table : {"runs", "configs", "compilations", "cublas_timings", "measurements", "best"})
    EXPECT_EQ(raw_text(path, fmt::format("SELECT name FROM sqlite_schema WHERE name = '{}'", table)), table);
}

// Names and contents of every file in `dir`.
std::map<std::string, std::string> listing(const std::filesystem::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(e.path(), std::ios::binary);
    files[e.path().filename().string()] = {std::istreambuf_iterator<char>(in), {}};
  }
  return files;
}

// A read-only open of a closed database writes nothing beside it (no -wal, no -shm) and changes nothing in
// it.
TEST_F(StoreOpen, ReadOnlyOpensOfAClosedDatabaseLeaveNoFiles) {
  const auto path = dir_ / "results.db";
  {
    Store store = Store::open(path, Store::Mode::read_write);
    store.end_run(store.begin_run(RunInfo{}), "finished");
  }
  const auto before = listing(dir_);
  ASSERT_EQ(before.size(), 2u);  // the database and its lock file ("-claims", from begin_run)
  for (int i = 0; i < 2; ++i) {
    Store reader = Store::open(path, Store::Mode::read_only);
    EXPECT_EQ(reader.query_sql("SELECT count(*) FROM runs").rows.size(), 1u);
    EXPECT_EQ(reader.query_named("runs").rows.size(), 1u);
  }
  EXPECT_EQ(listing(dir_), before);
}

// Two writers: the first to close cannot leave WAL while the other is open; the last one does.
TEST_F(StoreOpen, TheLastWriterToCloseLeavesOneFile) {
  const auto path = dir_ / "results.db";
  std::optional<Store> a(Store::open(path, Store::Mode::read_write));
  std::optional<Store> b(Store::open(path, Store::Mode::read_write));
  a->begin_run(RunInfo{});
  a.reset();
  EXPECT_TRUE(std::filesystem::exists(path.string() + "-wal"));
  EXPECT_EQ(b->find_run(1)->status, "running");
  b.reset();
  EXPECT_FALSE(std::filesystem::exists(path.string() + "-wal"));
  EXPECT_FALSE(std::filesystem::exists(path.string() + "-shm"));
  EXPECT_EQ(raw_text(path, "SELECT count(*) FROM runs"), "1");
}

TEST_F(StoreOpen, EmptyFileIsInitialized) {
  const auto path = dir_ / "empty.db";
  std::ofstream(path).close();
  ASSERT_EQ(std::filesystem::file_size(path), 0u);
  { Store store = Store::open(path, Store::Mode::read_write); }
  EXPECT_EQ(raw_text(path, "PRAGMA user_version"), std::to_string(schema_version()));
  EXPECT_EQ(raw_text(path, "SELECT count(*) FROM measurements"), "0");
}

TEST_F(StoreOpen, ReopenKeepsDataAndIsIdempotent) {
  const auto path = dir_ / "results.db";
  std::int64_t run = 0;
  {
    Store store = Store::open(path, Store::Mode::read_write);
    RunInfo info;
    info.argv = {"mpgemm-tune", "--space", "configs/wmma.json"};
    run = store.begin_run(info);
  }
  { Store again = Store::open(path, Store::Mode::read_write); }  // already current: no migration
  Store reader = Store::open(path, Store::Mode::read_only);
  const auto stored = reader.find_run(run);
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->argv, (std::vector<std::string>{"mpgemm-tune", "--space", "configs/wmma.json"}));
}

// A version-2 database (before ptxas warnings were kept) gains the warnings columns; its old compilations say
// NULL, "never parsed", not "none".
TEST_F(StoreOpen, Version2DatabaseMigratesToWarnings) {
  const auto path = dir_ / "v2.db";
  testing::database_at_version(
      path, 2,
      "INSERT INTO runs (tool_version, git_sha, argv, mode) VALUES ('0.1.0', 'abc', '[]', 'compile-only');"
      "INSERT INTO configs (family, name, params, source_hash) VALUES ('wmma', 'wmma_old', '{}', 'h');"
      "INSERT INTO compilations (config_id, run_id, arch, compile_key, status, compile_ms, log) "
      "VALUES (1, 1, 'sm_90a', 'old-key', 'ok', 1.0, 'ptxas info : (C7514) Potential Performance Loss: x');");
  {
    Store store = Store::open(path, Store::Mode::read_write);
    const auto old = store.find_compilation(1, "sm_90a", "old-key");
    ASSERT_TRUE(old);
    EXPECT_FALSE(old->warnings.has_value());
    CompileResult fresh;
    fresh.status = Status::ok;
    fresh.arch = *Arch::parse("sm_90a");
    fresh.compile_key = "new-key";
    store.record_compilation(1, 1, fresh);
  }
  EXPECT_EQ(raw_text(path, "PRAGMA user_version"), std::to_string(schema_version()));
  EXPECT_EQ(raw_text(path, "SELECT count(*) FROM compilations WHERE warnings IS NULL AND perf_warnings IS NULL"), "1");
  EXPECT_EQ(raw_text(path, "SELECT warnings || ' ' || perf_warnings FROM compilations WHERE compile_key = 'new-key'"),
            "[] 0");
}

TEST_F(StoreOpen, NonSqliteFileIsRefusedAndLeftAlone) {
  const auto path = dir_ / "notes.db";
  std::ofstream(path) << std::string(4096, 'x') << "this is not a database\n";
  const auto before = bytes(path);
  expect_refused(path, Store::Mode::read_write, SQLITE_NOTADB, "is not an mpgemm results database");
  expect_refused(path, Store::Mode::read_only, SQLITE_NOTADB, "is not an mpgemm results database");
  EXPECT_EQ(bytes(path), before);
}

// A folder where a database was expected is named as such (SQLite alone says "unable to open database file").
TEST_F(StoreOpen, AFolderIsRefusedAsAFolder) {
  for (const auto mode : {Store::Mode::read_write, Store::Mode::read_only}) {
    try {
      Store::open(dir_, mode);
      ADD_FAILURE() << "a folder opened as a database";
    } catch (const StoreError& e) {
      EXPECT_NE(std::string(e.what()).find("it is a folder, not a database file"), std::string::npos) << e.what();
    }
  }
}

TEST_F(StoreOpen, OtherApplicationsDatabaseIsRefusedAndLeftAlone) {
  const auto other = dir_ / "other.db";
  raw_exec(other, "PRAGMA application_id = 305419896; CREATE TABLE notes (t TEXT); INSERT INTO notes VALUES ('a');");
  const auto foreign = dir_ / "foreign.db";  // no application_id, someone else's tables
  raw_exec(foreign, "CREATE TABLE runs (x INTEGER); INSERT INTO runs VALUES (1);");
  for (const auto& path : {other, foreign}) {
    const auto before = bytes(path);
    expect_refused(path, Store::Mode::read_write, SQLITE_NOTADB, "is not an mpgemm results database");
    expect_refused(path, Store::Mode::read_only, SQLITE_NOTADB, "is not an mpgemm results database");
    EXPECT_EQ(bytes(path), before) << path;
  }
}

TEST_F(StoreOpen, NewerSchemaVersionIsRefused) {
  const auto path = dir_ / "future.db";
  { Store store = Store::open(path, Store::Mode::read_write); }
  raw_exec(path, "PRAGMA user_version = 99");
  const auto before = bytes(path);
  const auto message = fmt::format("database schema version 99 is newer than this mpgemm supports ({}); upgrade mpgemm",
                                   schema_version());
  expect_refused(path, Store::Mode::read_write, SQLITE_ERROR, message);
  expect_refused(path, Store::Mode::read_only, SQLITE_ERROR, message);
  EXPECT_EQ(bytes(path), before);
}

TEST_F(StoreOpen, ReadOnlyNeverCreatesOrWrites) {
  const auto missing = dir_ / "missing.db";
  expect_refused(missing, Store::Mode::read_only, SQLITE_CANTOPEN, "no such file");
  EXPECT_FALSE(std::filesystem::exists(missing));
  const auto empty = dir_ / "empty.db";
  std::ofstream(empty).close();
  expect_refused(empty, Store::Mode::read_only, SQLITE_NOTADB, "is not an mpgemm results database");
  EXPECT_EQ(std::filesystem::file_size(empty), 0u);

  const auto path = dir_ / "results.db";
  { Store store = Store::open(path, Store::Mode::read_write); }
  Store reader = Store::open(path, Store::Mode::read_only);
  EXPECT_EQ(reader.mode(), Store::Mode::read_only);
  try {
    reader.begin_run(RunInfo{});
    ADD_FAILURE() << "a read-only store wrote";
  } catch (const StoreError& e) {
    EXPECT_EQ(e.code(), SQLITE_READONLY);
    EXPECT_NE(std::string(e.what()).find("database is read-only: "), std::string::npos) << e.what();
  }
  EXPECT_THROW(reader.upsert_config(Candidate{"wmma", {}, "wmma_x", {}}, "h"), StoreError);
  EXPECT_EQ(raw_text(path, "SELECT count(*) FROM runs"), "0");
}

TEST_F(StoreOpen, MoveTransfersTheConnection) {
  Store a = Store::open(dir_ / "a.db", Store::Mode::read_write);
  Store b = std::move(a);
  EXPECT_EQ(b.path(), dir_ / "a.db");
  EXPECT_GT(b.begin_run(RunInfo{}), 0);
  EXPECT_THROW(a.begin_run(RunInfo{}), Error);  // NOLINT(bugprone-use-after-move): moved-from use is reported
  a = Store::open(dir_ / "c.db", Store::Mode::read_write);
  EXPECT_EQ(a.path(), dir_ / "c.db");
}

TEST(StoreErrors, MessagesSayWhatHappened) {
  const sqlite::Connection c{nullptr, "results/results.db"};
  auto message = [&](int rc, std::string_view doing) {
    try {
      sqlite::fail(c, rc, doing);
    } catch (const StoreError& e) {
      EXPECT_EQ(e.code(), rc);
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(message(SQLITE_FULL, "recording measurement 0123abcd"),
            "database results/results.db: disk full while recording measurement 0123abcd: database or disk is full "
            "(SQLite code 13)");
  EXPECT_EQ(message(SQLITE_READONLY, "recording a run"),
            "database results/results.db: database is read-only: attempt to write a readonly database (while "
            "recording a run) (SQLite code 8)");
  EXPECT_EQ(message(SQLITE_NOTADB, "reading the database header"),
            "database results/results.db: file is not an mpgemm results database (not an SQLite database: file is "
            "not a database) (SQLite code 26)");
}

// A database as schema version 2 or 3 left it (applied from the migrations' own SQL, as an older mpgemm did),
// with one run, config, cuBLAS timing and measurement, opened by this build: migrated in place to cuBLASLt's
// version, nothing lost, the new columns empty, the rebuilt views working on the old rows.
class StoreOpenFrom : public StoreOpen, public ::testing::WithParamInterface<int> {};

TEST_P(StoreOpenFrom, OlderDatabaseGainsCublasLtKeepingItsRows) {
  const int from = GetParam();
  const auto path = dir_ / fmt::format("v{}.db", from);
  ASSERT_GT(static_cast<int>(store_detail::migrations().size()), from);
  testing::database_at_version(
      path, from,
      "INSERT INTO runs (id, tool_version, git_sha, argv, mode) VALUES (1, '0.1.0', 'abc', '[]', 'gpu');"
      "INSERT INTO configs (id, family, name, params, source_hash) VALUES (1, 'wmma', 'wmma_a', '{}', 'h');"
      "INSERT INTO cublas_timings (id, run_id, device_name, device_cc, M, N, K, median_ms, min_ms, max_ms, "
      "  warmup, runs, iters, tflops) VALUES (1, 1, 'NVIDIA H200', 'sm_90', 2048, 2048, 2048, 0.025, 0.025, "
      "  0.025, 3, 5, 20, 687.2);"
      "INSERT INTO measurements (id, run_id, config_id, result_key, device_name, device_cc, arch, M, N, K, "
      "  status, median_ms, tflops, cublas_id, ratio_to_cublas) VALUES (1, 1, 1, 'key-1', 'NVIDIA H200', "
      "  'sm_90', 'sm_90', 2048, 2048, 2048, 'ok', 0.05, 343.6, 1, 0.5);");
  // A read-only open reads a migrated copy in memory and leaves the file as it was, byte for byte.
  const std::string before = bytes(path);
  {
    Store store = Store::open(path, Store::Mode::read_only);
    const auto m = store.find_measurement("key-1");
    ASSERT_TRUE(m);
    EXPECT_EQ(m->ratio_to_cublas, 0.5);
    EXPECT_FALSE(m->cublaslt_id);
    EXPECT_EQ(store.query_named("best").rows.size(), 1u);
    EXPECT_THROW(store.record_cublas(1, CublasRecord{}), StoreError) << "still a read-only Store";
  }
  EXPECT_EQ(raw_text(path, "PRAGMA user_version"), std::to_string(from));
  EXPECT_EQ(bytes(path), before);

  {
    Store store = Store::open(path, Store::Mode::read_write);
    const auto m = store.find_measurement("key-1");
    ASSERT_TRUE(m);
    EXPECT_EQ(m->ratio_to_cublas, 0.5);
    EXPECT_EQ(m->cublas_id, 1);
    EXPECT_FALSE(m->cublaslt_id);
    EXPECT_FALSE(m->ratio_to_cublaslt);
    // The new table takes rows, and new measurements link to them.
    CublasLtReference lt;
    lt.heuristics_returned = 8;
    lt.heuristics_valid = 8;
    lt.timing = TimingStats{0.02, 0.02, 0.02, 3, 5, 20};
    lt.algo = CublasLtAlgo{};
    const auto lt_id =
        store.record_cublaslt(1, CublasLtRecord{"NVIDIA H200", "sm_90", Shape{2048, 2048, 2048}, lt, std::nullopt});
    EXPECT_EQ(store.find_latest_cublaslt("NVIDIA H200", Shape{2048, 2048, 2048})->id, lt_id);
  }
  EXPECT_EQ(raw_text(path, "PRAGMA user_version"), std::to_string(schema_version()));
  EXPECT_EQ(raw_text(path, "PRAGMA application_id"), std::to_string(kStoreApplicationId));
  EXPECT_EQ(raw_text(path, "SELECT config_name || ' ' || cublas_tflops FROM best"), "wmma_a 687.2");
  EXPECT_EQ(raw_text(path, "SELECT config_name || ' ' || arch FROM best_per_shape"), "wmma_a sm_90");
  EXPECT_EQ(raw_text(path, "SELECT count(*) FROM best WHERE cublaslt_tflops IS NULL AND ratio_to_cublaslt IS NULL"),
            "1");
  EXPECT_EQ(raw_text(path, "PRAGMA foreign_key_check"), "");
  EXPECT_EQ(raw_text(path, "PRAGMA integrity_check"), "ok");
}

INSTANTIATE_TEST_SUITE_P(Versions, StoreOpenFrom, ::testing::Values(2, 3));

// A version-4 database gains runs.pid; its runs say NULL (unknown), and a run of the same host left 'running'
// by an older mpgemm is never taken for dead: nothing can tell.
TEST_F(StoreOpen, Version4DatabaseGainsRunPids) {
  const auto path = dir_ / "v4.db";
  testing::database_at_version(path, 4,
                               "INSERT INTO runs (id, tool_version, git_sha, argv, mode, hostname) "
                               "VALUES (1, '0.1.0', 'abc', '[]', 'gpu', 'this-host');");
  Store store = Store::open(path, Store::Mode::read_write);
  EXPECT_FALSE(store.find_run(1)->pid);
  RunInfo info;
  info.hostname = "this-host";
  const std::int64_t next = store.begin_run(info);
  EXPECT_EQ(store.find_run(1)->status, "running");
  EXPECT_EQ(store.find_run(next)->pid, ::getpid());
}

// A version-5 database gets measurements rebuilt for 'screened_out': every row keeps its id and values, its
// earlier timings say warm L2, the indexes and views are back, and the new status and columns are accepted.
TEST_F(StoreOpen, Version5DatabaseGainsScreenedOutKeepingItsRows) {
  const auto path = dir_ / "v5.db";
  testing::database_at_version(
      path, 5,
      "INSERT INTO runs (id, tool_version, git_sha, argv, mode) VALUES (1, '0.1.0', 'abc', '[]', 'gpu');"
      "INSERT INTO configs (id, family, name, params, source_hash) VALUES (1, 'wmma', 'wmma_a', '{}', 'h');"
      "INSERT INTO configs (id, family, name, params, source_hash) VALUES (2, 'wmma', 'wmma_b', '{}', 'h');"
      "INSERT INTO cublas_timings (id, run_id, device_name, device_cc, M, N, K, median_ms, min_ms, max_ms, "
      "  warmup, runs, iters, tflops) VALUES (1, 1, 'NVIDIA H200', 'sm_90', 2048, 2048, 2048, 0.025, 0.025, "
      "  0.025, 3, 5, 20, 687.2);"
      "INSERT INTO measurements (id, run_id, config_id, result_key, device_name, device_cc, arch, M, N, K, "
      "  status, median_ms, min_ms, max_ms, warmup, runs, iters, tflops, cublas_id, ratio_to_cublas, "
      "  sm_clock_mhz, message, created_at) VALUES (7, 1, 1, 'key-7', 'NVIDIA H200', 'sm_90', 'sm_90', 2048, "
      "  2048, 2048, 'ok', 0.05, 0.049, 0.052, 3, 5, 20, 343.6, 1, 0.5, 1980, '', '2026-01-01T00:00:00.000Z');"
      "INSERT INTO measurements (id, run_id, config_id, result_key, device_name, device_cc, arch, M, N, K, "
      "  status, message) VALUES (9, 1, 2, 'key-9', 'NVIDIA H200', 'sm_90', 'sm_90', 2048, 2048, 2048, "
      "  'incorrect', '3 elements differ');");
  const std::string before =
      raw_text(path,
               "SELECT group_concat(id || ' ' || status || ' ' || coalesce(median_ms, '-') || ' ' || "
               "coalesce(ratio_to_cublas, '-') || ' ' || message || ' ' || created_at, ';') FROM measurements");
  {
    Store store = Store::open(path, Store::Mode::read_write);
    const auto m = store.find_measurement("key-7");
    ASSERT_TRUE(m);
    EXPECT_EQ(m->id, 7);
    EXPECT_EQ(m->measurement.timing->l2, L2Mode::warm);
    EXPECT_EQ(m->measurement.timing->noise, 0);
    EXPECT_FALSE(m->measurement.timing->noise_target);
    EXPECT_EQ(m->ratio_to_cublas, 0.5);
    EXPECT_FALSE(store.find_measurement("key-9")->measurement.timing);
  }
  EXPECT_EQ(raw_text(path, "PRAGMA user_version"), std::to_string(schema_version()));
  EXPECT_EQ(raw_text(path,
                     "SELECT group_concat(id || ' ' || status || ' ' || coalesce(median_ms, '-') || ' ' || "
                     "coalesce(ratio_to_cublas, '-') || ' ' || message || ' ' || created_at, ';') "
                     "FROM measurements"),
            before);
  EXPECT_EQ(raw_text(path, "SELECT group_concat(coalesce(l2, 'NULL'), ',') FROM measurements"), "warm,NULL");
  EXPECT_EQ(raw_text(path,
                     "SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_schema WHERE "
                     "tbl_name = 'measurements' AND type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name)"),
            "measurements_by_config,measurements_by_run,measurements_ok_by_shape");
  EXPECT_EQ(raw_text(path, "SELECT config_name || ' ' || cublas_tflops FROM best"), "wmma_a 687.2");
  EXPECT_EQ(raw_text(path, "SELECT config_name FROM best_per_shape"), "wmma_a");
  raw_exec(path,
           "INSERT INTO measurements (id, run_id, config_id, result_key, device_name, device_cc, arch, M, N, K, "
           "  status, median_ms, l2) VALUES (10, 1, 2, 'key-10', 'NVIDIA H200', 'sm_90', 'sm_90', 2048, 2048, "
           "  2048, 'screened_out', 0.01, 'warm');");
  EXPECT_EQ(raw_text(path, "SELECT config_name FROM best"), "wmma_a");  // a screened-out row never wins
  EXPECT_EQ(raw_text(path, "PRAGMA foreign_key_check"), "");
  EXPECT_EQ(raw_text(path, "PRAGMA integrity_check"), "ok");
}

// A version-7 database gains the scale-out columns: each old run a uid derived from its own row (so two copies of
// one database migrated apart agree, and merge as one), NULL GPUs, and new runs a random uid of 32 hex digits.
TEST_F(StoreOpen, Version7DatabaseGainsRunUidsThatCopiesAgreeOn) {
  const std::string rows =
      "INSERT INTO runs (id, started_at, tool_version, git_sha, argv, mode, hostname, pid) VALUES "
      "(1, '2026-11-30T10:00:00.000Z', '0.1.0', 'abc', '[]', 'gpu', 'h200', 42), "
      "(2, '2026-11-30T11:00:00.000Z', '0.1.0', 'abc', '[]', 'replay', NULL, NULL);"
      "INSERT INTO configs (id, family, name, params, source_hash) VALUES (1, 'wmma', 'wmma_a', '{}', 'h');"
      "INSERT INTO measurements (id, run_id, config_id, result_key, device_name, device_cc, arch, M, N, K, "
      "  status, message) VALUES (1, 1, 1, 'key-1', 'NVIDIA H200', 'sm_90', 'sm_90', 64, 64, 64, 'incorrect', 'x');";
  std::vector<std::string> uids;
  for (const char* name : {"a.db", "b.db"}) {
    const auto path = dir_ / name;
    testing::database_at_version(path, 7, rows);
    { Store store = Store::open(path, Store::Mode::read_write); }
    uids.push_back(raw_text(path, "SELECT group_concat(uid, ' ') FROM (SELECT uid FROM runs ORDER BY id)"));
    EXPECT_EQ(raw_text(path, "SELECT count(*) FROM measurements WHERE gpu_uuid IS NULL AND gpu_ordinal IS NULL"), "1");
    EXPECT_EQ(raw_text(path, "SELECT count(*) FROM runs WHERE shard IS NULL AND gpus IS NULL"), "2");
  }
  EXPECT_EQ(uids[0], uids[1]);
  EXPECT_EQ(uids[0], "v7-2026-11-30T10:00:00.000Z-h200-42-1 v7-2026-11-30T11:00:00.000Z---2");

  Store store = Store::open(dir_ / "a.db", Store::Mode::read_write);
  RunInfo info;
  info.argv = {"mpgemm-tune"};
  info.shard = "2/4";
  info.device_name = "NVIDIA H200";
  info.gpus = {GpuIdentity{"GPU-1", 0}, GpuIdentity{"GPU-2", 1}};
  const std::int64_t id = store.begin_run(info);
  const auto path = dir_ / "a.db";
  EXPECT_TRUE(std::regex_match(raw_text(path, fmt::format("SELECT uid FROM runs WHERE id = {}", id)),
                               std::regex("[0-9a-f]{32}")));
  EXPECT_EQ(raw_text(path, fmt::format("SELECT shard FROM runs WHERE id = {}", id)), "2/4");
  EXPECT_EQ(raw_text(path, fmt::format("SELECT json_extract(gpus, '$[1].uuid') || ' ' || "
                                       "json_extract(gpus, '$[1].ordinal') || ' ' || json_extract(gpus, '$[0].name') "
                                       "FROM runs WHERE id = {}",
                                       id)),
            "GPU-2 1 NVIDIA H200");
  const auto run = store.find_run(id);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->shard, "2/4");
  ASSERT_EQ(run->gpus.size(), 2u);
  EXPECT_EQ(run->gpus[1].uuid, "GPU-2");
  EXPECT_EQ(run->gpus[1].ordinal, 1);
  EXPECT_EQ(run->uid.size(), 32u);
  EXPECT_EQ(store.find_run(1)->uid, "v7-2026-11-30T10:00:00.000Z-h200-42-1");
  EXPECT_TRUE(store.find_run(2)->gpus.empty());
}

// A version-8 database gains cuBLASLt in the re-rank: its re-ranks read as before (cuBLAS's samples are marked
// 'cublas', cuBLASLt's median and ratios NULL), the winners view keeps its rows with the new columns NULL, and a
// re-rank recorded after the migration keeps cuBLASLt's samples apart from cuBLAS's.
TEST_F(StoreOpen, Version8DatabaseGainsCublasLtInTheRerank) {
  const auto path = dir_ / "v8.db";
  testing::database_at_version(
      path, 8,
      "INSERT INTO runs (id, tool_version, git_sha, argv, mode, uid) VALUES (1, '0.1.0', 'abc', '[]', 'gpu', 'u1');"
      "INSERT INTO configs (id, family, name, params, source_hash) VALUES (1, 'wmma', 'wmma_a', '{}', 'h');"
      "INSERT INTO reranks (id, run_id, device_name, device_cc, M, N, K, top_k, warmup, rounds, iters, tie_band, "
      "  rule, winner_config_id, cublas_median_ms) VALUES (1, 1, 'NVIDIA H200', 'sm_90', 64, 64, 64, 5, 3, 2, "
      "  20, 0.01, 'r', 1, 0.5);"
      "INSERT INTO rerank_configs (rerank_id, config_id, arch, prior_median_ms, status, samples, median_ms, "
      "  min_ms, max_ms, ratio_to_cublas, tied, place) VALUES (1, 1, 'sm_90', 0.25, 'ok', 2, 0.25, 0.25, 0.25, "
      "  2.0, 1, 1);"
      "INSERT INTO rerank_samples (rerank_id, config_id, arch, round, position, ms) VALUES "
      "  (1, 1, 'sm_90', 0, 0, 0.25), (1, 1, 'sm_90', 1, 1, 0.25), (1, NULL, NULL, 0, 1, 0.5), "
      "  (1, NULL, NULL, 1, 0, 0.5);");
  const Shape shape{64, 64, 64};
  {
    Store store = Store::open(path, Store::Mode::read_write);
    const auto r = store.find_latest_rerank("NVIDIA H200", shape);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->cublas_samples, (std::vector<RoundSample>{{0, 1, 0.5}, {1, 0, 0.5}}));
    EXPECT_TRUE(r->cublaslt_samples.empty());
    EXPECT_FALSE(r->cublaslt_median_ms);
    ASSERT_EQ(r->entries.size(), 1u);
    EXPECT_EQ(r->entries[0].ratio_to_cublas, 2.0);
    EXPECT_FALSE(r->entries[0].ratio_to_cublaslt);
    EXPECT_EQ(r->entries[0].samples.size(), 2u);

    RerankRecord next;
    next.run_id = 1;
    next.device_name = "NVIDIA H200";
    next.device_cc = "sm_90";
    next.shape = Shape{128, 128, 128};
    next.rounds = 1;
    next.iters = 20;
    next.rule = "r";
    next.cublas_samples = {{0, 0, 0.5}};
    next.cublaslt_samples = {{0, 1, 0.4}};
    next.cublaslt_median_ms = 0.4;
    store.record_rerank(next);
    const auto back = store.find_latest_rerank("NVIDIA H200", next.shape);
    ASSERT_TRUE(back);
    EXPECT_EQ(back->cublas_samples, next.cublas_samples);
    EXPECT_EQ(back->cublaslt_samples, next.cublaslt_samples);
    EXPECT_EQ(back->cublaslt_median_ms, 0.4);
  }
  EXPECT_EQ(raw_text(path, "PRAGMA user_version"), std::to_string(schema_version()));
  EXPECT_EQ(raw_text(path,
                     "SELECT group_concat(coalesce(reference, 'NULL'), ',') FROM "
                     "(SELECT reference FROM rerank_samples WHERE rerank_id = 1 ORDER BY round, position)"),
            "NULL,cublas,cublas,NULL");
  EXPECT_EQ(raw_text(path,
                     "SELECT config_name || ' ' || ratio_to_cublas || ' ' || coalesce(ratio_to_cublaslt, "
                     "'NULL') || ' ' || coalesce(cublaslt_median_ms, 'NULL') FROM winners"),
            "wmma_a 2.0 NULL NULL");
  // A config's batch cannot name a reference.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db,
                         "INSERT INTO rerank_samples (rerank_id, config_id, arch, round, position, ms, reference) "
                         "VALUES (1, 1, 'sm_90', 2, 0, 0.25, 'cublaslt')",
                         nullptr, nullptr, nullptr),
            SQLITE_CONSTRAINT);
  sqlite3_close(db);
  EXPECT_EQ(raw_text(path, "PRAGMA foreign_key_check"), "");
  EXPECT_EQ(raw_text(path, "PRAGMA integrity_check"), "ok");
}

// A version-10 database gains how each timing's batches were enqueued: its rows read as host-enqueued ('stream'),
// the columns stay NULL for them, and new rows say 'stream' or 'graph' (nothing else).
TEST_F(StoreOpen, Version10DatabaseGainsBatchesReadAsStream) {
  const auto path = dir_ / "v10.db";
  testing::database_at_version(
      path, 10,
      "INSERT INTO runs (id, tool_version, git_sha, argv, mode) VALUES (1, '0.1.0', 'abc', '[]', 'gpu');"
      "INSERT INTO configs (id, family, name, params, source_hash) VALUES (1, 'wmma', 'wmma_a', '{}', 'h');"
      "INSERT INTO cublas_timings (id, run_id, device_name, device_cc, M, N, K, median_ms, min_ms, max_ms, "
      "  warmup, runs, iters, tflops, l2) VALUES (1, 1, 'NVIDIA H200', 'sm_90', 512, 512, 512, 0.01, 0.01, "
      "  0.01, 3, 5, 20, 26.8, 'warm');"
      "INSERT INTO measurements (id, run_id, config_id, result_key, device_name, device_cc, arch, M, N, K, "
      "  status, median_ms, min_ms, max_ms, warmup, runs, iters, tflops, cublas_id, ratio_to_cublas, l2, "
      "  message) VALUES (7, 1, 1, 'key-7', 'NVIDIA H200', 'sm_90', 'sm_90', 512, 512, 512, 'ok', 0.004, "
      "  0.004, 0.004, 3, 5, 20, 67.1, 1, 2.5, 'warm', '');");
  {
    Store store = Store::open(path, Store::Mode::read_write);
    const auto m = store.find_measurement("key-7");
    ASSERT_TRUE(m && m->measurement.timing);
    EXPECT_EQ(m->measurement.timing->batches, BatchEnqueue::stream);
    const auto c = store.find_cublas(1);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->timing.batches, BatchEnqueue::stream);
  }
  EXPECT_EQ(raw_text(path, "PRAGMA user_version"), std::to_string(schema_version()));
  EXPECT_EQ(raw_text(path, "SELECT coalesce(batches, 'NULL') FROM measurements"), "NULL");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, "UPDATE measurements SET batches = 'graph'", nullptr, nullptr, nullptr), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, "UPDATE measurements SET batches = 'pigeon'", nullptr, nullptr, nullptr),
            SQLITE_CONSTRAINT);
  EXPECT_EQ(sqlite3_exec(db, "UPDATE cublas_timings SET batches = 'pigeon'", nullptr, nullptr, nullptr),
            SQLITE_CONSTRAINT);
  sqlite3_close(db);
  EXPECT_EQ(raw_text(path, "PRAGMA integrity_check"), "ok");
}

TEST(StoreSchema, TextDocumentsEveryTable) {
  const std::string sql = schema_sql();
  EXPECT_EQ(schema_version(), 14);
  EXPECT_TRUE(sql.starts_with("-- schema version 1\n"));
  for (const char* object : {"CREATE TABLE runs",
                             "CREATE TABLE configs",
                             "CREATE TABLE compilations",
                             "CREATE TABLE cublas_timings",
                             "CREATE TABLE measurements",
                             "CREATE VIEW best",
                             "CREATE TABLE cublaslt_timings",
                             "CREATE VIEW best_per_shape",
                             "ALTER TABLE runs ADD COLUMN pid",
                             "CREATE TABLE reranks",
                             "CREATE TABLE rerank_configs",
                             "CREATE TABLE rerank_samples",
                             "CREATE VIEW winners",
                             "ALTER TABLE runs ADD COLUMN uid",
                             "CREATE UNIQUE INDEX runs_by_uid",
                             "ALTER TABLE measurements ADD COLUMN gpu_uuid",
                             "ALTER TABLE reranks ADD COLUMN cublaslt_median_ms",
                             "ALTER TABLE rerank_samples ADD COLUMN reference",
                             "ALTER TABLE measurements ADD COLUMN batches",
                             "ALTER TABLE cublas_timings ADD COLUMN batches",
                             "ALTER TABLE reranks ADD COLUMN settled_ms",
                             "ALTER TABLE measurements ADD COLUMN problem",
                             "ALTER TABLE cublas_timings ADD COLUMN problem",
                             "ALTER TABLE cublaslt_timings ADD COLUMN problem",
                             "ALTER TABLE reranks ADD COLUMN problem"})
    EXPECT_NE(sql.find(object), std::string::npos) << object;
  const auto migrations = store_detail::migrations();
  for (std::size_t i = 0; i < migrations.size(); ++i) EXPECT_EQ(migrations[i].version, static_cast<int>(i) + 1);
}

}  // namespace
}  // namespace mpgemm
