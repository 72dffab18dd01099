// Reading a database left in WAL mode (a tuner killed with -9 leaves one): every read-only open (what mpgemm-query,
// mpgemm-export, the library and --replay do) sees every committed row, the ones the -wal holds included, from a
// writable folder without leaving a -wal or -shm it did not find, and from a read-only one.
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "common/error.hpp"
#include "store/merge.hpp"
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

// Every file of `dir` by name, with its content; a -shm only by name (a reader may rebuild its index there).
std::map<std::string, std::string> listing(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    files[name] = name.ends_with("-shm") ? std::string("(index)") : bytes(e.path());
  }
  return files;
}

std::string names(const std::map<std::string, std::string>& files) {
  std::string out;
  for (const auto& [name, _] : files) out += name + " ";
  return out;
}

void exec(sqlite3* db, const std::string& sql) {
  char* error = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "") << ": " << sql;
  sqlite3_free(error);
}

// Runs in the database file alone, ignoring any -wal (immutable: SQLite neither reads nor creates companions).
std::int64_t runs_in_file_alone(const fs::path& path) {
  sqlite3* db = nullptr;
  const std::string uri = "file:" + path.string() + "?immutable=1";
  EXPECT_EQ(sqlite3_open_v2(uri.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  std::int64_t n = -1;
  if (sqlite3_prepare_v2(db, "SELECT count(*) FROM runs", -1, &stmt, nullptr) == SQLITE_OK &&
      sqlite3_step(stmt) == SQLITE_ROW)
    n = sqlite3_column_int64(stmt, 0);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return n;
}

// How a database in WAL mode can be found.
enum class Left {
  wal_and_shm,  // as a tuner killed with -9 leaves it
  wal_only,     // its -shm lost (copied without it, or removed)
  header_only,  // the file alone, every transaction checkpointed into it, still marked WAL
};

std::string to_string(Left left) {
  switch (left) {
    case Left::wal_and_shm:
      return "wal_and_shm";
    case Left::wal_only:
      return "wal_only";
    case Left::header_only:
      return "header_only";
  }
  return "?";
}

// A database of `version` left in WAL mode holding `runs` runs: with a -wal, they are in the -wal only (committed,
// never checkpointed into the file), as when the writer is killed; header_only, in the file.
void wal_database(const fs::path& path, Left left, int runs, int version = 0) {
  if (version == 0) {
    Store created = Store::open(path, Store::Mode::read_write);  // closed in rollback-journal mode
  } else {
    testing::database_at_version(path, version);
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  exec(db, "PRAGMA journal_mode = WAL");
  for (int i = 0; i < runs; ++i)
    exec(db, "INSERT INTO runs (tool_version, git_sha, argv, mode) VALUES ('0.1.0', 'abc', '[]', 'replay')");
  if (left == Left::header_only) exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
  ASSERT_EQ(sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  ASSERT_TRUE(fs::exists(path.string() + "-wal"));
  ASSERT_TRUE(fs::exists(path.string() + "-shm"));
  if (left != Left::wal_and_shm) fs::remove(path.string() + "-shm");
  if (left == Left::header_only) fs::remove(path.string() + "-wal");
  ASSERT_EQ(bytes(path).substr(18, 2), std::string("\x02\x02", 2)) << "the file says WAL";
  ASSERT_EQ(runs_in_file_alone(path), left == Left::header_only ? runs : 0) << "where the rows are";
}

// What a reader sees: the runs, or the error.
std::string read_runs(const fs::path& path) {
  try {
    const Store store = Store::open(path, Store::Mode::read_only);
    return fmt::format("{} runs", store.query_named("runs").rows.size());
  } catch (const Error& e) {
    return std::string("error: ") + e.what();
  }
}

// Runs `read` in a child process that finds `dir` read-only: a read-only bind mount of it in a mount namespace of the
// child's own (as root, where permissions do not stop writes), else the folder made 0555. Returns what `read`
// returned, or why the folder could not be made read-only (the test then skips, saying so).
struct ChildResult {
  bool read_only = false;
  std::string text;  // read's result, or why not read-only
};

ChildResult in_read_only_folder(const fs::path& dir, const std::function<std::string()>& read) {
  const bool as_root = ::geteuid() == 0;
  if (!as_root) ::chmod(dir.c_str(), 0555);
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return {false, std::strerror(errno)};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipe_fds[0]);
    std::string out;
    if (as_root) {
      if (::unshare(CLONE_NEWNS) != 0 || ::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
          ::mount(dir.c_str(), dir.c_str(), nullptr, MS_BIND, nullptr) != 0 ||
          ::mount(nullptr, dir.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) != 0)
        out = fmt::format("-no read-only bind mount here ({}): needs CAP_SYS_ADMIN", std::strerror(errno));
    }
    if (out.empty() && ::access(dir.c_str(), W_OK) == 0) out = "-the folder is still writable";
    if (out.empty()) out = "+" + read();
    const ssize_t ignored = ::write(pipe_fds[1], out.data(), out.size());
    (void)ignored;
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string got;
  char buffer[4096];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;)
    got.append(buffer, static_cast<std::size_t>(n));
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!as_root) ::chmod(dir.c_str(), 0755);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || got.empty())
    return {true, fmt::format("the child died (status {:#x})", status)};
  return {got[0] == '+', got.substr(1)};
}

