// A writer killed inside a transaction of rollback-journal mode (mpgemm-tune killed while it switches the file to or
// from WAL) leaves a hot journal. The next writer's first look at the file is read-only, and a read-only connection
// cannot roll a hot journal back (SQLITE_READONLY_ROLLBACK): every resume failed from then on. A writer now lets
// SQLite roll it back, then checks and opens the file as always: the interrupted transaction is gone, the commits
// before it are there.
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "store/store.hpp"
#include "support/store_fixture.hpp"

namespace mpgemm {
namespace {

namespace fs = std::filesystem;

std::int64_t runs_in(const fs::path& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* q = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, "SELECT count(*) FROM runs", -1, &q, nullptr), SQLITE_OK);
  std::int64_t n = -1;
  if (sqlite3_step(q) == SQLITE_ROW) n = sqlite3_column_int64(q, 0);
  sqlite3_finalize(q);
  sqlite3_close(db);
  return n;
}

TEST(StoreHotJournal, AWriterRollsBackAnInterruptedTransactionAndOpens) {
  const fs::path dir = testing::per_test_dir();
  fs::create_directories(dir);
  const fs::path live = dir / "live.db", copy = dir / "copy.db";
  {
    Store store = Store::open(live, Store::Mode::read_write);
    RunInfo info;
    info.argv = {"mpgemm-tune"};
    store.end_run(store.begin_run(info), "finished");
  }  // closed: back in rollback-journal mode
  // A transaction whose pages spill into the file before its commit, copied with its journal while it is open:
  // the copy is the file as a writer killed at that moment leaves it.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(live.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "PRAGMA journal_mode = DELETE; PRAGMA cache_size = 2; BEGIN; "
                         "INSERT INTO runs (tool_version, git_sha, argv, mode, notes) "
                         "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) "
                         "SELECT '0', 'x', '[]', 'replay', hex(randomblob(200)) FROM n;",
                         nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(db);
  ASSERT_TRUE(fs::exists(live.string() + "-journal"));
  fs::copy_file(live, copy);
  fs::copy_file(live.string() + "-journal", copy.string() + "-journal");
  sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(db);

  {
    Store store = Store::open(copy, Store::Mode::read_write);
    EXPECT_EQ(store.find_run(1).value().status, "finished");
  }
  EXPECT_EQ(runs_in(copy), 1);  // the interrupted transaction's rows are gone, the commit before it stays
  EXPECT_FALSE(fs::exists(copy.string() + "-journal"));
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
}  // namespace mpgemm
