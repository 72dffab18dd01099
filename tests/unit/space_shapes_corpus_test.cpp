// The shape list fuzzing corpus (tests/fuzz/shapes_corpus) replayed through the regular build, without clang or
// libFuzzer: every file, as a shape file and as an inline list, gives shapes or one short UsageError line (the
// contract of fuzz/shapes_check.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/shapes_check.hpp"

namespace mpgemm {
namespace {

TEST(SpaceShapesCorpus, EveryFileGivesShapesOrOneShortUsageError) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(MPGEMM_SOURCE_DIR "/tests/fuzz/shapes_corpus"))
    files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 10u) << "the corpus lost its files";
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    EXPECT_EQ(fuzz::check_shapes_input(text), "") << file.filename();
  }
}

// The contract itself: what it must refuse.
TEST(SpaceShapesCorpus, ContractRefusesWhatIsWrong) {
  using Shapes = std::vector<Shape>;
  EXPECT_EQ(fuzz::shapes_problem(Shapes{Shape{1, 2, 3}, Shape{3, 2, 1}}), "");
  EXPECT_NE(fuzz::shapes_problem(Shapes{}), "");
  EXPECT_NE(fuzz::shapes_problem(Shapes{Shape{1, 0, 3}}), "");
  EXPECT_NE(fuzz::shapes_problem(Shapes{Shape{1, 2, 3}, Shape{4, 4, 4}, Shape{1, 2, 3}}), "");
  // A shape file's entries: one shape under two kinds is two entries, under one kind twice a mistake.
  using Listed = std::vector<ListedShape>;
  const ProblemKind linear = *ProblemKind::parse("mk_nk_bf16_bf16");
  EXPECT_EQ(fuzz::shapes_problem(Listed{{Shape{1, 2, 3}, std::nullopt}, {Shape{1, 2, 3}, linear}}), "");
  EXPECT_NE(fuzz::shapes_problem(Listed{{Shape{1, 2, 3}, linear}, {Shape{1, 2, 3}, linear}}), "");
  EXPECT_NE(fuzz::shapes_problem(Listed{{Shape{1, 0, 3}, linear}}), "");
  EXPECT_EQ(fuzz::message_problem("input.json: /0: missing \"K\"", {"input.json: "}), "");
  EXPECT_NE(fuzz::message_problem("input.json: unknown key \"a\nb\"", {"input.json: "}), "");
  EXPECT_NE(fuzz::message_problem("input.json: " + std::string(1000, 'x'), {"input.json: "}), "");
  EXPECT_NE(fuzz::message_problem("other.json: /0: missing \"K\"", {"input.json: "}), "");
}

// The deep-nesting seed is there and reaches the depth bound (it crashed the reader before the bound).
TEST(SpaceShapesCorpus, DeepNestingSeedIsRefusedByTheBound) {
  std::ifstream in(MPGEMM_SOURCE_DIR "/tests/fuzz/shapes_corpus/deep.json", std::ios::binary);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  try {
    parse_shape_file(text, "deep.json");
    FAIL() << "accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("nesting deeper than 64 levels"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace mpgemm