class StoreWalReadOnly : public ::testing::TestWithParam<Left> {
 protected:
  void SetUp() override {
    dir_ = testing::per_test_dir();
    fs::create_directories(dir_);
  }
  void TearDown() override {
    ::chmod(dir_.c_str(), 0755);
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path dir_;
};

// From a writable folder: every run is read, and the folder is as it was (no -wal or -shm appears, none goes; the
// file and its -wal unchanged), however often it is read.
TEST_P(StoreWalReadOnly, WritableFolderReadsEveryRunAndLeavesNoFiles) {
  const auto path = dir_ / "results.db";
  wal_database(path, GetParam(), 3);
  const auto before = listing(dir_);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(read_runs(path), "3 runs");
    EXPECT_EQ(listing(dir_), before) << "before: " << names(before) << "now: " << names(listing(dir_));
  }
}

// From a read-only folder (read-only media): every run is read, the ones only the -wal holds included.
TEST_P(StoreWalReadOnly, ReadOnlyFolderReadsEveryRun) {
  const auto path = dir_ / "results.db";
  wal_database(path, GetParam(), 3);
  const auto before = listing(dir_);
  const ChildResult r = in_read_only_folder(dir_, [&] { return read_runs(path); });
  if (!r.read_only) GTEST_SKIP() << "cannot make a folder read-only here: " << r.text;
  EXPECT_EQ(r.text, "3 runs");
  EXPECT_EQ(listing(dir_), before);
}

// A merge input left in WAL mode is read like any other reader reads it: every run merged, nothing left beside
// the input (mpgemm-query merge), from a writable folder and from a read-only one.
std::string merged_runs(const fs::path& input, const fs::path& out) {
  try {
    merge_databases(out, {input});
    return read_runs(out);
  } catch (const Error& e) {
    return std::string("error: ") + e.what();
  }
}

TEST_P(StoreWalReadOnly, AMergeInputLeavesNoFilesAndLosesNoRun) {
  const auto path = dir_ / "results.db";
  wal_database(path, GetParam(), 3);
  const auto out_dir = dir_.string() + "-out";
  fs::create_directories(out_dir);
  const auto before = listing(dir_);
  // The three runs are alike (the same content, no uid) and merge as one; with a -wal, the file alone holds none.
  EXPECT_EQ(merged_runs(path, fs::path(out_dir) / "writable.db"), "1 runs");
  EXPECT_EQ(listing(dir_), before) << "before: " << names(before) << "now: " << names(listing(dir_));
  const ChildResult r = in_read_only_folder(dir_, [&] { return merged_runs(path, fs::path(out_dir) / "ro.db"); });
  std::error_code ec;
  fs::remove_all(out_dir, ec);
  if (!r.read_only) GTEST_SKIP() << "cannot make a folder read-only here: " << r.text;
  EXPECT_EQ(r.text, "1 runs");
  EXPECT_EQ(listing(dir_), before);
}

INSTANTIATE_TEST_SUITE_P(Left, StoreWalReadOnly,
                         ::testing::Values(Left::wal_and_shm, Left::wal_only, Left::header_only),
                         [](const auto& param_info) { return to_string(param_info.param); });

