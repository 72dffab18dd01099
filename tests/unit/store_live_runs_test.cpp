// A run whose process died stays 'running' in its row; the next run on the database marks it 'interrupted'. A
// run whose process lives, a run of another host and a run recorded before schema 5 (no pid) are left alone.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "store/store.hpp"
#include "support/store_fixture.hpp"

namespace mpgemm {
namespace {

RunInfo run_on(const std::string& host) {
  RunInfo info;
  info.argv = {"mpgemm-tune", "space.json"};
  info.hostname = host;
  return info;
}

// A process that begins a run on `db` and writes its id to `report`, then either exits at once without ending
// it (a crash) or, with `stay`, waits until it is killed.
pid_t start_run_process(const std::filesystem::path& db, int report, bool stay) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  int code = 0;
  try {
    Store store = Store::open(db, Store::Mode::read_write);
    const std::int64_t id = store.begin_run(run_on("this-host"));
    (void)!::write(report, &id, sizeof id);
    if (stay) ::pause();
  } catch (...) {
    code = 1;
  }
  std::_Exit(code);  // no end_run, no destructors: as kill -9 would leave it
}

std::int64_t read_id(int fd) {
  std::int64_t id = -1;
  EXPECT_EQ(::read(fd, &id, sizeof id), static_cast<ssize_t>(sizeof id));
  return id;
}

std::string status_of(const std::filesystem::path& db, std::int64_t id) {
  Store store = Store::open(db, Store::Mode::read_only);
  const auto run = store.find_run(id);
  return run ? run->status : "missing";
}

class StoreLiveRuns : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::per_test_dir();
    std::filesystem::create_directories(dir_);
    db_ = dir_ / "results.db";
    Store::open(db_, Store::Mode::read_write);  // the schema, before any child opens it
    ASSERT_EQ(::pipe(pipe_), 0);
  }
  void TearDown() override {
    ::close(pipe_[0]);
    ::close(pipe_[1]);
    std::filesystem::remove_all(dir_);
  }
  std::filesystem::path dir_, db_;
  int pipe_[2] = {-1, -1};
};

TEST_F(StoreLiveRuns, TheNextRunMarksADeadRunInterrupted) {
  const pid_t child = start_run_process(db_, pipe_[1], /*stay=*/false);
  ASSERT_GT(child, 0);
  const std::int64_t dead = read_id(pipe_[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_EQ(status_of(db_, dead), "running");  // nothing could end it

  Store store = Store::open(db_, Store::Mode::read_write);
  const std::int64_t next = store.begin_run(run_on("this-host"));
  const auto run = store.find_run(dead);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->status, "interrupted");
  EXPECT_FALSE(run->ended_at);  // when it died is not known
  EXPECT_EQ(run->pid, child);
  EXPECT_EQ(store.find_run(next)->status, "running");
  EXPECT_EQ(store.find_run(next)->pid, ::getpid());
}

TEST_F(StoreLiveRuns, ALiveRunIsLeftAloneUntilItDies) {
  const pid_t child = start_run_process(db_, pipe_[1], /*stay=*/true);
  ASSERT_GT(child, 0);
  const std::int64_t live = read_id(pipe_[0]);
  {
    Store store = Store::open(db_, Store::Mode::read_write);
    store.begin_run(run_on("this-host"));
    EXPECT_EQ(store.find_run(live)->status, "running");
  }
  ::kill(child, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  Store store = Store::open(db_, Store::Mode::read_write);
  store.begin_run(run_on("this-host"));
  EXPECT_EQ(store.find_run(live)->status, "interrupted");
}

TEST_F(StoreLiveRuns, OtherHostsAndRunsWithoutAPidAreLeftAlone) {
  // Two runs that die together (the second started while the first lived, so it marked nothing).
  std::int64_t dead[2] = {};
  pid_t children[2] = {};
  for (int i = 0; i < 2; ++i) {
    children[i] = start_run_process(db_, pipe_[1], /*stay=*/true);
    ASSERT_GT(children[i], 0);
    dead[i] = read_id(pipe_[0]);
  }
  for (const pid_t child : children) {
    ::kill(child, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
  }
  {  // the second as a run recorded before schema 5 would be: no pid
    sqlite3* c = nullptr;
    ASSERT_EQ(sqlite3_open(db_.c_str(), &c), SQLITE_OK);
    const std::string sql = "UPDATE runs SET pid = NULL WHERE id = " + std::to_string(dead[1]);
    EXPECT_EQ(sqlite3_exec(c, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(c);
  }

  Store store = Store::open(db_, Store::Mode::read_write);
  // The dead runs' host is "this-host"; from another host nothing can tell whether they live.
  store.begin_run(run_on("another-host"));
  EXPECT_EQ(store.find_run(dead[0])->status, "running");
  EXPECT_EQ(store.find_run(dead[1])->status, "running");
  const std::int64_t mine = store.begin_run(run_on("this-host"));
  EXPECT_EQ(store.find_run(dead[0])->status, "interrupted");
  EXPECT_EQ(store.find_run(dead[1])->status, "running");  // without a pid, nothing can tell
  // A run begun by this process and still open is alive, whoever asks.
  store.begin_run(run_on("this-host"));
  EXPECT_EQ(store.find_run(mine)->status, "running");
  // Ended runs keep their status.
  store.end_run(mine, "finished");
  store.begin_run(run_on("this-host"));
  EXPECT_EQ(store.find_run(mine)->status, "finished");
}

}  // namespace
}  // namespace mpgemm
