// write_obstacle / why_not_writable: the checks a command makes on an output path before it spends any work on
// what goes there; require_safe_output and write_file_atomically: what it may write over, and how.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <functional>

#include "common/error.hpp"
#include "common/writable.hpp"
#include "support/run_command.hpp"

using mpgemm::MissingFolders;
using mpgemm::why_not_writable;
using mpgemm::testing::fresh_dir;

TEST(Writable, ANewFileInAnExistingFolderIsWritable) {
  const auto dir = fresh_dir("writable_new");
  EXPECT_EQ(why_not_writable(dir / "t.md", MissingFolders::fail), std::nullopt);
  EXPECT_EQ(why_not_writable(dir / "t.md", MissingFolders::create), std::nullopt);
  EXPECT_FALSE(std::filesystem::exists(dir / "t.md"));  // checks only
  std::filesystem::remove_all(dir);
}

TEST(Writable, MissingFoldersFailUnlessTheWriterCreatesThem) {
  const auto dir = fresh_dir("writable_nested");
  const auto deep = dir / "a" / "b" / "t.db";
  EXPECT_EQ(why_not_writable(deep, MissingFolders::fail),
            "the folder " + (dir / "a" / "b").string() + " does not exist");
  EXPECT_EQ(why_not_writable(deep, MissingFolders::create), std::nullopt);
  EXPECT_FALSE(std::filesystem::exists(dir / "a"));
  std::filesystem::remove_all(dir);
}

// A relative path whose first folder is new goes in the working folder (tools/slurm/submit.sh SPACE newdir N).
TEST(Writable, RelativePathsAreJudgedFromTheWorkingFolder) {
  const auto dir = fresh_dir("writable_relative");
  const auto was = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  EXPECT_EQ(why_not_writable("t.md", MissingFolders::fail), std::nullopt);
  EXPECT_EQ(why_not_writable("newdir/x.db", MissingFolders::create), std::nullopt);
  EXPECT_EQ(why_not_writable("newdir/deeper/x.db", MissingFolders::create), std::nullopt);
  EXPECT_EQ(why_not_writable("newdir/x.db", MissingFolders::fail), "the folder newdir does not exist");
  std::filesystem::current_path(was);
  std::filesystem::remove_all(dir);
}

TEST(Writable, EmptyPathsFoldersAndFilesInPlaceOfFoldersAreRefused) {
  const auto dir = fresh_dir("writable_kinds");
  EXPECT_EQ(why_not_writable("", MissingFolders::fail), "the path is empty");
  EXPECT_EQ(why_not_writable(dir, MissingFolders::fail), "it is a folder, not a file");
  EXPECT_EQ(why_not_writable(dir / "new" / "", MissingFolders::create), "it is a folder, not a file");  // "new/"
  std::ofstream(dir / "plain") << "x";
  for (auto folders : {MissingFolders::fail, MissingFolders::create})
    EXPECT_EQ(why_not_writable(dir / "plain" / "t.md", folders), (dir / "plain").string() + " is not a folder");
  EXPECT_EQ(why_not_writable(dir / "plain", MissingFolders::fail), std::nullopt);  // an existing file is overwritten
  std::filesystem::remove_all(dir);
}

TEST(Writable, ADescriptionNamesWhatTheFileIs) {
  const auto o = mpgemm::write_obstacle(std::filesystem::temp_directory_path(), MissingFolders::create);
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(mpgemm::describe(*o, "database file"), "it is a folder, not a database file");
}

// ---- the output a command may write: never one of its inputs, never a database; written whole or not at all ----

