// The canonical dump (store/dump.hpp) reads every schema version the project wrote without writing the file, and
// names every row its table's constraints refuse (table and rowid) instead of printing it as content.
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "store/dump.hpp"
#include "store/schema.hpp"
#include "support/old_database.hpp"
#include "support/run_command.hpp"

namespace mpgemm {
namespace {

namespace fs = std::filesystem;

using testing::database_at_version;
using testing::kRowsOfEveryVersion;
using testing::raw_exec;

std::string file_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Every file of a folder with its bytes.
std::vector<std::pair<std::string, std::string>> folder(const fs::path& dir) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& e : fs::directory_iterator(dir))
    out.emplace_back(e.path().filename().string(), file_bytes(e.path()));
  std::sort(out.begin(), out.end());
  return out;
}

bool has_line_starting(const std::vector<std::string>& lines, const std::string& start) {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.starts_with(start); });
}

// Writes `insert` into `table` past its NOT NULL constraints, as damage would leave it: the table's definition is
// edited to drop them (PRAGMA writable_schema), the row written, and the definition put back as it was.
void insert_past_not_null(const fs::path& db, const std::string& table, const std::string& insert) {
  sqlite3* c = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &c), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(c, "SELECT sql FROM sqlite_schema WHERE name = ?1", -1, &s, nullptr), SQLITE_OK);
  sqlite3_bind_text(s, 1, table.c_str(), -1, SQLITE_TRANSIENT);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  const std::string original = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
  sqlite3_finalize(s);
  sqlite3_close(c);
  std::string quoted;
  for (const char ch : original) quoted += ch == '\'' ? std::string("''") : std::string(1, ch);
  raw_exec(db, fmt::format("PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = replace(sql, 'NOT NULL', '') "
                           "WHERE name = '{}';",
                           table));
  raw_exec(db, insert);
  raw_exec(db, fmt::format("PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = '{}' WHERE name = '{}';",
                           quoted, table));
}

class Dump : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::fresh_dir(std::string("dump_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path dir_;
};

// Every version from 1 (the first the project wrote) to this build's: the five rows are read (the older ones
// through the migrations, in memory) and the folder holds exactly what it held, byte for byte (no -wal, no -shm,
// no journal, no migrated header).
TEST_F(Dump, EverySchemaVersionIsReadAndTheFileLeftAsItWas) {
  for (int version = 1; version <= schema_version(); ++version) {
    SCOPED_TRACE(fmt::format("schema version {}", version));
    const fs::path sub = dir_ / fmt::format("v{}", version);
    fs::create_directories(sub);
    database_at_version(sub / "r.db", version, kRowsOfEveryVersion);
    const auto before = folder(sub);
    mpgemm::Dump dump;
    ASSERT_NO_THROW(dump = read_dump(sub / "r.db")) << "version " << version;
    EXPECT_TRUE(dump.damaged.empty());
    EXPECT_EQ(dump.lines.size(), 5u) << fmt::format("{}", fmt::join(dump.lines, "\n"));
    EXPECT_TRUE(has_line_starting(dump.lines, "configs|family=t4:wmma|name=t10:wmma_bm128|"));
    EXPECT_TRUE(has_line_starting(dump.lines, "measurements|run_id={|uid="));
    EXPECT_TRUE(has_line_starting(dump.lines, "cublas_timings|run_id={|uid="));
    EXPECT_EQ(canonical_dump(sub / "r.db"), dump.lines);
    EXPECT_EQ(folder(sub), before);
  }
}

// The two versions whose migration changed after databases were written with it, as first written.
TEST_F(Dump, TheFirstFormsOfVersionsOneAndSix) {
  for (const int version : {1, 6}) {
    SCOPED_TRACE(fmt::format("schema version {} as first written", version));
    const fs::path sub = dir_ / fmt::format("first_v{}", version);
    fs::create_directories(sub);
    testing::database_at_first_form(sub / "r.db", version, kRowsOfEveryVersion);
    const auto before = folder(sub);
    mpgemm::Dump dump;
    ASSERT_NO_THROW(dump = read_dump(sub / "r.db"));
    EXPECT_TRUE(dump.damaged.empty());
    EXPECT_EQ(dump.lines.size(), 5u) << fmt::format("{}", fmt::join(dump.lines, "\n"));
    EXPECT_EQ(folder(sub), before);
  }
}

// A row that reads as NULL where the schema says NOT NULL is left out and named, never printed as content;
// canonical_dump (what merge tests compare) refuses the file.
TEST_F(Dump, ARowWithNullsInNotNullColumnsIsNamed) {
  const fs::path db = dir_ / "r.db";
  database_at_version(db, schema_version(), kRowsOfEveryVersion);
  insert_past_not_null(db, "configs",
                       "PRAGMA ignore_check_constraints = ON; "
                       "INSERT INTO configs (id, created_at) VALUES (7, NULL);");
  const mpgemm::Dump dump = read_dump(db);
  ASSERT_EQ(dump.damaged.size(), 1u);
  EXPECT_EQ(dump.damaged[0].table, "configs");
  EXPECT_EQ(dump.damaged[0].rowid, 7);
  EXPECT_EQ(dump.damaged[0].why, "NOT NULL constraint failed: configs.family");
  EXPECT_EQ(describe(dump.damaged[0]), "table configs, rowid 7: NOT NULL constraint failed: configs.family");
  EXPECT_EQ(dump.lines.size(), 5u) << fmt::format("{}", fmt::join(dump.lines, "\n"));
  for (const auto& line : dump.lines) EXPECT_EQ(line.find("=n|name=n"), std::string::npos) << line;
  try {
    canonical_dump(db);
    FAIL() << "a damaged row was dumped as content";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("damaged row (table configs, rowid 7: NOT NULL constraint failed"),
              std::string::npos)
        << e.what();
  }
}