class StoreWalReadOnlyMore : public StoreWalReadOnly {};

// An older schema left in WAL mode without its -shm: read from the snapshot, migrated in memory, file unchanged.
TEST_F(StoreWalReadOnlyMore, OlderSchemaInWalModeIsMigratedInMemory) {
  const auto path = dir_ / "v5.db";
  wal_database(path, Left::wal_only, 2, 5);
  const auto before = listing(dir_);
  EXPECT_EQ(read_runs(path), "2 runs");
  {
    const Store store = Store::open(path, Store::Mode::read_only);
    EXPECT_EQ(store.query_named("reranks").rows.size(), 0u);  // a table of a later version: migrated in memory
  }
  EXPECT_EQ(listing(dir_), before);
}

// The snapshot's private folder goes in TMPDIR: one that does not exist, or a regular file, is refused in one line
// naming the database, TMPDIR's value and what is wrong with it (issue 57, item 12), and nothing is left behind.
TEST_F(StoreWalReadOnlyMore, AMissingOrFileTmpdirIsOneLineNamingIt) {
  const auto path = dir_ / "results.db";
  wal_database(path, Left::wal_only, 2);
  std::ofstream(dir_ / "plain-file") << "x";
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  for (const auto& [tmpdir, says] : std::vector<std::pair<fs::path, std::string>>{
           {dir_ / "missing", "does not exist"}, {dir_ / "plain-file", "is not a folder"}}) {
    ::setenv("TMPDIR", tmpdir.c_str(), 1);
    const auto before = listing(dir_);
    const std::string got = read_runs(path);
    EXPECT_TRUE(got.starts_with("error: database " + path.string() + ": ")) << got;
    EXPECT_NE(got.find(fmt::format("TMPDIR ({}) {}", tmpdir.string(), says)), std::string::npos) << got;
    EXPECT_EQ(got.find('\n'), std::string::npos) << got;
    EXPECT_EQ(listing(dir_), before);
  }
  if (old)
    ::setenv("TMPDIR", saved.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
  EXPECT_EQ(read_runs(path), "2 runs");
}

// A live writer's database is read in place, not from a snapshot: a reader sees what the writer commits after the
// reader opened (the tuner's measuring lanes depend on it).
TEST_F(StoreWalReadOnlyMore, ALiveWritersCommitsAreSeenByAnOpenReader) {
  const auto path = dir_ / "results.db";
  Store writer = Store::open(path, Store::Mode::read_write);
  const Store reader = Store::open(path, Store::Mode::read_only);
  EXPECT_FALSE(reader.find_run(1));
  const std::int64_t run = writer.begin_run(RunInfo{});
  EXPECT_TRUE(reader.find_run(run));
}

// A database reached through a symbolic link: its -wal is found beside the file the link names.
TEST_F(StoreWalReadOnlyMore, ASymbolicLinkIsFollowedToTheWal) {
  fs::create_directories(dir_ / "real");
  const auto real = dir_ / "real" / "results.db";
  wal_database(real, Left::wal_only, 2);
  const auto link = dir_ / "link.db";
  fs::create_symlink(real, link);
  const auto before = listing(dir_ / "real");
  EXPECT_EQ(read_runs(link), "2 runs");
  EXPECT_EQ(listing(dir_ / "real"), before);
  EXPECT_FALSE(fs::exists(dir_ / "link.db-shm"));
  EXPECT_FALSE(fs::exists(dir_ / "link.db-wal"));
}

// A writer resumes such a database: the -wal's runs are kept, and it closes the file into one self-contained file.
TEST_F(StoreWalReadOnlyMore, AWriterResumesItKeepingTheWalsRuns) {
  const auto path = dir_ / "results.db";
  wal_database(path, Left::wal_only, 3);
  {
    Store store = Store::open(path, Store::Mode::read_write);
    EXPECT_EQ(store.query_named("runs").rows.size(), 3u);
  }
  EXPECT_FALSE(fs::exists(path.string() + "-wal"));
  EXPECT_FALSE(fs::exists(path.string() + "-shm"));
  EXPECT_EQ(runs_in_file_alone(path), 3);
}

}  // namespace
}  // namespace mpgemm
