// Every reader of a results database, end to end: `mpgemm-query --dump` and `mpgemm-report` read every schema
// version the project ever wrote and leave the file byte for byte as it was; `--dump` names a damaged row and
// exits 1; a database that cannot be read is refused in one line naming the file and what is wrong, the same in
// mpgemm-query, mpgemm-export, merge, mpgemm-strategies, mpgemm-run and mpgemm-tune --replay.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "store/schema.hpp"
#include "support/old_database.hpp"
#include "support/report_check.hpp"
#include "support/run_command.hpp"

namespace mpgemm::testing {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

class Readers : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_dir(std::string("readers_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::permissions(dir_, fs::perms::all);  // nobody writes the outputs of the permission case here
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_ / "locked", fs::perms::owner_all, ec);
    fs::remove_all(dir_, ec);
  }
  fs::path dir_;
};

class EveryVersion : public Readers, public ::testing::WithParamInterface<int> {};

TEST_P(EveryVersion, DumpAndReportReadItWithoutWriting) {
  const int version = GetParam();
  const fs::path folder = dir_ / "db";
  fs::create_directories(folder);
  const fs::path db = folder / "r.db";
  database_at_version(db, version, kRowsOfEveryVersion);
  const auto before = folder_contents(folder);

  const auto dump = run_command(fmt::format("{} '{}' --dump", bin("mpgemm-query"), db.string()));
  EXPECT_EQ(dump.exit_code, 0) << dump.output;
  const auto lines = lines_of(dump.output);
  EXPECT_EQ(lines.size(), 5u) << dump.output;
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
    return l.starts_with("measurements|") && l.find("|result_key=t2:r1|") != std::string::npos;
  })) << dump.output;

  const auto report = run_report(db, dir_ / "out", "--sections ladder,outcomes");
  EXPECT_EQ(report.exit_code, 0) << report.output;
  const std::string md = read_file(dir_ / "out" / "report.md");
  EXPECT_NE(md.find(fmt::format("(schema version {}", version)), std::string::npos) << md.substr(0, 600);
  EXPECT_NE(drawn_numbers(dir_ / "out")["sections"]["ladder"]["numbers"].size(), 0u) << report.output;

  EXPECT_EQ(folder_contents(folder), before) << "the database folder changed (a -wal, -shm, journal or a write)";
}

// Version 1 as its first build wrote it (without compilations.dynamic_shared_bytes: old_database.hpp).
TEST_F(Readers, DumpAndReportReadTheFirstFormOfVersionOne) {
  const fs::path folder = dir_ / "db";
  fs::create_directories(folder);
  const fs::path db = folder / "r.db";
  database_at_first_form(db, 1, kRowsOfEveryVersion);
  const auto before = folder_contents(folder);
  const auto dump = run_command(fmt::format("{} '{}' --dump", bin("mpgemm-query"), db.string()));
  EXPECT_EQ(dump.exit_code, 0) << dump.output;
  EXPECT_EQ(lines_of(dump.output).size(), 5u) << dump.output;
  const auto report = run_report(db, dir_ / "out", "--sections ladder");
  EXPECT_EQ(report.exit_code, 0) << report.output;
  // The named queries select the column the first form lacked: it reads as not recorded.
  const auto compilations =
      run_command(fmt::format("{} '{}' compilations --format csv", bin("mpgemm-query"), db.string()));
  EXPECT_EQ(compilations.exit_code, 0) << compilations.output;
  EXPECT_NE(compilations.output.find("wmma_bm128"), std::string::npos) << compilations.output;
  const auto merged =
      run_command(fmt::format("{} merge '{}' '{}'", bin("mpgemm-query"), (dir_ / "merged.db").string(), db.string()));
  EXPECT_EQ(merged.exit_code, 0) << merged.output;
  EXPECT_EQ(folder_contents(folder), before);
}

INSTANTIATE_TEST_SUITE_P(Schemas, EveryVersion, ::testing::Range(1, schema_version() + 1),
                         [](const ::testing::TestParamInfo<int>& p) { return fmt::format("v{}", p.param); });