// A value a CHECK refuses (a status no code knows) and a row of a table without an id, both named by rowid.
TEST_F(Dump, ChecksAndTablesWithoutAnIdToo) {
  const fs::path db = dir_ / "r.db";
  database_at_version(db, schema_version(), std::string(kRowsOfEveryVersion) + R"sql(
    INSERT INTO reranks (id, run_id, device_name, device_cc, M, N, K, top_k, warmup, rounds, iters, tie_band, rule)
      VALUES (1, 1, 'NVIDIA H200', 'sm_90', 1024, 1024, 1024, 2, 1, 3, 10, 0.01, 'tie_band');
    INSERT INTO rerank_samples (rerank_id, config_id, arch, round, position, ms) VALUES (1, 1, 'sm_90a', 0, 0, 0.02);
    INSERT INTO rerank_samples (rerank_id, config_id, arch, round, position, ms) VALUES (1, 1, 'sm_90a', 1, 0, 0.02);
  )sql");
  raw_exec(db, "PRAGMA ignore_check_constraints = ON; UPDATE measurements SET status = 'bogus' WHERE id = 1;");
  insert_past_not_null(db, "rerank_samples", "UPDATE rerank_samples SET ms = NULL WHERE round = 1;");
  const mpgemm::Dump dump = read_dump(db);
  ASSERT_EQ(dump.damaged.size(), 2u);
  EXPECT_EQ(dump.damaged[0].table, "measurements");
  EXPECT_EQ(dump.damaged[0].rowid, 1);
  EXPECT_NE(dump.damaged[0].why.find("CHECK constraint failed"), std::string::npos) << dump.damaged[0].why;
  EXPECT_EQ(dump.damaged[1].table, "rerank_samples");
  EXPECT_EQ(dump.damaged[1].rowid, 2);
  EXPECT_EQ(dump.damaged[1].why, "NOT NULL constraint failed: rerank_samples.ms");
  EXPECT_FALSE(has_line_starting(dump.lines, "measurements|"));
  EXPECT_TRUE(has_line_starting(dump.lines, "rerank_samples|"));  // the other sample
}

}  // namespace
}  // namespace mpgemm
