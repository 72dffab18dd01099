// A results database from elsewhere is untrusted input (issue 57): its schema is checked against what its version
// defines, by the SQL of every table, index, view and trigger, before a writer writes and before a reader reads. A
// planted trigger, a redefined view (one ordered slowest first, one that never ends) or a table of the file's own is
// refused in one line naming it, and the file is left as it was; an index a user added and ANALYZE's statistics may
// stay. A time that is not a number is an error naming its row, not a row the views quietly sort last.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "store/merge.hpp"
#include "store/schema.hpp"
#include "store/schema_check.hpp"
#include "store/shape_winners.hpp"
#include "store/store.hpp"
#include "support/old_database.hpp"
#include "support/store_fixture.hpp"

namespace mpgemm {
namespace {

namespace fs = std::filesystem;

const fs::path kDb = fs::path(MPGEMM_SOURCE_DIR) / "tests/data/db/h200_rerank_three_cubes.db";
// kDb's schema version (its user_version). A file is checked against its own version, before any migration, so the
// refusals below name this version whatever schema_version() this build has.
constexpr int kDbVersion = 12;

std::string bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Every file of the folder with a hash of its content (a failure prints hashes, not databases).
std::map<std::string, std::size_t> listing(const fs::path& dir) {
  std::map<std::string, std::size_t> files;
  for (const auto& e : fs::directory_iterator(dir))
    files[e.path().filename().string()] = std::hash<std::string>{}(bytes(e.path()));
  return files;
}

class SchemaTrust : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::per_test_dir();
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // A copy of the recorded H200 database (three re-ranked shapes), then `sql` run on it with plain SQLite.
  fs::path recorded(const std::string& name, const std::string& sql = {}) {
    const auto path = dir_ / name;
    fs::copy_file(kDb, path);
    if (!sql.empty()) testing::raw_exec(path, sql);
    return path;
  }

