// Issue 48, items 1, 2 and 4, through the executables: no command writes over one of its inputs or over a
// database, a written output replaces the old one whole, an empty path is refused in every mode, and so is a
// tolerance that is not a finite number.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

#include <fmt/format.h>

#include "store/store.hpp"
#include "support/export_fixture.hpp"
#include "support/run_command.hpp"

using namespace mpgemm::testing;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::size_t lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace

// mpgemm-export r.db -o r.db printed "5 entries (json) written to r.db", exited 0 and left JSON where the
// database was; the same with --format cpp, through a symlink, and onto any other database.
TEST(CliOutputs, ExportNeverWritesOverItsDatabaseNorAnyOther) {
  const auto dir = fresh_dir("cli_outputs_export");
  fs::create_directories(dir / "sub");
  const auto db = dir / "r.db";
  const auto other = dir / "other.db";
  mpgemm::testing::write_export_db(db);
  { mpgemm::Store s = mpgemm::Store::open(other, mpgemm::Store::Mode::read_write); }
  fs::create_symlink(db, dir / "link.json");
  const std::string before = read_file(db), other_before = read_file(other);
  const auto listing = names_in(dir);
  struct Case {
    fs::path out;
    std::string why;
  };
  const std::vector<Case> cases = {
      {db, "it is the database " + db.string() + ", which this command reads"},
      {dir / "sub" / ".." / "r.db", "it is the database " + db.string() + ", which this command reads"},
      {dir / "link.json", "it is the database " + db.string() + ", which this command reads"},
      {other, "it is an SQLite database"},
  };
  for (const auto& c : cases)
    for (const char* format : {"json", "cpp"}) {
      SCOPED_TRACE(fmt::format("{} -o {}", format, c.out.string()));
      const auto r = run_command(
          fmt::format("{} {} --format {} -o {}", bin("mpgemm-export"), db.string(), format, c.out.string()));
      EXPECT_EQ(r.exit_code, 2) << r.output;  // the command line is refused: bad input
      EXPECT_EQ(lines(r.output), 1u) << r.output;
      EXPECT_TRUE(r.output.starts_with("mpgemm-export: error: cannot write " + c.out.string() + ": " + c.why))
          << r.output;
      EXPECT_EQ(read_file(db), before);
      EXPECT_EQ(read_file(other), other_before);
      EXPECT_EQ(names_in(dir), listing);
    }
  // A text file is replaced, whole, with nothing left beside it.
  std::ofstream(dir / "w.json") << "an earlier export";
  const auto ok = run_command(fmt::format("{} {} -o {}", bin("mpgemm-export"), db.string(), (dir / "w.json").string()));
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_TRUE(read_file(dir / "w.json").starts_with("{")) << read_file(dir / "w.json");
  auto expected = listing;
  expected.push_back("w.json");
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(names_in(dir), expected);
  fs::remove_all(dir);
}

// mpgemm-run --output is refused the same way, before any GPU is looked for.
TEST(CliOutputs, RunNeverWritesItsTableOverItsDatabaseOrSpace) {
  const auto dir = fresh_dir("cli_outputs_run");
  const auto db = dir / "r.db";
  { mpgemm::Store s = mpgemm::Store::open(db, mpgemm::Store::Mode::read_write); }
  const std::string before = read_file(db);
  const auto r = run_command(fmt::format("{} --db {} --output {}", bin("mpgemm-run"), db.string(), db.string()));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(lines(r.output), 1u) << r.output;
  EXPECT_NE(r.output.find("cannot write " + db.string() + ": it is the database"), std::string::npos) << r.output;
  const auto space = dir / "space.json";
  fs::copy_file(source("configs/sm86.json"), space);
  const std::string space_before = read_file(space);
  const auto s = run_command(
      fmt::format("{} --db {} --space {} --output {}", bin("mpgemm-run"), db.string(), space.string(), space.string()));
  EXPECT_EQ(s.exit_code, 2) << s.output;
  EXPECT_NE(s.output.find("cannot write " + space.string() + ": it is the space"), std::string::npos) << s.output;
  EXPECT_EQ(read_file(db), before);
  EXPECT_EQ(read_file(space), space_before);
  fs::remove_all(dir);
}

// mpgemm-tune --db naming its own space (through ../) is refused like an output over an input: exit 2, one line,
// the space as it was.
TEST(CliOutputs, TuneNeverWritesItsDatabaseOverItsSpace) {
  const auto dir = fresh_dir("cli_outputs_tune");
  fs::create_directories(dir / "sub");
  const auto space = dir / "space.json";
  fs::copy_file(source("configs/sm86.json"), space);
  const std::string before = read_file(space);
  const auto r = run_command(fmt::format("{} {} --dry-run --db {}", bin("mpgemm-tune"), space.string(),
                                         (dir / "sub" / ".." / "space.json").string()));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(lines(r.output), 1u) << r.output;
  EXPECT_TRUE(r.output.starts_with("mpgemm-tune: error: cannot write ")) << r.output;
  EXPECT_NE(r.output.find(": it is the space " + space.string()), std::string::npos) << r.output;
  EXPECT_EQ(read_file(space), before);
  fs::remove_all(dir);
}

// --db '' exited 0 in a compile-only run and wrote the results nowhere (only side files in the working folder),
// while --dry-run refused it. Refused in every mode now, and nothing is written.
TEST(CliOutputs, AnEmptyDatabasePathIsRefusedInEveryMode) {
  const auto dir = fresh_dir("cli_outputs_empty_db");
  for (const char* mode : {"--compile-only --arch sm_86", "--dry-run", "--compile-only --arch sm_86 --dry-run"})
    for (const char* db : {"--db ''", "--db=", "--cubin-cache ''"}) {
      SCOPED_TRACE(fmt::format("{} {}", mode, db));
      const auto r = run_command(
          fmt::format("cd {} && {} {} {} {}", dir.string(), bin("mpgemm-tune"), source("configs/sm86.json"), mode, db));
      EXPECT_EQ(r.exit_code, 2) << r.output;
      EXPECT_TRUE(r.output.starts_with("mpgemm-tune: error: --")) << r.output;
      EXPECT_NE(r.output.find(" is empty: it needs a "), std::string::npos) << r.output;
      EXPECT_TRUE(names_in(dir).empty()) << "written in the working folder: " << names_in(dir).front();
    }
  fs::remove_all(dir);
}

// --atol nan made every candidate 'incorrect' (no difference is <= nan) and the run exited 0.
TEST(CliOutputs, ToleranceThatIsNotAFiniteNumberIsRefused) {
  for (const char* option : {"--atol nan", "--rtol inf", "--atol -1", "--max-spread nan"}) {
    SCOPED_TRACE(option);
    const auto r =
        run_command(fmt::format("{} {} --dry-run {}", bin("mpgemm-tune"), source("configs/sm86.json"), option));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    const std::string name = std::string(option).substr(0, std::string(option).find(' '));
    EXPECT_TRUE(r.output.starts_with("mpgemm-tune: error: " + name + " ")) << r.output;
  }
}
