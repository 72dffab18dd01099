// Shape lists apart from a space (space/shape_list.hpp, mpgemm-tune --shapes): inline lists, shape files in both
// forms, what is refused, and the suites kept in configs/shapes/.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

#include <fmt/format.h>

#include "common/error.hpp"
#include "space/shape_list.hpp"
#include "support/run_command.hpp"

namespace mpgemm {
namespace {

namespace fs = std::filesystem;

TEST(SpaceShapeList, ParsesInlineLists) {
  EXPECT_EQ(parse_shape("4096x2048x256"), (Shape{4096, 2048, 256}));
  EXPECT_EQ(parse_shape_list("16x4096x4096,3000x3000x3000"),
            (std::vector<Shape>{{16, 4096, 4096}, {3000, 3000, 3000}}));
  for (const char* bad : {"", "4096", "4096x4096", "4096x4096x", "x4096x4096", "0x1x1", "1x-1x1", "1x1x1x1", "axbxc",
                          "1x1x1,", "1x1x1,1x1x1", " 1x1x1"})
    EXPECT_THROW(parse_shape_list(bad), UsageError) << bad;
}

class SpaceShapeFile : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::fresh_dir("shape_file"); }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& text) {
    const fs::path p = dir_ / "shapes.json";
    std::ofstream(p) << text;
    return p.string();
  }
  std::string error_of(const std::string& text) { return error_of_path(write(text)); }
  std::string error_of_path(const std::string& path) {
    try {
      load_shapes(path);
    } catch (const UsageError& e) {
      return e.what();
    }
    return "";
  }
  fs::path dir_;
};

TEST_F(SpaceShapeFile, ReadsAListOrAnObjectWithShapes) {
  EXPECT_EQ(extents_of(load_shapes(write(R"([{"M": 1, "N": 8, "K": 16}])"))), (std::vector<Shape>{{1, 8, 16}}));
  EXPECT_EQ(extents_of(load_shapes(
                write(R"({"description": "d", "shapes": [{"M": 2, "N": 8, "K": 16}, {"K": 8, "N": 8, "M": 8}]})"))),
            (std::vector<Shape>{{2, 8, 16}, {8, 8, 8}}));
}

TEST_F(SpaceShapeFile, SaysWhereAFileIsWrong) {
  EXPECT_NE(error_of("[").find("invalid JSON"), std::string::npos);
  EXPECT_NE(error_of("[]").find("non-empty list"), std::string::npos);
  EXPECT_NE(error_of(R"({"shape": []})").find("unknown key \"shape\""), std::string::npos);
  EXPECT_NE(error_of(R"([{"M": 1, "N": 8}])").find("/0: missing \"K\""), std::string::npos);
  EXPECT_NE(error_of(R"({"shapes": [{"M": 1, "N": 8, "K": 8}, {"M": 0, "N": 8, "K": 8}]})").find("/shapes/1/M"),
            std::string::npos);
  EXPECT_NE(error_of(R"([{"M": 1, "N": 8, "K": 8, "L": 1}])").find("unknown key \"L\""), std::string::npos);
  EXPECT_NE(error_of(R"([{"M": 1, "N": 8, "K": 8}, {"M": 1, "N": 8, "K": 8}])").find("listed twice"),
            std::string::npos);
  EXPECT_THROW(load_shapes((dir_ / "missing.json").string()), UsageError);
}

// A file, or a shape, may name its problem kind: a shape's own wins over its file's, a shape that names none (nor
// its file) names no kind (the run's applies), and one shape may be listed once per kind.
TEST_F(SpaceShapeFile, AProblemKindIsReadPerShapeOrFromTheFile) {
  const ProblemKind linear = *ProblemKind::parse("mk_nk_bf16_bf16");
  const ProblemKind dw = *ProblemKind::parse("km_kn_bf16_bf16");
  EXPECT_EQ(load_shapes(write(R"({"problem": "mk_kn_fp16_fp32", "shapes": [{"M": 2, "N": 8, "K": 16}]})")),
            (std::vector<ListedShape>{{{2, 8, 16}, ProblemKind{}}}));
  EXPECT_EQ(load_shapes(write(R"([{"M": 1, "N": 8, "K": 16}])")),
            (std::vector<ListedShape>{{{1, 8, 16}, std::nullopt}}));
  EXPECT_EQ(load_shapes(write(R"({"problem": "mk_nk_bf16_bf16", "shapes": [{"M": 2, "N": 8, "K": 16},
                                  {"M": 2, "N": 8, "K": 16, "problem": "km_kn_bf16_bf16"}, {"M": 4, "N": 8, "K": 8}]})")),
            (std::vector<ListedShape>{{{2, 8, 16}, linear}, {{2, 8, 16}, dw}, {{4, 8, 8}, linear}}));
  // The same shape under the same kind twice is still a mistake, and the message names the kind.
  EXPECT_NE(error_of(R"({"problem": "mk_nk_bf16_bf16", "shapes": [{"M": 2, "N": 8, "K": 16},
                          {"M": 2, "N": 8, "K": 16, "problem": "mk_nk_bf16_bf16"}]})")
                .find("/shapes/1: shape 2x8x16 is listed twice for mk_nk_bf16_bf16"),
            std::string::npos);
  EXPECT_NE(error_of(R"([{"M": 1, "N": 8, "K": 16, "problem": "mk_kn_fp8_fp32"}])")
                .find("/0/problem: 'mk_kn_fp8_fp32' is not a problem kind: the input type 'fp8'"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"problem": "nk_kn_fp16_fp32", "shapes": [{"M": 1, "N": 8, "K": 16}]})").find("/problem: "),
            std::string::npos);
  EXPECT_NE(error_of(R"([{"M": 1, "N": 8, "K": 16, "problem": 3}])").find("expected a problem kind's name"),
            std::string::npos);
  // An inline list names no kind.
  EXPECT_EQ(load_shapes("1x8x16,2x8x16"),
            (std::vector<ListedShape>{{{1, 8, 16}, std::nullopt}, {{2, 8, 16}, std::nullopt}}));
}

