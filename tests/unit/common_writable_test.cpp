// write_obstacle / why_not_writable: the checks a command makes on an output path before it spends any work on
// what goes there.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>

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