  // Opening `path` in `mode` is refused in one line naming the file and holding `text`; the folder is unchanged.
  void expect_refused(const fs::path& path, Store::Mode mode, const std::string& text) {
    SCOPED_TRACE(fmt::format("{} {}", path.filename().string(), mode == Store::Mode::read_write ? "writer" : "reader"));
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

// The trigger of the hostile-input run: on the next run's insert it deleted the earlier run's rows and tripled the
// winner's times, so that export and the library took another kernel. A resumed tune (like mpgemm-profile and
// merge into an existing OUT: every writer opens through Store::open) refuses the file before the first write.
TEST_F(SchemaTrust, APlantedTriggerIsRefusedBeforeAnythingIsWritten) {
  const auto path = recorded("trigger.db",
                             "CREATE TRIGGER after_run AFTER INSERT ON runs BEGIN "
                             "DELETE FROM measurements WHERE run_id < new.id; END;");
  const std::string named = fmt::format("a trigger 'after_run' on runs, which version {} does not define", kDbVersion);
  expect_refused_both(path, named);
  expect_refused(path, Store::Mode::read_write,
                 fmt::format("database is damaged (not the schema of version {}: ", kDbVersion) + named);
  // The reader says it did not read it; nothing in the message sends the user to a tool that would read it.
  expect_refused(path, Store::Mode::read_only, "it was not read");
}

TEST_F(SchemaTrust, MergeRefusesAPlantedTriggerInItsOutputAndInItsInputs) {
  const auto out =
      recorded("out.db", "CREATE TRIGGER notes AFTER INSERT ON runs BEGIN UPDATE runs SET notes = 'x'; END;");
  const auto input = dir_ / "in.db";
  { Store s = Store::open(input, Store::Mode::read_write); }
  const auto before = bytes(out);
  EXPECT_THROW(merge_databases(out, {input}), StoreError);
  EXPECT_EQ(bytes(out), before);
  const auto clean_out = dir_ / "clean.db";
  const auto hostile_input = recorded("hostile_in.db", "CREATE TRIGGER t AFTER INSERT ON configs BEGIN SELECT 1; END;");
  try {
    merge_databases(clean_out, {hostile_input});
    ADD_FAILURE() << "merged";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("a trigger 't' on configs"), std::string::npos) << e.what();
  }
}

// best_per_shape redefined slowest first: mpgemm-query, export, the library and mpgemm-run read it through a
// read-only Store, which now refuses it (the writer's check used to compare names only, and the readers none).
TEST_F(SchemaTrust, ARedefinedViewIsRefusedByReadersAndWriters) {
  const auto slowest = recorded("slowest.db",
                                "DROP VIEW best_per_shape; CREATE VIEW best_per_shape AS SELECT * FROM best "
                                "ORDER BY median_ms DESC;");
  expect_refused_both(slowest, fmt::format("view best_per_shape is not the one version {} defines", kDbVersion));
  // Comments and layout are no difference: the same view written on one line opens.
  const auto reflowed = dir_ / "reflowed.db";
  fs::copy_file(kDb, reflowed);
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(reflowed.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* q = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT sql FROM sqlite_schema WHERE name = 'winners'", -1, &q, nullptr),
              SQLITE_OK);
    ASSERT_EQ(sqlite3_step(q), SQLITE_ROW);
    const std::string sql = reinterpret_cast<const char*>(sqlite3_column_text(q, 0));
    sqlite3_finalize(q);
    sqlite3_close(db);
    std::string flat = "/* reflowed */ " + store_detail::normalised_sql(sql);
    testing::raw_exec(reflowed, "DROP VIEW winners; " + flat + ";");
  }
  EXPECT_NO_THROW(Store::open(reflowed, Store::Mode::read_only));
  EXPECT_EQ(shape_winners(Store::open(reflowed, Store::Mode::read_only)).size(), 3u);
}

// A view that never ends used to hang mpgemm_open, export, the views and mpgemm-run; it is refused from the schema
// alone, at once.
TEST_F(SchemaTrust, AnEndlessViewIsRefusedWithoutRunningIt) {
  const auto endless = recorded(
      "endless.db",
      "DROP VIEW winners; CREATE VIEW winners AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
      "SELECT * FROM best, n;");
  const auto start = std::chrono::steady_clock::now();
  expect_refused_both(endless, fmt::format("view winners is not the one version {} defines", kDbVersion));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST_F(SchemaTrust, ATableOrViewOfTheFilesOwnIsRefused) {
  expect_refused_both(recorded("view.db", "CREATE VIEW my_runs AS SELECT id FROM runs;"),
                      fmt::format("a view 'my_runs', which version {} does not define", kDbVersion));
  expect_refused_both(recorded("table.db", "CREATE TABLE my_notes (t TEXT);"),
                      fmt::format("a table 'my_notes', which version {} does not define", kDbVersion));
  expect_refused_both(recorded("unique.db", "CREATE UNIQUE INDEX one_run ON measurements (id, status);"),
                      "a UNIQUE index 'one_run' on measurements");
  // A table changed in what its columns do not show (a CHECK dropped) is named too.
  expect_refused_both(recorded("check.db",
                               "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = replace(sql, "
                               "'CHECK (settled_ms IS NULL OR settled_ms >= 0)', '') WHERE name = 'reranks';"),
                      fmt::format("table reranks is not as version {} defines it", kDbVersion));
  // Names from the file are quoted escaped: the refusal stays one line.
  expect_refused_both(recorded("newline.db", "CREATE VIEW \"a\nb\" AS SELECT 1;"), "a view 'a\\nb'");
}

// An index a user added and ANALYZE's statistics change how a query runs, never what it returns: readers and
// writers open the file and the writer records into it.
TEST_F(SchemaTrust, AUserIndexAndAnalyzeStatisticsMayStay) {
  const auto path = recorded("indexed.db", "CREATE INDEX by_status ON measurements (status, median_ms); ANALYZE;");
  EXPECT_EQ(shape_winners(Store::open(path, Store::Mode::read_only)).size(), 3u);
  Store store = Store::open(path, Store::Mode::read_write);
  RunInfo info;
  info.argv = {"mpgemm-tune"};
  store.end_run(store.begin_run(info), "finished");
}

// Every version the readers accept, in every form an mpgemm wrote it, is its own schema: readers open it, and a
// writer opens all but the first form of schema 1 (which lacks a column the writer fills).
TEST_F(SchemaTrust, EveryVersionInEveryFormPassesTheCheck) {
  for (int version = 1; version <= schema_version(); ++version) {
    SCOPED_TRACE(fmt::format("version {}", version));
    const auto plain = dir_ / fmt::format("v{}.db", version);
    testing::database_at_version(plain, version);
    EXPECT_NO_THROW(Store::open(plain, Store::Mode::read_only));
    EXPECT_NO_THROW(Store::open(plain, Store::Mode::read_write));
    const auto first = dir_ / fmt::format("v{}_first.db", version);
    testing::database_at_first_form(first, version);
    EXPECT_NO_THROW(Store::open(first, Store::Mode::read_only));
    expect_refused(first, Store::Mode::read_write, "compilations");
  }
}

// median_ms as text in a table whose STRICT was edited away and back: the views sort text after every number, so
// that measurement would lose without a word. The readers' winners refuse the file naming the row.
TEST_F(SchemaTrust, TextWhereATimeBelongsNamesItsRow) {
  const auto path = recorded("text.db",
                             "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = replace(sql, ') STRICT', "
                             "')') WHERE name = 'measurements';");
  testing::raw_exec(path,
                    "UPDATE measurements SET median_ms = 'fast' WHERE id = (SELECT min(id) FROM measurements WHERE "
                    "status = 'ok');");
  testing::raw_exec(path,
                    "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = sql || ' STRICT' WHERE name = "
                    "'measurements';");
  const Store store = Store::open(path, Store::Mode::read_only);  // the schema is its version's again
  try {
    shape_winners(store);
    ADD_FAILURE() << "read";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("measurement 3: its median_ms is text, not a number"), std::string::npos)
        << e.what();
  }
}

TEST(SchemaTrustFixture, TheRecordedDatabaseIsAtTheVersionTheRefusalsName) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(kDb.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* q = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &q, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(q), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(q, 0), kDbVersion);
  sqlite3_finalize(q);
  sqlite3_close(db);
}

TEST(NormalisedSql, SetsCommentsAndLayoutAsideButNotQuotedText) {
  using store_detail::normalised_sql;
  EXPECT_EQ(normalised_sql("CREATE TABLE t (\n  a TEXT,  -- note, (with brackets)\n  b /* x */ INTEGER\n) STRICT"),
            "CREATE TABLE t(a TEXT,b INTEGER)STRICT");
  EXPECT_EQ(normalised_sql("CREATE TABLE t(a TEXT,b INTEGER)STRICT"), "CREATE TABLE t(a TEXT,b INTEGER)STRICT");
  EXPECT_EQ(normalised_sql("SELECT 'a -- b  /* c */', \"x  \"\"y\", [p  q]"),
            "SELECT 'a -- b  /* c */',\"x  \"\"y\",[p  q]");
  EXPECT_EQ(normalised_sql("SELECT 'it''s  --'  FROM t"), "SELECT 'it''s  --' FROM t");
  EXPECT_NE(normalised_sql("SELECT a FROM t ORDER BY m"), normalised_sql("SELECT a FROM t ORDER BY m DESC"));
  EXPECT_EQ(normalised_sql("SELECT 'open"), "SELECT 'open");  // an unterminated quote ends at the end
}

}  // namespace
}  // namespace mpgemm