// A captured program's file (python/mpgemm/shapes.py): call counts per shape and the GEMMs no kind expresses are
// read and checked, and change nothing the tuner does.
TEST_F(SpaceShapeFile, ACaptureFilesCallsAndNotTunableAreAccepted) {
  EXPECT_EQ(load_shapes(write(R"({"shapes": [{"M": 2, "N": 8, "K": 16, "problem": "mk_nk_bf16_bf16", "calls": 12}],
                                  "not_tunable": [{"op": "aten.bmm", "why": "batched", "calls": 4}]})")),
            (std::vector<ListedShape>{{{2, 8, 16}, *ProblemKind::parse("mk_nk_bf16_bf16")}}));
  EXPECT_NE(error_of(R"([{"M": 1, "N": 8, "K": 8, "calls": -1}])").find("/0/calls: expected a count >= 0"),
            std::string::npos);
  EXPECT_NE(error_of(R"([{"M": 1, "N": 8, "K": 8, "calls": "x"}])").find("/0/calls"), std::string::npos);
  EXPECT_NE(error_of(R"({"shapes": [{"M": 1, "N": 8, "K": 8}], "not_tunable": 3})").find("/not_tunable"),
            std::string::npos);
}

// A million levels: parsing stops at the 65th (kMaxJsonDepth), before anything walks or dumps the value (the
// message quoting the element dumped it recursively and overflowed the stack).
TEST_F(SpaceShapeFile, DeepNestingIsOneError) {
  const std::string deep = std::string(1'000'000, '[') + std::string(1'000'000, ']');
  const std::string what = error_of(deep);
  EXPECT_NE(what.find("invalid JSON"), std::string::npos) << what;
  EXPECT_NE(what.find("nesting deeper than 64 levels"), std::string::npos) << what;
  EXPECT_NE(what.find("at byte 65"), std::string::npos) << what;  // the '[' that passes the bound
  EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  // Within the bound the element is quoted, and cut short.
  EXPECT_NE(error_of("[" + std::string(63, '[') + std::string(63, ']') + "]")
                .find("/0: expected {\"M\", \"N\", \"K\"}, got [[[["),
            std::string::npos);
}

// /dev/zero (or any endless file) stops at kMaxInputFileBytes with one line, not bad_alloc.
TEST_F(SpaceShapeFile, EndlessFileIsOneError) {
  try {
    load_shapes("/dev/zero");
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "/dev/zero: the shape file is larger than 64 MiB (is it the right file?)");
  }
  EXPECT_EQ(error_of_path(dir_.string()), dir_.string() + ": cannot read the shape file: it is a folder");
}