namespace {

// The names in `dir`, sorted: what "no temporary file stayed behind" compares.
std::vector<std::string> names_in(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const mpgemm::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Writable, TheSameFileIsFoundThroughLinksAndDotDot) {
  namespace fs = std::filesystem;
  const auto dir = fresh_dir("writable_same");
  fs::create_directories(dir / "sub");
  std::ofstream(dir / "r.db") << "x";
  fs::create_symlink(dir / "r.db", dir / "link.db");
  fs::create_hard_link(dir / "r.db", dir / "hard.db");
  EXPECT_TRUE(mpgemm::same_file(dir / "r.db", dir / "link.db"));
  EXPECT_TRUE(mpgemm::same_file(dir / "r.db", dir / "hard.db"));
  EXPECT_TRUE(mpgemm::same_file(dir / "sub" / ".." / "r.db", dir / "r.db"));
  EXPECT_FALSE(mpgemm::same_file(dir / "r.db", dir / "new.json"));  // one of them does not exist
  std::ofstream(dir / "other.db") << "x";
  EXPECT_FALSE(mpgemm::same_file(dir / "r.db", dir / "other.db"));
  fs::remove_all(dir);
}

TEST(Writable, AnSQLiteFileIsKnownByItsHeader) {
  const auto dir = fresh_dir("writable_sqlite");
  std::ofstream(dir / "db", std::ios::binary) << std::string("SQLite format 3\0\x10\x00", 18);
  std::ofstream(dir / "text") << "SQLite format 3 is what the header says";  // no NUL at byte 15
  std::ofstream(dir / "short", std::ios::binary) << std::string("SQLite format", 13);
  EXPECT_TRUE(mpgemm::is_sqlite_file(dir / "db"));
  EXPECT_FALSE(mpgemm::is_sqlite_file(dir / "text"));
  EXPECT_FALSE(mpgemm::is_sqlite_file(dir / "short"));
  EXPECT_FALSE(mpgemm::is_sqlite_file(dir / "missing"));
  EXPECT_FALSE(mpgemm::is_sqlite_file(dir));
  std::filesystem::remove_all(dir);
}

TEST(Writable, AnOutputIsNeverAnInputNorADatabase) {
  namespace fs = std::filesystem;
  const auto dir = fresh_dir("writable_safe");
  const auto db = dir / "r.db";
  std::ofstream(db, std::ios::binary) << std::string("SQLite format 3\0", 16);
  fs::create_symlink(db, dir / "link.json");
  const std::string through_link = error_of([&] {
    mpgemm::require_safe_output(dir / "link.json", {{"the database", db}});
  });
  EXPECT_EQ(through_link, "cannot write " + (dir / "link.json").string() + ": it is the database " + db.string() +
                              ", which this command reads; choose another output file");
  // Another database, not an input: still never replaced by text.
  const auto other = dir / "other.db";
  fs::copy_file(db, other);
  EXPECT_NE(error_of([&] {
              mpgemm::require_safe_output(other, {{"the database", db}});
            }).find("other.db: it is an SQLite database"),
            std::string::npos);
  std::ofstream(dir / "old.json") << "[]";
  EXPECT_EQ(error_of([&] { mpgemm::require_safe_output(dir / "old.json", {{"the database", db}}); }), "");
  EXPECT_EQ(error_of([&] { mpgemm::require_safe_output(dir / "new.json", {{"the database", db}}); }), "");
  EXPECT_NE(error_of([&] {
              mpgemm::require_safe_output("", {{"the database", db}});
            }).find("the path is empty"),
            std::string::npos);
  fs::remove_all(dir);
}

TEST(Writable, AtomicWritesReplaceTheWholeFileAndLeaveNothingBehind) {
  namespace fs = std::filesystem;
  const auto dir = fresh_dir("writable_atomic");
  mpgemm::write_file_atomically(dir / "new.json", "first\n");
  EXPECT_EQ(mpgemm::testing::read_file(dir / "new.json"), "first\n");
  fs::permissions(dir / "new.json", fs::perms(0640));
  mpgemm::write_file_atomically(dir / "new.json", "second\n");
  EXPECT_EQ(mpgemm::testing::read_file(dir / "new.json"), "second\n");
  EXPECT_EQ(fs::status(dir / "new.json").permissions(), fs::perms(0640));  // an existing file's permissions stay
  // Through a symlink: the file it names is replaced, the link stays a link.
  fs::create_symlink("new.json", dir / "link.json");
  mpgemm::write_file_atomically(dir / "link.json", "third\n");
  EXPECT_TRUE(fs::is_symlink(dir / "link.json"));
  EXPECT_EQ(mpgemm::testing::read_file(dir / "new.json"), "third\n");
  EXPECT_EQ(names_in(dir), (std::vector<std::string>{"link.json", "new.json"}));
  // Not a regular file: written in place (root must never rename a file over /dev/null).
  mpgemm::write_file_atomically("/dev/null", "gone\n");
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  fs::remove_all(dir);
}

// A write that fails part-way (here a file size limit, as a full disk would) leaves the old file as it was and no
// temporary file. In a child process, so the limit ends with it.
TEST(Writable, AFailedAtomicWriteLeavesTheOldFileWhole) {
  const auto dir = fresh_dir("writable_atomic_fail");
  const auto out = dir / "table.md";
  std::ofstream(out) << "an earlier table\n";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{4096, 4096};
    setrlimit(RLIMIT_FSIZE, &limit);
    const std::string message = error_of([&] { mpgemm::write_file_atomically(out, std::string(1 << 20, 'x')); });
    _exit(message.starts_with("cannot write " + out.string() + ": File too large") ? 0 : 1);
  }
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the write did not fail with the file's name";
  EXPECT_EQ(mpgemm::testing::read_file(out), "an earlier table\n");
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"table.md"});
  std::filesystem::remove_all(dir);
}

// Issue 57, item 4: PATH-wal, PATH-shm and PATH-journal beside an existing PATH are that database's side files.
TEST(Writable, ADatabasesSideFilesAreNeverAnOutput) {
  namespace fs = std::filesystem;
  const auto dir = fresh_dir("writable_side");
  const auto db = dir / "lw.db";
  std::ofstream(db) << "x";
  for (const char* side : {"-wal", "-shm", "-journal"}) {
    const fs::path out = db.string() + side;
    EXPECT_EQ(mpgemm::database_of_side_file(out), db) << out;
    EXPECT_NE(error_of([&] { mpgemm::require_safe_output(out, {}); }).find("it is a side file SQLite keeps beside"),
              std::string::npos)
        << out;
  }
  EXPECT_EQ(mpgemm::database_of_side_file(dir / "other.db-wal"), std::nullopt);  // no database of that name
  EXPECT_EQ(mpgemm::database_of_side_file(dir / "-wal"), std::nullopt);
  EXPECT_EQ(mpgemm::database_of_side_file(dir / "lw.db.wal"), std::nullopt);
  fs::remove_all(dir);
}
