// Issue 57, items 4, 5 and 7, through the executables: a FIFO given as any input is refused at once in one line
// (its open would wait for a writer forever); no output goes onto a database's -wal, -shm or -journal; and an output
// that cannot be written whole (/dev/full: every write fails with ENOSPC), standard output included, is an error.
#include <sys/stat.h>
#include <sys/types.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "store/store.hpp"
#include "support/export_fixture.hpp"
#include "support/old_database.hpp"
#include "support/run_command.hpp"

namespace mpgemm::testing {
namespace {

namespace fs = std::filesystem;

// A regression hangs; `timeout` turns it into exit 124 and a failed test.
constexpr const char* kPrompt = "timeout 10 ";

std::size_t lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

class CliUntrustedPaths : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_dir(std::string("untrusted_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

// Every tool, every input: a FIFO is refused promptly in one line that names it, never "internal error".
TEST_F(CliUntrustedPaths, AFifoAsAnyInputIsRefusedPromptly) {
  const fs::path fifo = dir_ / "f.db";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const fs::path db = dir_ / "r.db";
  write_export_db(db);
  const std::string space = source("tests/reliability/data/replay_space.json");
  const std::string f = "'" + fifo.string() + "'", d = dir_.string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"query", fmt::format("{} {} runs", bin("mpgemm-query"), f)},
      {"query --dump", fmt::format("{} {} --dump", bin("mpgemm-query"), f)},
      {"query --sql", fmt::format("{} {} --sql 'SELECT 1'", bin("mpgemm-query"), f)},
      {"export", fmt::format("{} {} -o '{}/w.json'", bin("mpgemm-export"), f, d)},
      {"merge input", fmt::format("{} merge '{}/m.db' {}", bin("mpgemm-query"), d, f)},
      {"merge OUT", fmt::format("{} merge {} '{}'", bin("mpgemm-query"), f, db.string())},
      {"strategies evaluate", fmt::format("{} evaluate {} {}", bin("mpgemm-strategies"), f, space)},
      {"strategies space", fmt::format("{} evaluate '{}' {}", bin("mpgemm-strategies"), db.string(), f)},
      {"run --config best", fmt::format("{} --db {} --config best", bin("mpgemm-run"), f)},
      {"tune space", fmt::format("{} {} --db '{}/t.db' --dry-run", bin("mpgemm-tune"), f, d)},
      {"tune --shapes", fmt::format("{} {} --shapes {} --db '{}/t.db' --dry-run", bin("mpgemm-tune"), space, f, d)},
      {"tune --replay", fmt::format("{} {} --replay {} --db '{}/t.db' --dry-run", bin("mpgemm-tune"), space, f, d)},
      {"tune --leaders-from",
       fmt::format("{} {} --leaders-from {} --db '{}/t.db' --dry-run", bin("mpgemm-tune"), space, f, d)},
      {"tune --db", fmt::format("{} {} --db {} --dry-run", bin("mpgemm-tune"), space, f)},
      {"report", fmt::format("{} {} -o '{}/out'", bin("mpgemm-report"), f, d)},
  };
  for (const auto& [name, command] : cases) {
    SCOPED_TRACE(name);
    const auto r = run_command(kPrompt + command);
    EXPECT_NE(r.exit_code, 124) << "it waited on the FIFO";
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(fifo.string()), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("FIFO"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("internal error"), std::string::npos) << r.output;
    // One line, and for an option's value the pointer to --help after it.
    const std::size_t help = r.output.find("\nRun '") != std::string::npos ? 1 : 0;
    if (name != "report") EXPECT_EQ(lines(r.output), 1u + help) << r.output;
  }
}

// `mpgemm-export lw.db -o lw.db-wal` while a tuner records, then the tuner killed, lost every committed row. No
// output goes onto a name SQLite takes as a database's side file; the refusal is the command line's (exit 2).
TEST_F(CliUntrustedPaths, NoOutputGoesOntoADatabasesSideFiles) {
  const fs::path db = dir_ / "lw.db";
  write_export_db(db);
  const std::string space = source("tests/reliability/data/replay_space.json");
  for (const char* side : {"-wal", "-shm", "-journal"}) {
    const fs::path out = db.string() + side;
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"export -o", fmt::format("{} '{}' -o '{}'", bin("mpgemm-export"), db.string(), out.string())},
        {"merge OUT", fmt::format("{} merge '{}' '{}'", bin("mpgemm-query"), out.string(), db.string())},
        {"tune --db", fmt::format("{} {} --db '{}' --dry-run", bin("mpgemm-tune"), space, out.string())},
    };
    for (const auto& [name, command] : cases) {
      SCOPED_TRACE(fmt::format("{} {}", name, out.string()));
      const auto r = run_command(kPrompt + command);
      EXPECT_EQ(r.exit_code, 2) << r.output;
      EXPECT_EQ(lines(r.output), 1u) << r.output;
      EXPECT_NE(r.output.find(fmt::format("cannot write {}: it is a side file SQLite keeps beside the database {}",
                                          out.string(), db.string())),
                std::string::npos)
          << r.output;
      EXPECT_FALSE(fs::exists(out));
    }
  }
  // /dev/null as --db would have SQLite write /dev/null-journal: a database is a regular file.
  const auto null_db = run_command(fmt::format("{}{} {} --db /dev/null --dry-run", kPrompt, bin("mpgemm-tune"), space));
  EXPECT_EQ(null_db.exit_code, 1) << null_db.output;
  EXPECT_EQ(null_db.output,
            "mpgemm-tune: error: database /dev/null: it is not a regular file (a FIFO, a socket or a "
            "device), not a database file\n");
  // A name that only ends like one, with no database beside it, is an ordinary output.
  const fs::path plain = dir_ / "notes-wal";
  const auto ok = run_command(fmt::format("{} '{}' -o '{}'", bin("mpgemm-export"), db.string(), plain.string()));
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
}

