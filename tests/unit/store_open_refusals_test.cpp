// Files a Store refuses: a header no mpgemm wrote, another application's database, a damaged database, one whose
// schema is not its version's. Each refusal is one line naming the file and what is wrong, and it comes before
// anything is written: the refused file is left byte for byte as it was, with no -wal or -shm beside it, whether
// the open was read-write or read-only.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "common/error.hpp"
#include "store/schema.hpp"
#include "store/store.hpp"
#include "support/old_database.hpp"
#include "support/store_fixture.hpp"

namespace mpgemm {
namespace {

namespace fs = std::filesystem;

std::string bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void put_bytes(const fs::path& path, const std::string& content) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
}

// Every file of the folder with its content; a -shm only by name (a reader may take a read mark there).
std::map<std::string, std::string> listing(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    files[name] = name.ends_with("-shm") ? std::string("(index)") : bytes(e.path());
  }
  return files;
}

class StoreOpenRefusals : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::per_test_dir();
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // A closed database of the current schema with two runs.
  fs::path database(const std::string& name) {
    const auto path = dir_ / name;
    {
      Store store = Store::open(path, Store::Mode::read_write);
      RunInfo info;
      info.argv = {"mpgemm-tune"};
      store.end_run(store.begin_run(info), "finished");
      store.begin_run(info);
    }
    fs::remove(path.string() + "-claims");  // begin_run's lock file: only the database is compared
    return path;
  }

  // Opens `path` in `mode` expecting a refusal: one line naming the file and containing `text`, the folder left
  // exactly as it was.
  void expect_refused(const fs::path& path, Store::Mode mode, const std::string& text) {
    SCOPED_TRACE(
        fmt::format("{} {}", path.filename().string(), mode == Store::Mode::read_write ? "read-write" : "read-only"));
    const auto before = listing(dir_);
    try {
      Store::open(path, mode);
      ADD_FAILURE() << "opened";
    } catch (const StoreError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(text), std::string::npos) << what;
      EXPECT_TRUE(what.starts_with("database " + path.string() + ": ")) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
    EXPECT_EQ(listing(dir_), before) << "the folder changed";
  }
  void expect_refused_both(const fs::path& path, const std::string& text) {
    expect_refused(path, Store::Mode::read_write, text);
    expect_refused(path, Store::Mode::read_only, text);
  }

  fs::path dir_;
};

// A user_version that no mpgemm ever wrote (negative, zero beside our application id) is a damaged or edited
// header: refused at once, not migrated from (which failed with "table runs already exists" after the WAL switch
// had changed the header).
TEST_F(StoreOpenRefusals, AVersionNoMpgemmWroteIsRefusedUnchanged) {
  for (const int version : {-1, -2147483647 - 1, 0}) {
    const auto path = database(fmt::format("v{}.db", version));
    testing::raw_exec(path, fmt::format("PRAGMA user_version = {}", version));
    expect_refused_both(path, fmt::format("database schema version {} is none that mpgemm ever wrote (1 to {})",
                                          version, schema_version()));
  }
}

// A version lowered under a newer file's schema (issue 57, item 12): a version-12 file set to 5 was migrated from 5,
// and a migration's SQL failed. The schema check before any read or write refuses it in one line naming the file
// and the version its tables do not match, read-write or read-only, and the file is left as it was.
TEST_F(StoreOpenRefusals, ALoweredVersionIsRefusedUnchanged) {
  for (const int version : {5, schema_version() - 1}) {
    const auto path = database(fmt::format("lowered{}.db", version));
    testing::raw_exec(path, fmt::format("PRAGMA user_version = {}", version));
    expect_refused_both(path, fmt::format("not the schema of version {}", version));
  }
}

TEST_F(StoreOpenRefusals, ANewerVersionIsRefusedUnchanged) {
  const auto path = database("future.db");
  testing::raw_exec(path, fmt::format("PRAGMA user_version = {}", schema_version() + 1));
  expect_refused_both(path, "is newer than this mpgemm supports");
}

// Another application's database left in WAL mode with transactions in its -wal: a read-write open used to
// checkpoint them into the file as it closed (rewriting it, removing the -wal) although it refused the file.
TEST_F(StoreOpenRefusals, AForeignDatabaseInWalModeIsRefusedUnchanged) {
  const auto path = dir_ / "foreign.db";
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "PRAGMA journal_mode = WAL; CREATE TABLE notes (t TEXT); INSERT INTO notes VALUES ('a'), "
                         "('b');",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr), SQLITE_OK);
  sqlite3_close(db);
  ASSERT_TRUE(fs::exists(path.string() + "-wal"));
  expect_refused_both(path, "is not an mpgemm results database");
  fs::remove(path.string() + "-shm");  // as copied without its index
  expect_refused_both(path, "is not an mpgemm results database");
}

TEST_F(StoreOpenRefusals, FilesThatAreNoSqliteDatabaseAreRefusedUnchanged) {
  const auto text = dir_ / "notes.db";
  put_bytes(text, std::string(8192, 'x'));
  expect_refused_both(text, "is not an mpgemm results database");
  const auto truncated = database("truncated.db");
  put_bytes(truncated, bytes(truncated).substr(0, 50));  // shorter than a header
  expect_refused_both(truncated, "");
  // A zero-length file is refused by a reader and initialized by a writer (an empty database).
  const auto empty = dir_ / "empty.db";
  put_bytes(empty, "");
  expect_refused(empty, Store::Mode::read_only, "is not an mpgemm results database");
}

