// mpgemm-report on a database from elsewhere (issue 57, item 10): it keeps the C++ readers' promises. A planted
// trigger, a redefined view (one that never finishes among them) or a view replaced by a table is refused in one
// line before anything runs; text where a number belongs, params that are not a flat JSON object (100,000 deep)
// and a BM that is not a number are errors naming the row; a shape beyond SQLite's integers is a usage error. Never a
// Python traceback, and the file is left as it was.
#include <gtest/gtest.h>

#include "reliability/replay_fixture.hpp"
#include "support/report_check.hpp"

namespace mpgemm::testing {
namespace {

namespace fs = std::filesystem;

class ReportHostile : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    recorded_ = new fs::path(fresh_dir("report_hostile_recorded") / "recorded.db");
    make_recorded_db(*recorded_);
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(recorded_->parent_path(), ec);
    delete recorded_;
  }
  void SetUp() override {
    dir_ = fresh_dir(std::string("report_hostile_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    db_ = dir_ / "hostile.db";
    fs::copy_file(*recorded_, db_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // The report on db_ (within 60 s: a view that never finishes must not be run), expected to fail with exit 1 and
  // one line holding `says`; the file unchanged and nothing left beside it.
  void expect_refused(const std::string& says, const std::string& args = "") {
    const std::string before = bytes_of(db_);
    const auto r = run_command(fmt::format("timeout 60 {} '{}' -o '{}' {}", bin("mpgemm-report"), db_.string(),
                                           (dir_ / "out").string(), args));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_EQ(r.output.find("Traceback"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(says), std::string::npos) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
    EXPECT_EQ(bytes_of(db_), before);
    for (const char* side : {"-wal", "-shm", "-journal"}) EXPECT_FALSE(fs::exists(db_.string() + side)) << side;
  }

  static fs::path* recorded_;
  fs::path dir_, db_;
};

fs::path* ReportHostile::recorded_ = nullptr;

TEST_F(ReportHostile, APlantedTriggerIsRefused) {
  sql_exec(db_, "CREATE TRIGGER planted AFTER INSERT ON runs BEGIN DELETE FROM measurements; END");
  expect_refused("a trigger 'planted' on runs");
}

TEST_F(ReportHostile, ARedefinedViewIsRefusedAndNeverRun) {
  sql_exec(db_,
           "DROP VIEW best_per_shape; CREATE VIEW best_per_shape AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL "
           "SELECT i + 1 FROM n) SELECT i AS device_name FROM n");
  expect_refused("best_per_shape");
}

TEST_F(ReportHostile, AViewReplacedByATableIsRefused) {
  sql_exec(db_, "DROP VIEW best_per_shape; CREATE TABLE best_per_shape (device_name TEXT)");
  expect_refused("best_per_shape");
}

// median_ms as text in a table whose STRICT was edited away and back: the schema is its version's again.
TEST_F(ReportHostile, TextWhereATimeBelongsNamesItsRow) {
  sql_exec(db_,
           "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = replace(sql, ') STRICT', ')') WHERE name = "
           "'measurements'");
  sql_exec(db_,
           "UPDATE measurements SET median_ms = 'fast' WHERE id = (SELECT min(id) FROM measurements WHERE "
           "status = 'ok')");
  sql_exec(db_,
           "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = sql || ' STRICT' WHERE name = "
           "'measurements'");
  const auto id = sql_text(db_, "SELECT min(id) FROM measurements WHERE status = 'ok'");
  expect_refused(fmt::format("table measurements, row {}: its median_ms is text ('fast'), not a number", id));
}

TEST_F(ReportHostile, DeepParamsNameTheirConfig) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  // Past the table's CHECK (json_valid, which refuses JSON deeper than 1,000 levels), as a hand edit can go.
  sql_exec(db_, fmt::format("PRAGMA ignore_check_constraints = ON; UPDATE configs SET params = '{{\"BM\": {}}}' WHERE "
                            "id = (SELECT config_id FROM "
                            "measurements WHERE status = 'ok' ORDER BY id LIMIT 1)",
                            deep));
  const auto name = sql_text(db_,
                             "SELECT c.name FROM configs AS c JOIN measurements AS m ON m.config_id = c.id "
                             "WHERE m.status = 'ok' ORDER BY m.id LIMIT 1");
  expect_refused(fmt::format("config {}: its params are not a flat JSON object", name), "--sections roofline");
}

// A problem the schema's CHECK admits but that names no kind, and one planted past the CHECK with a newline and an
// escape sequence: each names its row, in one line, before any section groups by it.
TEST_F(ReportHostile, AProblemThatNamesNoKindNamesItsRow) {
  const auto id = sql_text(db_, "SELECT min(id) FROM measurements");
  sql_exec(db_, fmt::format("UPDATE measurements SET problem = 'mk_kn_fp16_fp64' WHERE id = {}", id));
  expect_refused(
      fmt::format("table measurements, row {}: its problem is no problem kind: 'mk_kn_fp16_fp64' is none of the "
                  "48 kinds mpgemm-query --problem-kinds lists",
                  id));
  sql_exec(db_, fmt::format("PRAGMA ignore_check_constraints = ON; UPDATE measurements SET problem = "
                            "'mk_kn' || char(10) || char(27) || '[2J' WHERE id = {}",
                            id));
  expect_refused(
      fmt::format("table measurements, row {}: its problem is no problem kind: 'mk_kn\\n\\x1b[2J' is none of "
                  "the 48 kinds",
                  id));
}

TEST_F(ReportHostile, ATileThatIsNotANumberNamesItsConfig) {
  sql_exec(db_,
           "UPDATE configs SET params = json_set(params, '$.BM', 'wide') WHERE id = (SELECT config_id FROM "
           "measurements WHERE status = 'ok' ORDER BY id LIMIT 1)");
  expect_refused("BM is 'wide', not a positive whole number", "--sections roofline");
}

TEST_F(ReportHostile, AShapeBeyondSqlitesIntegersIsAUsageError) {
  const auto r = run_report(db_, dir_ / "out", "--shape 100000000000000000000x1x1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.output.find("Traceback"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("positive integers of at most 9223372036854775807"), std::string::npos) << r.output;
}

// A device name with a newline and an escape sequence reaches neither the terminal nor a message raw.
TEST_F(ReportHostile, ADeviceNameCannotSplitAMessage) {
  const auto r = run_report(db_, dir_ / "out", "--device \"$(printf 'H200\\n\\033[2Jx')\"");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(r.output.find('\033'), std::string::npos) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  EXPECT_NE(r.output.find("nothing measured for H200\\n\\x1b[2Jx"), std::string::npos) << r.output;
}

// Standard output that cannot be written (a full disk) is an error, not a report said to be written.
TEST_F(ReportHostile, AFailedWriteToStandardOutputIsAnError) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  // Braces: run_command sends the group's standard error to its pipe, the report's standard output to /dev/full.
  const auto r = run_command(fmt::format("{{ {} '{}' -o '{}' --sections outcomes > /dev/full; }}", bin("mpgemm-report"),
                                         db_.string(), (dir_ / "out").string()));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("standard output"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("Traceback"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace mpgemm::testing