// A row that reads as NULL in NOT NULL columns: printed nowhere as content, named on stderr (table and rowid),
// the other rows printed, exit 1.
TEST_F(Readers, DumpNamesADamagedRowAndPrintsTheRest) {
  const fs::path db = dir_ / "r.db";
  database_at_version(db, schema_version(), kRowsOfEveryVersion);
  // The definition is put back as it was after the row is written: a schema that is not its version's is refused
  // whole (store_schema_trust_test), damage to a row is what this test is about.
  raw_exec(db,
           "CREATE TABLE saved AS SELECT sql FROM sqlite_schema WHERE name = 'configs'; "
           "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = replace(sql, 'NOT NULL', '') "
           "WHERE name = 'configs';");
  raw_exec(db, "PRAGMA ignore_check_constraints = ON; INSERT INTO configs (id, created_at) VALUES (7, NULL);");
  raw_exec(db,
           "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = (SELECT sql FROM saved) "
           "WHERE name = 'configs';");
  raw_exec(db, "DROP TABLE saved;");
  const auto out = run_command(fmt::format("({} '{}' --dump 2>/dev/null)", bin("mpgemm-query"), db.string()));
  EXPECT_EQ(out.exit_code, 1) << out.output;
  EXPECT_EQ(lines_of(out.output).size(), 5u) << out.output;
  EXPECT_EQ(out.output.find("|name=n|"), std::string::npos) << out.output;
  const auto err = run_command(fmt::format("({} '{}' --dump 2>&1 >/dev/null)", bin("mpgemm-query"), db.string()));
  const auto said = lines_of(err.output);
  ASSERT_EQ(said.size(), 2u) << err.output;
  EXPECT_EQ(said[0], fmt::format("mpgemm-query: warning: {}: damaged row left out of the dump: table configs, rowid "
                                 "7: NOT NULL constraint failed: configs.family",
                                 db.string()));
  EXPECT_NE(said[1].find("1 damaged row(s) left out of the dump"), std::string::npos) << said[1];
  const auto help = run_command(bin("mpgemm-query") + " --help");
  EXPECT_NE(help.output.find("damaged row"), std::string::npos) << help.output;
}

// The commands that read a database, each given `db`; `out` is a folder they may write in.
std::vector<std::pair<std::string, std::string>> readers(const fs::path& db, const fs::path& out) {
  return {
      {"mpgemm-query", fmt::format("{} '{}' runs", bin("mpgemm-query"), db.string())},
      {"mpgemm-query --dump", fmt::format("{} '{}' --dump", bin("mpgemm-query"), db.string())},
      {"mpgemm-export", fmt::format("{} '{}' -o '{}/w.json'", bin("mpgemm-export"), db.string(), out.string())},
      {"merge", fmt::format("{} merge '{}/m.db' '{}'", bin("mpgemm-query"), out.string(), db.string())},
      {"mpgemm-strategies evaluate", fmt::format("{} evaluate '{}' {}", bin("mpgemm-strategies"), db.string(),
                                                 source("tests/reliability/data/replay_space.json"))},
      {"mpgemm-run --config best", fmt::format("{} --db '{}' --config best", bin("mpgemm-run"), db.string())},
      {"mpgemm-run --rerank", fmt::format("{} --db '{}' --rerank 3", bin("mpgemm-run"), db.string())},
      {"replay --dry-run", fmt::format("{} {} --replay '{}' --db '{}/t.db' --dry-run", bin("mpgemm-tune"),
                                       source("tests/reliability/data/replay_space.json"), db.string(), out.string())},
      {"replay", fmt::format("{} {} --replay '{}' --db '{}/t.db'", bin("mpgemm-tune"),
                             source("tests/reliability/data/replay_space.json"), db.string(), out.string())},
  };
}

void expect_refusal(const std::string& command, const std::string& name, const std::string& says) {
  SCOPED_TRACE(name);
  const auto r = run_command(command);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(says), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("internal error"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("no such file"), std::string::npos) << r.output;
  EXPECT_EQ(lines_of(r.output).size(), 1u) << r.output;
}

// The database's folder is a regular file (ENOTDIR).
TEST_F(Readers, APathThroughAFileIsRefusedAlikeEverywhere) {
  std::ofstream(dir_ / "plain") << "a file, not a folder";
  const fs::path db = dir_ / "plain" / "r.db";
  for (const auto& [name, command] : readers(db, dir_))
    expect_refusal(command, name,
                   fmt::format("cannot read {}: {} is a file, not a folder", db.string(), (dir_ / "plain").string()));
}

// The database's folder may not be entered (chmod 000). Root is not stopped by permissions: as root, each command
// runs as nobody (setpriv).
TEST_F(Readers, AFolderThatMayNotBeEnteredIsRefusedAlikeEverywhere) {
  std::string as = "";
  if (::geteuid() == 0) {
    if (run_command("setpriv --help").exit_code != 0) GTEST_SKIP() << "root, and no setpriv to run as nobody";
    as = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
  }
  fs::create_directories(dir_ / "locked");
  database_at_version(dir_ / "locked" / "r.db", schema_version(), kRowsOfEveryVersion);
  fs::permissions(dir_ / "locked", fs::perms::none);
  const fs::path db = dir_ / "locked" / "r.db";
  for (const auto& [name, command] : readers(db, dir_))
    expect_refusal(as + command, name,
                   fmt::format("cannot read {}: permission denied: the folder {} may not be entered", db.string(),
                               (dir_ / "locked").string()));
}

}  // namespace
}  // namespace mpgemm::testing