// The page size and the first cell of a table's root page (a leaf: the table is small), to damage its first row.
struct FirstRow {
  std::size_t record_header = 0;  // offset in the file of the record's header: its length, then the serial types
};

FirstRow first_row(const fs::path& path, const std::string& table) {
  const std::string file = bytes(path);
  const auto u16 = [&](std::size_t at) {
    return (static_cast<unsigned char>(file[at]) << 8) | static_cast<unsigned char>(file[at + 1]);
  };
  std::size_t page_size = u16(16);
  if (page_size == 1) page_size = 65536;
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, "SELECT rootpage FROM sqlite_schema WHERE name = ?1", -1, &stmt, nullptr);
  sqlite3_bind_text(stmt, 1, table.c_str(), -1, SQLITE_TRANSIENT);
  const std::size_t root =
      sqlite3_step(stmt) == SQLITE_ROW ? static_cast<std::size_t>(sqlite3_column_int64(stmt, 0)) : 0;
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  EXPECT_GT(root, 1u);
  const std::size_t page = (root - 1) * page_size;
  EXPECT_EQ(static_cast<unsigned char>(file[page]), 0x0d) << "a leaf page of a table";
  std::size_t at = page + u16(page + 8);  // the first cell: payload size, rowid, then the record
  for (int varint = 0; varint < 2; ++varint)
    while (static_cast<unsigned char>(file[at++]) & 0x80) {
    }
  return FirstRow{at};
}

// A database damaged the way a resumed tune must not write into: a row whose bytes SQLite reads, but not as the
// row that was written (a TEXT column now holding a blob), or a row SQLite cannot decode at all. A writer checks
// before its first write and refuses, naming what quick_check found and what to do; the file stays as it was.
// A reader still opens it (mpgemm-query --dump is how what is left can be saved).
TEST_F(StoreOpenRefusals, ADamagedDatabaseIsRefusedByAWriterUnchanged) {
  const auto typed = database("typed.db");
  {
    const FirstRow row = first_row(typed, "runs");
    std::string file = bytes(typed);
    // runs.started_at, the record's second value: a TEXT serial type (odd, >= 13) turned into a blob of its length.
    auto& serial = reinterpret_cast<unsigned char&>(file[row.record_header + 2]);
    ASSERT_TRUE(serial >= 13 && serial % 2 == 1 && serial < 128) << int(serial);
    serial -= 1;
    put_bytes(typed, file);
  }
  expect_refused(typed, Store::Mode::read_write,
                 "database is damaged (PRAGMA quick_check: non-TEXT value in runs.started_at); it was not written: "
                 "restore it from a copy, or save what can still be read with `mpgemm-query " +
                     typed.string() + " --dump`");
  EXPECT_NO_THROW(Store::open(typed, Store::Mode::read_only));

  const auto malformed = database("malformed.db");
  {
    const FirstRow row = first_row(malformed, "runs");
    std::string file = bytes(malformed);
    file[row.record_header] = 0x7f;  // a record header longer than the record
    put_bytes(malformed, file);
  }
  expect_refused(malformed, Store::Mode::read_write, "database is damaged (");
  try {
    Store::open(malformed, Store::Mode::read_write);
  } catch (const StoreError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find("database " + malformed.string(), 1), std::string::npos) << "the file named once: " << what;
    EXPECT_EQ(what.find("SQLite code", what.find("SQLite code") + 1), std::string::npos) << what;
  }
}

// A database whose tables are not its version's (an index dropped, a column dropped, a table gone: edited by hand,
// or by a tool that knew better) is refused by a writer: its inserts would fail half-way or land wrongly.
TEST_F(StoreOpenRefusals, ASchemaThatIsNotItsVersionsIsRefusedByAWriterUnchanged) {
  const std::vector<std::pair<std::string, std::string>> edits = {
      {"DROP INDEX measurements_by_run", "no index measurements_by_run"},
      {"ALTER TABLE measurements DROP COLUMN batches",
       "table measurements: column 38 is 'problem TEXT NOT NULL', expected 'batches TEXT'"},
      {"DROP INDEX cublas_timings_by_shape; ALTER TABLE cublas_timings DROP COLUMN problem",
       "table cublas_timings lacks column 'problem TEXT NOT NULL'"},
      {"ALTER TABLE runs ADD COLUMN extra TEXT", "table runs has a column its version lacks: 'extra TEXT'"},
      {"DROP VIEW winners", "no view winners"},
  };
  for (std::size_t i = 0; i < edits.size(); ++i) {
    const auto path = database(fmt::format("edited{}.db", i));
    testing::raw_exec(path, edits[i].first);
    expect_refused(
        path, Store::Mode::read_write,
        fmt::format("database is damaged (not the schema of version {}: {}", schema_version(), edits[i].second));
  }
  // An older version is checked against its own schema, and then migrated.
  const auto v5 = dir_ / "v5.db";
  testing::database_at_version(v5, 5);
  { Store store = Store::open(v5, Store::Mode::read_write); }
  const auto v5_edited = dir_ / "v5_edited.db";
  testing::database_at_version(v5_edited, 5, "DROP INDEX measurements_by_run;");
  expect_refused(v5_edited, Store::Mode::read_write, "not the schema of version 5: no index measurements_by_run");
  // An index of the user's own is no difference; a view or table of its own is (store_schema_trust_test).
  const auto own = database("own.db");
  testing::raw_exec(own, "CREATE INDEX my_runs ON runs (hostname);");
  { Store store = Store::open(own, Store::Mode::read_write); }
}

}  // namespace
}  // namespace mpgemm
