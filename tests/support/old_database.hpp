#pragma once
// Databases as an older mpgemm left them, for the migration tests: the migrations' own SQL up to a version, that
// version's pragmas, and rows written with plain SQLite (the Store would migrate the file on opening it).
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "store/schema.hpp"

namespace mpgemm::testing {

// Runs SQL on the file with a plain SQLite connection, bypassing the Store; a failure shows the SQL.
inline void raw_exec(const std::filesystem::path& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "") << "\n" << sql;
  sqlite3_free(error);
  sqlite3_close(db);
}

// A database at schema `version` (migrations 1 to `version` in one transaction, with the application id and
// user_version), then `rows`: plain SQL written as that version's mpgemm would have.
inline void database_at_version(const std::filesystem::path& path, int version, const std::string& rows = {}) {
  std::string sql = "BEGIN;";
  for (const auto& m : store_detail::migrations())
    if (m.version <= version) sql += std::string(m.sql);
  sql += fmt::format("PRAGMA application_id = {}; PRAGMA user_version = {}; COMMIT;", kStoreApplicationId, version);
  raw_exec(path, sql + rows);
}

// A database at schema `version` as the first build of that version wrote it, for the versions whose migration SQL
// changed after databases were written with it (git log -p src/store/schema.cpp): version 1 before
// compilations.dynamic_shared_bytes (commit 9fad9ec), version 6 before measurements.status admitted 'pruned'
// (79d379c). Other versions: database_at_version.
inline void database_at_first_form(const std::filesystem::path& path, int version, const std::string& rows = {}) {
  std::string sql = "BEGIN;";
  for (const auto& m : store_detail::migrations()) {
    if (m.version > version) continue;
    std::string step(m.sql);
    const auto drop = [&](const std::string& text) {
      const auto at = step.find(text);
      ASSERT_NE(at, std::string::npos) << "migration " << m.version << " no longer has: " << text;
      step.erase(at, text.size());
    };
    if (m.version == 1) {
      const auto at = step.find("  dynamic_shared_bytes INTEGER,");
      ASSERT_NE(at, std::string::npos);
      drop(step.substr(at, step.find('\n', at) + 1 - at));
    }
    if (m.version == 6) drop("'pruned', ");
    sql += step;
  }
  sql += fmt::format("PRAGMA application_id = {}; PRAGMA user_version = {}; COMMIT;", kStoreApplicationId, version);
  raw_exec(path, sql + rows);
}

// Rows every schema version takes (version 1's columns only): a finished run on a GPU, a config, its compilation,
// a cuBLAS timing and one 'ok' measurement of 1024^3 against it. Five rows, one per table.
inline constexpr const char* kRowsOfEveryVersion = R"sql(
INSERT INTO runs (id, tool_version, git_sha, argv, mode, device_name, device_cc, status, started_at)
  VALUES (1, '0.1.0', 'abc', '["mpgemm-tune"]', 'gpu', 'NVIDIA H200', 'sm_90', 'finished', '2026-11-29T12:00:00Z');
INSERT INTO configs (id, family, name, params, source_hash, created_at)
  VALUES (1, 'wmma', 'wmma_bm128', '{"BM": 128}', 'h1', '2026-11-29T12:00:01Z');
INSERT INTO compilations (id, config_id, run_id, arch, compile_key, status, compile_ms, log, created_at)
  VALUES (1, 1, 1, 'sm_90a', 'k1', 'ok', 12.5, 'ptxas info', '2026-11-29T12:00:02Z');
INSERT INTO cublas_timings (id, run_id, device_name, device_cc, M, N, K, median_ms, min_ms, max_ms, warmup, runs,
                            iters, tflops, created_at)
  VALUES (1, 1, 'NVIDIA H200', 'sm_90', 1024, 1024, 1024, 0.01, 0.009, 0.011, 5, 10, 20, 214.7,
          '2026-11-29T12:00:03Z');
INSERT INTO measurements (id, run_id, config_id, compilation_id, result_key, device_name, device_cc, arch, M, N, K,
                          status, median_ms, min_ms, max_ms, warmup, runs, iters, tflops, cublas_id, ratio_to_cublas,
                          created_at)
  VALUES (1, 1, 1, 1, 'r1', 'NVIDIA H200', 'sm_90', 'sm_90a', 1024, 1024, 1024, 'ok', 0.02, 0.019, 0.021, 5, 10, 20,
          107.4, 1, 0.5, '2026-11-29T12:00:04Z');
)sql";

}  // namespace mpgemm::testing
