// Malformed space files (tests/data/spaces/bad_*.json): each error names the exact line, column, JSON path and
// problem, and what() is the one line "file:line:column: at /path: message".
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "space/space.hpp"

namespace mpgemm {
namespace {

struct BadFile {
  const char* file;
  int line;
  int column;
  const char* json_path;
  const char* message;
};

// Keep the names in sync with the files; every bad_*.json file must appear here (checked below).
const BadFile kBadFiles[] = {
    {"bad_syntax_missing_comma.json", 4, 3, "",
     "invalid JSON: syntax error while parsing object - unexpected string literal; expected '}'"},
    {"bad_truncated.json", 5, 29, "",
     "invalid JSON: syntax error while parsing array - unexpected end of input; expected ']'"},
    {"bad_number_overflow.json", 4, 26, "/constants/LIMIT", "number 1e999 is out of range"},
    // The '[' that opens the 65th level (kMaxJsonDepth is 64); the brackets inside the description do not count.
    {"bad_deep_nesting.json", 6, 83, "",
     "invalid JSON: nesting deeper than 64 levels (arrays and objects within one another)"},
    {"bad_top_level_array.json", 1, 1, "", "expected an object, got an array"},
    {"bad_unknown_top_key.json", 5, 3, "/constraint",
     "unknown key \"constraint\" (did you mean \"constraints\"?); expected family, description, arch, problems, "
     "shapes, constants, parameters, derived, constraints, points"},
    {"bad_missing_shapes.json", 1, 1, "", "missing required key \"shapes\""},
    {"bad_duplicate_key.json", 7, 5, "/parameters/BM", "duplicate key \"BM\" (first at line 5, column 5)"},
    {"bad_arch.json", 3, 11, "/arch", "unknown arch \"ampere\"; expected e.g. \"sm_86\" or \"sm_90a\""},
    {"bad_string_for_integer.json", 3, 30, "/shapes/0/N", "expected a positive integer, got \"256\""},
    {"bad_shape_not_positive.json", 5, 21, "/shapes/1/N", "expected a positive integer, got 0"},
    {"bad_shape_unknown_key.json", 3, 45, "/shapes/0/L", "unknown key \"L\" (did you mean \"M\"?); expected M, N, K"},
    {"bad_param_spec_key.json", 5, 12, "/parameters/BM/value",
     "unknown key \"value\" (did you mean \"values\"?); expected values, pow2, range, description"},
    {"bad_float_in_range.json", 6, 29, "/parameters/STAGES/range/1", "expected an integer, got 4.5"},
    {"bad_empty_domain.json", 5, 22, "/parameters/BM/values", "expected a non-empty array, got []"},
    {"bad_duplicate_value.json", 5, 37, "/parameters/BM/values/3", "duplicate value 128 (already at index 1)"},
    {"bad_mixed_list.json", 5, 45, "/parameters/LOAD/values/2",
     "expected a string like the first value, got 3 (a list holds integers or strings, not both)"},
    {"bad_pow2_not_power.json", 5, 25, "/parameters/BK/pow2/1", "48 is not a power of two"},
    {"bad_pow2_order.json", 5, 20, "/parameters/BK/pow2", "lo 64 is greater than hi 16"},
    {"bad_range_step.json", 5, 32, "/parameters/STAGES/range/2", "step must be positive, got 0"},
    {"bad_too_large.json", 4, 17, "/parameters",
     "the space has 11000000 configs (1000 x 1000 x 11), more than the limit of 10000000; narrow the domains"},
    {"bad_parameter_name.json", 6, 5, "/parameters/2WM",
     "invalid parameter name \"2WM\": names are letters, digits and '_', not starting with a digit, and not min, "
     "max or is_pow2"},
    {"bad_name_collision.json", 4, 17, "/constants/BM",
     "constant name \"BM\" is already the name of a parameter (line 6, column 5)"},
    {"bad_derived_order.json", 9, 16, "/derived/THREADS",
     "derived THREADS = \"WARPS * 32\": uses WARPS, which is derived later in the file (at character 1); derived "
     "values may use only those before them"},
    {"bad_constraint_syntax.json", 10, 5, "/constraints/1",
     "constraint \"BM % == 0\": unexpected '=', expected a value (at character 6)"},
    {"bad_constraint_unknown_name.json", 8, 19, "/constraints/0",
     "constraint \"BM % WX == 0\": unknown name 'WX' (did you mean 'WM'?) (at character 6)"},
    {"bad_constraint_type.json", 8, 19, "/constraints/0",
     "constraint \"LOAD == 1 || BM == 64\": '==' compares a string with an integer (at character 6)"},
    {"bad_point_missing_param.json", 9, 5, "/points/small", "point \"small\" does not set parameter WM"},
    {"bad_point_extra_key.json", 9, 35, "/points/small/WK",
     "point \"small\" sets \"WK\", which is not a parameter (did you mean \"WM\"?)"},
    {"bad_point_type.json", 9, 21, "/points/small/BM", "expected an integer (parameter BM is an integer), got \"64\""},
    {"bad_point_violates.json", 11, 5, "/points/odd", "point \"odd\" violates constraint \"BM % WM == 0\""},
    {"bad_infeasible.json", 8, 18, "/constraints",
     "no config satisfies every constraint; of the 6 configs, \"BM * WM <= 1024\" rejects the most (5); configs "
     "failing each constraint: \"BM >= WM\": 1, \"BM * WM <= 1024\": 5, \"WM == 64\": 3"},
};

class SpaceBadFile : public testing::TestWithParam<BadFile> {};

TEST_P(SpaceBadFile, ReportsExactPlaceAndMessage) {
  const BadFile& bad = GetParam();
  std::string path = std::string(MPGEMM_SOURCE_DIR "/tests/data/spaces/") + bad.file;
  try {
    load_space(path);
    FAIL() << bad.file << " loaded without error";
  } catch (const SpaceError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), bad.line);
    EXPECT_EQ(e.column(), bad.column);
    EXPECT_EQ(e.json_path(), bad.json_path);
    EXPECT_EQ(e.message(), bad.message);
    std::string shown_path = *bad.json_path ? bad.json_path : "/";
    EXPECT_EQ(std::string(e.what()),
              fmt::format("{}:{}:{}: at {}: {}", path, bad.line, bad.column, shown_path, bad.message));
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
}

std::string test_name(const testing::TestParamInfo<BadFile>& param) {
  std::string name = param.param.file;
  return name.substr(4, name.size() - 9);  // bad_X.json -> X
}

INSTANTIATE_TEST_SUITE_P(Files, SpaceBadFile, testing::ValuesIn(kBadFiles), test_name);

TEST(SpaceBadFiles, EveryBadFileIsCovered) {
  std::size_t on_disk = 0;
  for (const auto& entry : std::filesystem::directory_iterator(MPGEMM_SOURCE_DIR "/tests/data/spaces")) {
    std::string name = entry.path().filename().string();
    if (!name.starts_with("bad_")) continue;
    ++on_disk;
    bool listed = false;
    for (const BadFile& b : kBadFiles) listed = listed || name == b.file;
    EXPECT_TRUE(listed) << name << " has no expectation in kBadFiles";
  }
  EXPECT_EQ(on_disk, std::size(kBadFiles));
}

TEST(SpaceBadFiles, UnreadableFileIsASpaceError) {
  std::string path = MPGEMM_SOURCE_DIR "/tests/data/spaces/no_such_file.json";
  try {
    load_space(path);
    FAIL() << "no error";
  } catch (const SpaceError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": cannot read the space file: no such file");
  }
  try {
    load_space(MPGEMM_SOURCE_DIR "/tests/data/spaces");
    FAIL() << "no error";
  } catch (const SpaceError& e) {
    EXPECT_EQ(e.message(), "cannot read the space file: it is a folder");
  }
}

