// why_not_writable: the checks a command makes on an output path before it spends any work on what goes there.
#include <gtest/gtest.h>

#include <fstream>

#include "common/writable.hpp"

using mpgemm::MissingFolders;
using mpgemm::why_not_writable;

namespace {

std::filesystem::path fresh(const char* name) {
  auto dir = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

TEST(Writable, ANewFileInAnExistingFolderIsWritable) {
  const auto dir = fresh("mpgemm_writable_new");
  EXPECT_EQ(why_not_writable(dir / "t.md", MissingFolders::fail), std::nullopt);
  EXPECT_EQ(why_not_writable(dir / "t.md", MissingFolders::create), std::nullopt);
  EXPECT_FALSE(std::filesystem::exists(dir / "t.md"));  // checks only
  std::filesystem::remove_all(dir);
}

TEST(Writable, MissingFoldersFailUnlessTheWriterCreatesThem) {
  const auto dir = fresh("mpgemm_writable_nested");
  const auto deep = dir / "a" / "b" / "t.db";
  EXPECT_EQ(why_not_writable(deep, MissingFolders::fail),
            "the folder " + (dir / "a" / "b").string() + " does not exist");
  EXPECT_EQ(why_not_writable(deep, MissingFolders::create), std::nullopt);
  EXPECT_FALSE(std::filesystem::exists(dir / "a"));
  std::filesystem::remove_all(dir);
}

TEST(Writable, AFolderOrAFileInPlaceOfAFolderIsRefused) {
  const auto dir = fresh("mpgemm_writable_kinds");
  EXPECT_EQ(why_not_writable(dir, MissingFolders::fail), "it is a folder");
  std::ofstream(dir / "plain") << "x";
  for (auto folders : {MissingFolders::fail, MissingFolders::create})
    EXPECT_EQ(why_not_writable(dir / "plain" / "t.md", folders), (dir / "plain").string() + " is not a folder");
  EXPECT_EQ(why_not_writable(dir / "plain", MissingFolders::fail), std::nullopt);  // an existing file is overwritten
  std::filesystem::remove_all(dir);
}
