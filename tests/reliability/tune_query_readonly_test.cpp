// Reading a database never writes beside it: after a run has closed it, mpgemm-query (every canned view, a
// raw SELECT) and a replay from it leave its folder exactly as they found it, no -wal and no -shm files.
#include <gtest/gtest.h>

#include <map>

#include "replay_fixture.hpp"

namespace mpgemm::testing {
namespace {

// Every file of `dir` (recursively) with its content.
std::map<std::string, std::string> snapshot(const std::filesystem::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file()) files[std::filesystem::relative(e.path(), dir).string()] = file_text(e.path());
  return files;
}

std::string names(const std::map<std::string, std::string>& files) {
  std::string out;
  for (const auto& [name, _] : files) out += name + " ";
  return out;
}

TEST(ReliabilityReadOnly, QueryingAClosedDatabaseLeavesItsFolderUnchanged) {
  const auto dir = fresh_dir("readonly");
  const auto recorded = dir / "recorded" / "recorded.db";
  std::filesystem::create_directories(recorded.parent_path());
  make_recorded_db(recorded);
  const auto recorded_before = snapshot(recorded.parent_path());
  EXPECT_EQ(recorded_before.size(), 2u) << names(recorded_before);  // the database and its "-claims" lock file
  const auto work = dir / "work";
  std::filesystem::create_directories(work);
  const auto db = work / "t.db";
  const auto tuned = run_command(
      fmt::format("{} {} --replay {} --db {}", bin("mpgemm-tune"), replay_space(), recorded.string(), db.string()));
  ASSERT_EQ(tuned.exit_code, 0) << without_progress(tuned.output);
  // The replay read the recording and wrote nothing beside it.
  EXPECT_EQ(snapshot(recorded.parent_path()), recorded_before) << names(snapshot(recorded.parent_path()));

  for (const auto& folder : {work, recorded.parent_path()}) {
    SCOPED_TRACE(folder.string());
    const auto path = folder == work ? db : recorded;
    const auto before = snapshot(folder);
    EXPECT_EQ(before.count(path.filename().string() + "-wal"), 0u) << names(before);
    EXPECT_EQ(before.count(path.filename().string() + "-shm"), 0u) << names(before);
    for (const char* what : {"runs", "configs", "compilations", "failures", "best", "best_per_shape", "references",
                             "measurements", "warnings"}) {
      const auto q = run_command(fmt::format("{} {} {}", bin("mpgemm-query"), path.string(), what));
      EXPECT_EQ(q.exit_code, 0) << what << ": " << q.output;
    }
    const auto raw =
        run_command(fmt::format("{} {} --sql 'SELECT count(*) FROM measurements'", bin("mpgemm-query"), path.string()));
    EXPECT_EQ(raw.exit_code, 0) << raw.output;
    EXPECT_EQ(snapshot(folder), before) << "now: " << names(snapshot(folder));
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mpgemm::testing