// /dev/zero never ends: the loader stops reading at kMaxInputFileBytes with one line, not bad_alloc.
TEST(SpaceBadFiles, EndlessFileIsASpaceError) {
  try {
    load_space("/dev/zero");
    FAIL() << "no error";
  } catch (const SpaceError& e) {
    EXPECT_EQ(std::string(e.what()), "/dev/zero: the space file is larger than 64 MiB (is it the right file?)");
  }
}

// 100,000 levels (far past any stack a recursive walk or dump could take): the same one-line error at the '['
// that passes the bound, found in linear time.
TEST(SpaceBadFiles, NestingFarPastTheBoundIsRefusedWhereItPassesIt) {
  const std::string text = "{\"family\": " + std::string(100'000, '[') + std::string(100'000, ']') + "}";
  try {
    parse_space(text, "deep.json");
    FAIL() << "no error";
  } catch (const SpaceError& e) {
    EXPECT_EQ(std::string(e.what()),
              "deep.json:1:75: at /: invalid JSON: nesting deeper than 64 levels (arrays and objects within one "
              "another)");
  }
}

// The three loader bugs fuzzing found (tests/fuzz/crashes/README.md), each replayed from its reproducer in the
// corpus with the exact line it gives now: a NUL byte after the document (was the locator's mpgemm::Error), an
// out-of-range number in text that is not valid JSON (the same), a key with a newline (a what() of two lines).
TEST(SpaceBadFiles, TheFormerFuzzCrashesAreOneLineSpaceErrors) {
  const std::string corpus = MPGEMM_SOURCE_DIR "/tests/fuzz/corpus/";
  const auto what = [&](const std::string& name) {
    try {
      load_space(corpus + name);
    } catch (const SpaceError& e) {
      return std::string(e.what());
    }
    return std::string("loaded");
  };
  EXPECT_EQ(what("locator_nul_after_document.json"),
            corpus +
                "locator_nul_after_document.json:2:1: at /: NUL byte in the file (a truncated write or a UTF-16 "
                "file?)");
  EXPECT_EQ(what("locator_out_of_range_in_bad_json.json"),
            corpus +
                "locator_out_of_range_in_bad_json.json:1:2: at /: invalid JSON: [json.exception.out_of_range.406] "
                "number overflow parsing '1e999'");
  EXPECT_EQ(what("path_with_newline.json"),
            corpus +
                "path_with_newline.json:1:70: at /parameters/A\\nB: invalid parameter name \"A\\nB\": names are "
                "letters, digits and '_', not starting with a digit, and not min, max or is_pow2");
}

// A space whose members are `members` (text put in as it is) in the object at `section`.
std::string space_with(const std::string& section, const std::string& members) {
  return R"({"family": "wmma", "shapes": [{"M": 64, "N": 64, "K": 64}],
  "parameters": {"BM": {"values": [64, 128]}},
  ")" + section +
         "\": " + members + "}";
}

std::string keys(int n, const char* prefix) {
  std::string out = "{";
  for (int i = 0; i < n; ++i) out += fmt::format("{}\"{}{}\": {}", i ? ", " : "", prefix, i, i);
  return out + "}";
}

std::string refusal(const std::string& text) {
  try {
    parse_space(text, "big.json");
  } catch (const SpaceError& e) {
    return e.what();
  }
  return "loaded";
}

// 200,000 keys in one object: nlohmann's ordered_json searched its object for every key it added (quadratic:
// minutes). The loader refuses an object of more than 1,000 members before parsing, at its '{', in one line.
TEST(SpaceBadFiles, AnObjectOfManyKeysIsRefusedAtItsBrace) {
  EXPECT_EQ(refusal(space_with("constants", keys(200'000, "C"))),
            "big.json:3:16: at /: an object of more than 1000 members: a space file lists tens (is it the right "
            "file?)");
  EXPECT_EQ(refusal(space_with("constants", keys(1'000, "C"))), "loaded");  // at the bound
  EXPECT_EQ(refusal(space_with("constants", keys(1'001, "C"))),
            "big.json:3:16: at /: an object of more than 1000 members: a space file lists tens (is it the right "
            "file?)");
  // The same whatever the object is: the root, an unknown key's value (refused before its key is looked at).
  EXPECT_TRUE(refusal(keys(200'000, "k")).starts_with("big.json:1:1: at /: an object of more than 1000 members"));
  EXPECT_TRUE(refusal(space_with("x", keys(5'000, "k")))
                  .starts_with("big.json:3:8: at /: an object of more than 1000 members"));
}

TEST(SpaceBadFiles, AnArrayOfManyElementsAndAFileOfManyValuesAreRefused) {
  std::string list = "[1";
  for (int i = 2; i <= 1'001; ++i) list += fmt::format(", {}", i);
  EXPECT_EQ(refusal(space_with("constraints", list + "]")),
            "big.json:3:18: at /: an array of more than 1000 elements: a space file lists tens (is it the right "
            "file?)");
  // 200 lists of 999: each within the bound, the file past 100,000 values.
  std::string lists = "[";
  for (int i = 0; i < 200; ++i) lists += (i ? ", " : "") + list.substr(0, list.rfind(',', list.rfind(',') - 1)) + "]";
  const std::string what = refusal(space_with("x", lists + "]"));
  EXPECT_TRUE(
      what.ends_with(": at /: more than 100000 values in the file: a space file holds hundreds (is it the "
                     "right file?)"))
      << what;
  // Commas and brackets inside strings are text, not members.
  EXPECT_EQ(refusal(space_with("description", "\"" + std::string(5'000, ',') + std::string(5'000, '[') + "\"")),
            "loaded");
}

}  // namespace
}  // namespace mpgemm
