// A database left in WAL mode, its measurements committed in the -wal only (as a tuner killed with -9 leaves them,
// or a copy taken without its -shm): mpgemm-query, mpgemm-export, mpgemm-report and mpgemm-tune --replay read every
// measurement, from a read-only folder (read-only media) and from a writable one, where they leave no file they did not
// find.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <map>
#include <optional>

#include "replay_fixture.hpp"

namespace mpgemm::testing {
namespace {

namespace fs = std::filesystem;

// Every file of `dir` with its content; a -shm by name only (a reader may take a read mark in it).
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    files[name] = name.ends_with("-shm") ? std::string("(index)") : file_text(e.path());
  }
  return files;
}

std::string names(const std::map<std::string, std::string>& files) {
  std::string out;
  for (const auto& [name, _] : files) out += name + " ";
  return out;
}

// `recorded` turned into a WAL-mode database whose file holds no measurement and whose -wal holds them all
// (committed, never checkpointed), with its -shm or without.
void leave_in_wal(const fs::path& db, bool keep_shm) {
  sqlite3* c = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &c), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(c,
                         "PRAGMA journal_mode = WAL;"
                         "CREATE TEMP TABLE kept AS SELECT * FROM measurements;"
                         "DELETE FROM measurements;"
                         "PRAGMA wal_checkpoint(TRUNCATE);"
                         "INSERT INTO measurements SELECT * FROM temp.kept;",
                         nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(c);
  ASSERT_EQ(sqlite3_db_config(c, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_close(c), SQLITE_OK);
  if (!keep_shm) fs::remove(db.string() + "-shm");
  ASSERT_TRUE(fs::exists(db.string() + "-wal"));
}

// `command` run where `dir` is read-only: in a mount namespace of its own with a read-only bind mount of `dir` (as
// root, where permissions do not stop writes), else with the folder made 0555. nullopt where neither can be done.
std::optional<std::string> where_read_only(const fs::path& dir, const std::string& command) {
  if (::geteuid() != 0) {
    ::chmod(dir.c_str(), 0555);
    if (::access(dir.c_str(), W_OK) != 0) return command;
    return std::nullopt;
  }
  const std::string mount = fmt::format("unshare -m sh -c 'mount --bind -o ro {0} {0} && ", dir.string());
  if (run_command(mount + fmt::format("! touch {}/probe'", dir.string())).exit_code != 0) return std::nullopt;
  return mount + command + "'";
}

class ReliabilityWalReadOnly : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    dir_ = fresh_dir(GetParam() ? "wal_readonly_shm" : "wal_readonly");
    fs::create_directories(dir_ / "media");
    db_ = dir_ / "media" / "recorded.db";
    rec_ = make_recorded_db(db_);
    fs::remove(db_.string() + "-claims");
    expected_ = outcomes(db_);
    leave_in_wal(db_, GetParam());
  }
  void TearDown() override {
    ::chmod((dir_ / "media").c_str(), 0755);
    fs::remove_all(dir_);
  }

  // The readers' commands, each with what its output shows when it read the database (no single quotes: they run
  // inside sh -c '...').
  std::vector<std::pair<std::string, std::string>> readers(const std::string& tag) const {
    const auto out = dir_ / ("out_" + tag);
    return {
        {fmt::format("{} {} --sql \"SELECT count(*) AS n FROM measurements\" --format csv", bin("mpgemm-query"),
                     db_.string()),
         fmt::format("n\n{}\n", rec_.pairs)},
        {fmt::format("{} {} best --format csv", bin("mpgemm-query"), db_.string()), "config_name"},
        {fmt::format("{} {} -o {}.json", bin("mpgemm-export"), db_.string(), out.string()), "written to"},
        {fmt::format("{} {} -o {}_report --sections outcomes", bin("mpgemm-report"), db_.string(), out.string()),
         "report.md and numbers.json in"},
        {fmt::format("{} {} --replay {} --db {}.db", bin("mpgemm-tune"), replay_space(), db_.string(), out.string()),
         fmt::format("measured now {}, already in the database 0", rec_.pairs)},
    };
  }

  fs::path dir_, db_;
  RecordedDb rec_;
  std::vector<std::vector<std::string>> expected_;
};

TEST_P(ReliabilityWalReadOnly, ReadersSeeTheWalsMeasurementsAndLeaveNoFiles) {
  const auto before = snapshot(db_.parent_path());
  for (const auto& [command, shows] : readers("writable")) {
    const auto r = run_command(command);
    EXPECT_EQ(r.exit_code, 0) << command << "\n" << without_progress(r.output);
    EXPECT_NE(r.output.find(shows), std::string::npos) << command << "\n" << without_progress(r.output);
  }
  EXPECT_EQ(snapshot(db_.parent_path()), before) << "now: " << names(snapshot(db_.parent_path()));
  EXPECT_EQ(outcome_differences(expected_, outcomes(dir_ / "out_writable.db")), "");
}

TEST_P(ReliabilityWalReadOnly, ReadersWorkOnReadOnlyMedia) {
  const auto before = snapshot(db_.parent_path());
  for (const auto& [command, shows] : readers("read_only")) {
    const auto wrapped = where_read_only(db_.parent_path(), command);
    if (!wrapped) GTEST_SKIP() << "cannot make a folder read-only here (not root: chmod is ignored; root: no mount)";
    const auto r = run_command(*wrapped);
    EXPECT_EQ(r.exit_code, 0) << command << "\n" << without_progress(r.output);
    EXPECT_NE(r.output.find(shows), std::string::npos) << command << "\n" << without_progress(r.output);
  }
  ::chmod(db_.parent_path().c_str(), 0755);
  EXPECT_EQ(snapshot(db_.parent_path()), before) << "now: " << names(snapshot(db_.parent_path()));
  EXPECT_EQ(outcome_differences(expected_, outcomes(dir_ / "out_read_only.db")), "");
}

INSTANTIATE_TEST_SUITE_P(Shm, ReliabilityWalReadOnly, ::testing::Values(false, true),
                         [](const auto& param_info) { return param_info.param ? "WithShm" : "WithoutShm"; });

}  // namespace
}  // namespace mpgemm::testing
