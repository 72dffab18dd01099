// The exit-code rule of src/cli/guarded_main.hpp, error type by error type: a refusal of the user's input (the
// command line, an output that is one of the inputs or a database, a space, shape or exported file that cannot be
// read) is exit 2 in one line; a failure while working (a database, a run) is 1; no device is 3. InputFileError
// and OutputRefused were exit 1, against the promise of "one line and exit 2" for bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "cli/guarded_main.hpp"
#include "common/bounded_input.hpp"
#include "common/error.hpp"
#include "common/refusal.hpp"
#include "common/writable.hpp"
#include "store/store.hpp"
#include "support/run_command.hpp"

namespace mpgemm {
namespace {

namespace fs = std::filesystem;

struct Outcome {
  int code = -1;
  std::string err;  // what guarded_main printed on stderr
};

// guarded_main of a tool whose body throws `thrown`.
Outcome run_throwing(const std::function<void()>& thrown) {
  const cli::ArgParser parser("mpgemm-test", "a test", "A tool whose body throws.");
  const char* argv[] = {"mpgemm-test"};
  ::testing::internal::CaptureStderr();
  Outcome o;
  o.code = cli::guarded_main(parser, 1, argv, [&](const cli::ParsedArgs&) {
    thrown();
    return cli::kExitOk;
  });
  o.err = ::testing::internal::GetCapturedStderr();
  return o;
}

TEST(CliExitCodes, EachErrorTypeHasItsCodeAndOneLine) {
  const auto dir = testing::fresh_dir("cli_exit_codes");
  const Outcome missing = run_throwing([&] { read_bounded_file(dir / "none.json", "exported file"); });
  EXPECT_EQ(missing.code, cli::kExitBadInput);
  EXPECT_EQ(missing.err,
            "mpgemm-test: error: " + (dir / "none.json").string() + ": cannot read the exported file: no such file\n");

  const Outcome endless = run_throwing([] { read_bounded_file("/dev/zero", "shape file"); });
  EXPECT_EQ(endless.code, 2);
  EXPECT_EQ(endless.err,
            "mpgemm-test: error: /dev/zero: the shape file is larger than 64 MiB (is it the right file?)\n");

  const fs::path db = dir / "r.db";
  std::ofstream(db, std::ios::binary) << std::string("SQLite format 3\0", 16);
  const Outcome over = run_throwing([&] { require_safe_output(db, {{"the database", db}}); });
  EXPECT_EQ(over.code, 2);
  EXPECT_EQ(over.err, fmt::format("mpgemm-test: error: cannot write {}: it is the database {}, which this command "
                                  "reads; choose another output file\n",
                                  db.string(), db.string()));
  const Outcome other_db = run_throwing([&] { require_safe_output(db, {{"the space", dir / "space.json"}}); });
  EXPECT_EQ(other_db.code, 2);
  EXPECT_NE(other_db.err.find(": it is an SQLite database"), std::string::npos) << other_db.err;

  // A folder that does not exist is the machine's state, not the command line's: a failure.
  const Outcome no_folder = run_throwing([&] { require_writable_output(dir / "no" / "t.md"); });
  EXPECT_EQ(no_folder.code, cli::kExitFailure);
  EXPECT_NE(no_folder.err.find("does not exist"), std::string::npos) << no_folder.err;

  const Outcome usage = run_throwing([] { throw UsageError("--calls must be a positive integer"); });
  EXPECT_EQ(usage.code, 2);
  EXPECT_EQ(usage.err,
            "mpgemm-test: error: --calls must be a positive integer\nRun 'mpgemm-test --help' for the options.\n");
  const Outcome space = run_throwing([] { throw SpaceError("s.json", 3, 4, "/family", "unknown family"); });
  EXPECT_EQ(space.code, 2);
  EXPECT_EQ(space.err, std::string(SpaceError("s.json", 3, 4, "/family", "unknown family").what()) + "\n");

  const Outcome store = run_throwing([] { throw StoreError("r.db", 11, "database disk image is malformed"); });
  EXPECT_EQ(store.code, cli::kExitFailure);
  EXPECT_TRUE(store.err.starts_with("mpgemm-test: error: ")) << store.err;
  EXPECT_EQ(run_throwing([] { throw Error("no verified config"); }).code, 1);
  EXPECT_EQ(run_throwing([] { throw NoDeviceError("no CUDA device"); }).code, cli::kExitNoDevice);
  EXPECT_EQ(run_throwing([] { throw std::runtime_error("bug"); }).code, 1);
  fs::remove_all(dir);
}

// SQL the guard refuses is a bad --sql value: exit 2, one line; SQL the database cannot run (an unknown table) and a
// query past its time limit are failures of the work: exit 1.
TEST(CliExitCodes, RefusedSqlIsBadInputAFailedQueryIsAFailure) {
  const auto dir = testing::fresh_dir("cli_exit_codes_sql");
  const fs::path db = dir / "r.db";
  { Store s = Store::open(db, Store::Mode::read_write); }
  const std::string before = testing::read_file(db);
  for (const std::string sql : {"ATTACH DATABASE ':memory:' AS x", "PRAGMA user_version = 7",
                                "SELECT 1; DELETE FROM runs", "DELETE FROM runs", "SELECT fts3_tokenizer('simple')"}) {
    SCOPED_TRACE(sql);
    const auto r =
        testing::run_command(fmt::format("{} {} --sql \"{}\"", testing::bin("mpgemm-query"), db.string(), sql));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(r.output.starts_with("mpgemm-query: error: query refused: ")) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  }
  EXPECT_EQ(testing::read_file(db), before);
  const auto unknown = testing::run_command(
      fmt::format("{} {} --sql 'SELECT * FROM no_such_table'", testing::bin("mpgemm-query"), db.string()));
  EXPECT_EQ(unknown.exit_code, 1) << unknown.output;
  EXPECT_EQ(run_throwing([] { throw InputRefused("query refused: it is empty"); }).code, 2);
  fs::remove_all(dir);
}

// mpgemm-profile's CSV is an input file: missing, a folder, not ncu's CSV or without a kernel is exit 2 in one line
// naming it; a database in a folder that may not be entered is one line too, never an internal error.
TEST(CliExitCodes, AProfileCsvThatCannotBeReadIsBadInput) {
  const auto dir = testing::fresh_dir("cli_exit_codes_profile");
  std::ofstream(dir / "not_ncu.csv") << "a,b,c\n1,2,3\n";
  std::ofstream(dir / "header_only.csv") << "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
  const std::string tail = " --label x --M 64 --N 64 --K 64";
  for (const auto& [csv, says] :
       std::vector<std::pair<fs::path, std::string>>{{dir / "none.csv", "cannot read the ncu CSV: no such file"},
                                                     {dir, "cannot read the ncu CSV: it is a folder"},
                                                     {dir / "not_ncu.csv", "no ncu CSV header"},
                                                     {dir / "header_only.csv", "the ncu CSV has no profiled kernel"}}) {
    SCOPED_TRACE(csv.string());
    const auto r = testing::run_command(
        fmt::format("{} {} {}{}", testing::bin("mpgemm-profile"), (dir / "p.db").string(), csv.string(), tail));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(r.output.starts_with("mpgemm-profile: error: " + csv.string() + ": ")) << r.output;
    EXPECT_NE(r.output.find(says), std::string::npos) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  }
  EXPECT_FALSE(fs::exists(dir / "p.db")) << "nothing is created for a refused input";
  fs::remove_all(dir);
}

// The rule is printed at the end of every --help.
TEST(CliExitCodes, HelpEndsWithTheRule) {
  for (const char* tool : {"mpgemm-tune", "mpgemm-query", "mpgemm-export", "mpgemm-run"}) {
    const auto r = testing::run_command(testing::bin(tool) + " --help");
    EXPECT_EQ(r.exit_code, 0) << tool;
    EXPECT_TRUE(r.output.ends_with(std::string(cli::kExitStatusHelp))) << tool << ":\n" << r.output;
  }
}

}  // namespace
}  // namespace mpgemm
