// The fuzzing corpus (tests/fuzz/corpus) replayed through the regular build of the loader, without clang or
// libFuzzer: every file loads or gets one well-formed SpaceError (the contract of fuzz/space_check.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/space_check.hpp"

namespace mpgemm {
namespace {

TEST(SpaceCorpus, EveryFileLoadsOrGetsOneWellFormedSpaceError) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(MPGEMM_SOURCE_DIR "/tests/fuzz/corpus"))
    files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 50u) << "the corpus lost its files";
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    EXPECT_EQ(fuzz::check_space_input(text), "") << file.filename();
  }
}

TEST(SpaceCorpus, ContractRejectsMalformedMessages) {
  EXPECT_TRUE(fuzz::well_formed("input.json:3:14: at /parameters/BM: duplicate value", "input.json"));
  EXPECT_TRUE(fuzz::well_formed("input.json:1:1: at /: expected an object, got an array", "input.json"));
  EXPECT_FALSE(fuzz::well_formed("input.json:3:14: at /a\nb: unknown key", "input.json"));
  EXPECT_FALSE(fuzz::well_formed("input.json:3: at /x: no column", "input.json"));
  EXPECT_FALSE(fuzz::well_formed("other.json:3:14: at /x: wrong file", "input.json"));
  EXPECT_FALSE(fuzz::well_formed("input.json:3:14: no path", "input.json"));
}

}  // namespace
}  // namespace mpgemm
