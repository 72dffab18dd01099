// The exported-file fuzzing corpus (tests/fuzz/export_corpus) replayed through the regular build, without clang or
// libFuzzer: every file is refused as JSON, refused in one short ExportError line, or read into a table that reads
// back the same through the writer (the contract of fuzz/export_check.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/export_check.hpp"

namespace mpgemm {
namespace {

std::string read(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(ExportCorpus, EveryFileIsReadOrRefusedInOneLine) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(MPGEMM_SOURCE_DIR "/tests/fuzz/export_corpus"))
    files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 10u) << "the corpus lost its files";
  for (const auto& file : files) EXPECT_EQ(fuzz::check_export_input(read(file)), "") << file.filename();
}

// The seeds reach what they are there for: the valid one reads, the deep one stops at the depth bound.
TEST(ExportCorpus, SeedsReachWhatTheyAreFor) {
  const ExportTable valid =
      export_table_from_json(parse_json_bounded(read(MPGEMM_SOURCE_DIR "/tests/fuzz/export_corpus/valid.json")));
  EXPECT_EQ(valid.entries.size(), 2u);
  try {
    parse_json_bounded(read(MPGEMM_SOURCE_DIR "/tests/fuzz/export_corpus/deep_params.json"));
    FAIL() << "accepted";
  } catch (const nlohmann::json::parse_error& e) {
    EXPECT_NE(std::string(e.what()).find("nesting deeper than 64 levels"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace mpgemm