// Messages quote the file's values and keys: a huge one is cut, a control character escaped, so the refusal
// stays one short line.
TEST_F(SpaceShapeFile, MessagesQuoteValuesWithinBounds) {
  std::string huge = "[";
  for (int i = 0; i < 100'000; ++i) huge += (i ? ",1" : "1");
  const std::string long_value = error_of("[" + huge + "]]");
  EXPECT_NE(long_value.find("/0: expected {\"M\", \"N\", \"K\"}, got [1,1,1,"), std::string::npos) << long_value;
  EXPECT_LT(long_value.size(), 300u);
  const std::string long_dim = error_of(R"([{"M": )" + huge + R"(], "N": 1, "K": 1}])");
  EXPECT_NE(long_dim.find("/0/M: expected a positive integer, got [1,1,"), std::string::npos) << long_dim;
  EXPECT_LT(long_dim.size(), 300u);
  const std::string key = error_of(R"([{"M": 1, "N": 1, "K": 1, "a\nb": 1}])");
  EXPECT_NE(key.find(R"(unknown key "a\nb")"), std::string::npos) << key;
  EXPECT_EQ(key.find('\n'), std::string::npos) << key;
  const std::string bad_token = error_of("[\"" + std::string(100'000, 'x') + "\n\"]");  // a raw newline in a string
  EXPECT_NE(bad_token.find("invalid JSON"), std::string::npos);
  EXPECT_LT(bad_token.size(), 400u);
  try {
    parse_shape_list("1x1x1\n" + std::string(100'000, 'x'));
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    EXPECT_LT(std::string(e.what()).size(), 200u);
  }
}

// The duplicate check is O(n log n): a million inline shapes, and a file of 200,000 whose first duplicate comes
// last, are read in well under a second (a linear search per shape took minutes for the million). The first shape
// listed again is the one reported.
TEST(SpaceShapeListSize, LongListsLoadAndTheFirstDuplicateIsReported) {
  std::string inline_list;
  for (int i = 1; i <= 1'000'000; ++i) inline_list += fmt::format("{}{}x{}x{}", i > 1 ? "," : "", i, 8, 1 + i % 7);
  EXPECT_EQ(parse_shape_list(inline_list).size(), 1'000'000u);
  try {
    parse_shape_list("1x8x2,5x8x6,3x8x4,5x8x6,3x8x4");
    FAIL() << "duplicates accepted";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--shapes: shape 5x8x6 is listed twice");
  }
  const fs::path dir = testing::fresh_dir("long_shape_file");
  std::string file = "{\"shapes\": [";
  for (int i = 1; i <= 200'000; ++i) file += fmt::format("{}{{\"M\": {}, \"N\": 8, \"K\": 8}}", i > 1 ? "," : "", i);
  std::ofstream(dir / "dup.json") << file << R"(, {"M": 7, "N": 8, "K": 8}, {"M": 2, "N": 8, "K": 8}]})";
  try {
    load_shapes((dir / "dup.json").string());
    FAIL() << "duplicates accepted";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "dup.json").string() + ": /shapes/200000: shape 7x8x8 is listed twice");
  }
  fs::remove_all(dir);
}

// mpgemm-tune's shapes after --M/--N/--K, each once in list order: two million shapes (half of them repeats) in
// about a second; the linear search it replaced took 418 s for a million (issue 57), past ctest's timeout here.
TEST(SpaceShapeListSize, RepeatsAreDroppedInOrderWithoutAQuadraticSearch) {
  std::vector<Shape> shapes;
  for (std::int64_t i = 1; i <= 1'000'000; ++i) shapes.push_back(Shape{i, 8, 1 + i % 7});
  for (std::int64_t i = 1'000'000; i >= 1; --i) shapes.push_back(Shape{i, 8, 1 + i % 7});
  const std::vector<Shape> unique = without_repeats(shapes);
  ASSERT_EQ(unique.size(), 1'000'000u);
  EXPECT_TRUE(std::equal(unique.begin(), unique.end(), shapes.begin()));
  EXPECT_EQ(without_repeats({Shape{4, 4, 4}, Shape{2, 2, 2}, Shape{4, 4, 4}, Shape{3, 3, 3}, Shape{2, 2, 2}}),
            (std::vector<Shape>{Shape{4, 4, 4}, Shape{2, 2, 2}, Shape{3, 3, 3}}));
}

// The suites of configs/shapes: issue 9's ten shapes, and 48 transformer GEMMs whose N and K suit TMA.
TEST(SpaceShapeSuites, TheRepositorySuitesLoad) {
  const auto ten = extents_of(load_shapes(testing::source("configs/shapes/suite10.json")));
  ASSERT_EQ(ten.size(), 10u);
  for (const Shape& s :
       {Shape{512, 512, 512}, Shape{1024, 1024, 1024}, Shape{2048, 2048, 2048}, Shape{4096, 4096, 4096},
        Shape{8192, 8192, 8192}, Shape{128, 8192, 8192}, Shape{8192, 8192, 1024}, Shape{4096, 4096, 256},
        Shape{3000, 3000, 3000}, Shape{16, 4096, 4096}})
    EXPECT_NE(std::find(ten.begin(), ten.end(), s), ten.end()) << s.str();
  const auto layers = extents_of(load_shapes(testing::source("configs/shapes/transformer.json")));
  EXPECT_EQ(layers.size(), 48u);
  for (const Shape& s : layers) {
    EXPECT_EQ(s.n % 8, 0) << s.str();
    EXPECT_EQ(s.k % 8, 0) << s.str();
  }
}

}  // namespace
}  // namespace mpgemm