// `mpgemm-query suite.db --dump > full/d.txt` exited 0 with a fraction written: every output that cannot be written,
// standard output included, is an error (exit 1) naming it.
TEST_F(CliUntrustedPaths, AnOutputOnAFullDiskIsAnError) {
  const fs::path db = dir_ / "r.db";
  write_export_db(db);
  const std::string space = source("tests/reliability/data/replay_space.json");
  const std::vector<std::pair<std::string, std::string>> to_stdout = {
      {"query --dump", fmt::format("{} '{}' --dump", bin("mpgemm-query"), db.string())},
      {"query best", fmt::format("{} '{}' best", bin("mpgemm-query"), db.string())},
      {"query csv", fmt::format("{} '{}' configs --format csv", bin("mpgemm-query"), db.string())},
      {"query --sql", fmt::format("{} '{}' --sql 'SELECT 1' --format csv", bin("mpgemm-query"), db.string())},
      {"query --schema", fmt::format("{} --schema", bin("mpgemm-query"))},
      {"query --help", fmt::format("{} --help", bin("mpgemm-query"))},
      {"export json", fmt::format("{} '{}'", bin("mpgemm-export"), db.string())},
      {"export cpp", fmt::format("{} '{}' --format cpp", bin("mpgemm-export"), db.string())},
      {"merge", fmt::format("{} merge '{}/m.db' '{}'", bin("mpgemm-query"), dir_.string(), db.string())},
      {"strategies list", fmt::format("{} list", bin("mpgemm-strategies"))},
      {"tune --dry-run", fmt::format("{} {} --db '{}/t.db' --dry-run", bin("mpgemm-tune"), space, dir_.string())},
  };
  for (const auto& [name, command] : to_stdout) {
    SCOPED_TRACE(name);
    const auto r = run_command(fmt::format("({}{} >/dev/full)", kPrompt, command));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    // --sql's printer says it itself, as the rows come ("cannot write the rows: ...").
    EXPECT_NE(
        r.output.find(name == "query --sql" ? "error: cannot write the rows" : "error: cannot write standard output"),
        std::string::npos)
        << r.output;
    EXPECT_EQ(lines(r.output), 1u) << r.output;
  }
  for (const char* format : {"json", "cpp"}) {
    SCOPED_TRACE(fmt::format("export --format {} -o /dev/full", format));
    const auto r = run_command(
        fmt::format("{}{} '{}' --format {} -o /dev/full", kPrompt, bin("mpgemm-export"), db.string(), format));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_EQ(lines(r.output), 1u) << r.output;
    EXPECT_NE(r.output.find("cannot write /dev/full: No space left on device"), std::string::npos) << r.output;
  }
}

// Issue 57, item 6: merge migrated an older input into `$TMPDIR/mpgemm-merge-PID-0.db`, a name anyone could plant a
// symlink at. The copy is now created exclusively (mkstemp) beside OUT: a TMPDIR that does not exist is no obstacle,
// and nothing is left beside OUT.
TEST_F(CliUntrustedPaths, MergeMakesItsTemporaryCopiesBesideTheOutput) {
  const fs::path in = dir_ / "old.db";
  database_at_version(in, 1, kRowsOfEveryVersion);
  fs::create_directories(dir_ / "out");
  const auto r = run_command(fmt::format("{}env TMPDIR='{}/missing' {} merge '{}/out/m.db' '{}'", kPrompt,
                                         dir_.string(), bin("mpgemm-query"), dir_.string(), in.string()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("migrated to"), std::string::npos) << r.output;
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir_ / "out")) left.push_back(e.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"m.db"});
  EXPECT_FALSE(fs::exists(dir_ / "missing"));
}

}  // namespace
}  // namespace mpgemm::testing
