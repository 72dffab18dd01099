// A real full disk: a small tmpfs mounted for the test (needs root and mount permission, else SKIPPED). Whatever
// moment the space runs out, mpgemm-tune stops with one "disk full" line, the database stays consistent, and the
// same command on a disk with room resumes to exactly the recorded outcomes.
#include <sys/mount.h>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "reliability/replay_fixture.hpp"

namespace mpgemm::testing {
namespace {

TEST(ReliabilityFullDisk, DiskFullIsOneLineNothingCorruptedAndResumable) {
  const auto dir = fresh_dir("full_disk");
  const auto recorded = dir / "recorded.db";
  const RecordedDb rec = make_recorded_db(recorded);
  const auto mnt = dir / "mnt";
  std::filesystem::create_directories(mnt);
  int disk_full_seen = 0;
  // Sizes from "no room for the schema" to "room for part of the run": each must end cleanly.
  for (const int kib : {24, 48, 96, 160, 256}) {
    SCOPED_TRACE(fmt::format("tmpfs of {} KiB", kib));
    if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, fmt::format("size={}k", kib).c_str()) != 0) {
      std::filesystem::remove_all(dir);
      GTEST_SKIP() << "cannot mount a small tmpfs here (" << std::strerror(errno) << "): needs root and CAP_SYS_ADMIN";
    }
    const auto db = mnt / "t.db";
    const auto r = run_command(
        fmt::format("{} {} --replay {} --db {}", bin("mpgemm-tune"), replay_space(), recorded.string(), db.string()));
    std::vector<std::string> errors;
    for (const auto& line : lines_of(r.output))
      if (line.find("error") != std::string::npos) errors.push_back(line);
    if (r.exit_code == 0) {
      ::umount(mnt.c_str());
      continue;  // roomy enough for the whole run
    }
    EXPECT_EQ(r.exit_code, 1) << r.output;
    ASSERT_EQ(errors.size(), 1u) << r.output;
    std::cout << "  " << kib << " KiB: " << errors[0] << "\n";
    if (errors[0].find("disk full") != std::string::npos) ++disk_full_seen;
    // Consistent, and the same command with room resumes to exactly the recorded outcomes.
    const auto moved = dir / fmt::format("resumed_{}.db", kib);
    if (std::filesystem::exists(db)) {
      std::filesystem::copy_file(db, moved);
      for (const char* side : {"-wal", "-shm"})
        if (std::filesystem::exists(db.string() + side))
          std::filesystem::copy_file(db.string() + side, moved.string() + side);
    }
    ::umount(mnt.c_str());
    // Checked where there is room (SQLite needs some to open a WAL database at all).
    if (std::filesystem::exists(moved) &&
        sql_int(moved, "SELECT count(*) FROM sqlite_master WHERE name = 'measurements'") == 1) {
      EXPECT_EQ(integrity_problems(moved), "");
    }
    const auto again = run_command(fmt::format("{} {} --replay {} --db {}", bin("mpgemm-tune"), replay_space(),
                                               recorded.string(), moved.string()));
    ASSERT_EQ(again.exit_code, 0) << again.output;
    EXPECT_EQ(integrity_problems(moved), "");
    EXPECT_EQ(outcome_differences(outcomes(recorded), outcomes(moved)), "");
  }
  EXPECT_GE(disk_full_seen, 1) << "no size ran out of space with SQLITE_FULL";
  (void)rec;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mpgemm::testing
