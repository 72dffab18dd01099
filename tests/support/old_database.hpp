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

}  // namespace mpgemm::testing
