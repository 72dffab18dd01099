// Loading a valid space: every field as typed data, named points, and errors placed through Space::error_at.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "space/enumerate.hpp"
#include "space/space.hpp"

namespace mpgemm {
namespace {

const std::string kGoodSmall = MPGEMM_SOURCE_DIR "/tests/data/spaces/good_small.json";

std::vector<Value> ints(std::initializer_list<std::int64_t> values) {
  std::vector<Value> out;
  for (std::int64_t v : values) out.emplace_back(v);
  return out;
}

TEST(SpaceLoad, GoodSmallAsTypedData) {
  Space s = load_space(kGoodSmall);
  EXPECT_EQ(s.file, kGoodSmall);
  EXPECT_EQ(s.family, "wmma");
  EXPECT_EQ(s.description, "A small WMMA space for the unit tests: 576 configs before constraints");
  EXPECT_EQ(s.arch, "sm_86");
  EXPECT_EQ(s.shapes, (std::vector<Shape>{{1024, 1024, 1024}, {4096, 2048, 512}}));

  ASSERT_EQ(s.constants.size(), 2u);
  EXPECT_EQ(s.constants[0].name, "SMEM_LIMIT");
  EXPECT_EQ(s.constants[0].value, 32768);
  EXPECT_EQ(s.constants[1].name, "MAX_THREADS");
  EXPECT_EQ(s.constants[1].json_path, "/constants/MAX_THREADS");

  std::vector<std::string> names;
  for (const Parameter& p : s.parameters) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"BM", "BN", "BK", "WM", "WN", "STAGES", "LOAD"}));  // file order
  EXPECT_EQ(s.parameters[0].kind, Parameter::Kind::values);
  EXPECT_EQ(s.parameters[0].domain, ints({32, 48, 64, 128}));
  EXPECT_EQ(s.parameters[0].description, "block tile rows");
  EXPECT_EQ(s.parameters[0].json_path, "/parameters/BM");
  EXPECT_EQ(s.parameters[1].kind, Parameter::Kind::pow2);
  EXPECT_EQ(s.parameters[1].domain, ints({32, 64, 128}));
  EXPECT_EQ(s.parameters[5].kind, Parameter::Kind::range);
  EXPECT_EQ(s.parameters[5].domain, ints({1, 2, 3}));
  EXPECT_EQ(s.parameters[6].type, ValueType::string);
  EXPECT_EQ(s.parameters[6].domain, (std::vector<Value>{std::string("sync"), std::string("cp_async")}));
  EXPECT_EQ(s.find_parameter("WN"), &s.parameters[4]);
  EXPECT_EQ(s.find_parameter("XX"), nullptr);

  ASSERT_EQ(s.derived.size(), 2u);
  EXPECT_EQ(s.derived[1].name, "SMEM_BYTES");
  EXPECT_EQ(s.derived[1].source(), "STAGES * (BM * BK + BK * BN) * 2");
  ASSERT_EQ(s.constraints.size(), 4u);
  EXPECT_EQ(s.constraints[2].source(), "LOAD == \"cp_async\" || STAGES == 1");
  EXPECT_EQ(s.constraints[2].json_path, "/constraints/2");

  std::vector<Symbol> symbols = s.symbols();
  ASSERT_EQ(symbols.size(), 11u);  // 7 parameters, 2 constants, 2 derived, in slot order
  EXPECT_EQ(symbols[6].name, "LOAD");
  EXPECT_EQ(symbols[7].name, "SMEM_LIMIT");
  EXPECT_EQ(symbols[10].name, "SMEM_BYTES");
}

TEST(SpaceLoad, NamedPointsAreCompleteAndMayLeaveTheDomains) {
  Space s = load_space(kGoodSmall);
  ASSERT_EQ(s.points.size(), 2u);
  EXPECT_EQ(s.points[0].name, "wmma_naive");  // file order
  EXPECT_EQ(s.points[0].json_path, "/points/wmma_naive");
  EXPECT_EQ(
      s.points[0].params,
      (Params{
          {"BM", 16}, {"BN", 16}, {"BK", 16}, {"WM", 16}, {"WN", 16}, {"STAGES", 1}, {"LOAD", std::string("direct")}}));
  const NamedPoint* p = s.find_point("wmma_cp_async");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(get_int(p->params, "STAGES"), 2);
  EXPECT_EQ(get_string(p->params, "LOAD"), "cp_async");
  EXPECT_EQ(failing_constraint(s, p->params), std::nullopt);
  EXPECT_EQ(s.find_point("nope"), nullptr);
  // A layer above (e.g. a family rejecting the point) reports at the point's place in the file.
  SpaceError e = s.error_at_key(p->json_path, "family wmma cannot run it");
  EXPECT_STREQ(e.what(), (kGoodSmall + ":31:5: at /points/wmma_cp_async: family wmma cannot run it").c_str());
}

TEST(SpaceLoad, ErrorAtFallsBackToTheNearestParent) {
  Space s = load_space(kGoodSmall);
  SpaceError exact = s.error_at("/parameters/BM/values/2", "m");
  EXPECT_EQ(exact.line(), 11);
  EXPECT_EQ(exact.column(), 31);
  SpaceError key = s.error_at_key("/parameters/BM", "m");
  EXPECT_EQ(key.line(), 11);
  EXPECT_EQ(key.column(), 5);
  SpaceError parent = s.error_at("/parameters/BM/values/9", "m");  // no such element: the list's place
  EXPECT_EQ(parent.line(), 11);
  EXPECT_EQ(parent.column(), 22);
  EXPECT_EQ(parent.json_path(), "/parameters/BM/values/9");  // the path asked about is kept
  SpaceError root = s.error_at("/nothing/here", "m");
  EXPECT_EQ(root.line(), 1);
  EXPECT_EQ(root.column(), 1);
}

// what() of the SpaceError that parsing `text` throws, or "" if it loads.
std::string error_of(const std::string& text) {
  try {
    parse_space(text, "x.json");
  } catch (const SpaceError& e) {
    return e.what();
  }
  return "";
}

TEST(SpaceLoad, MoreValidationOnInlineSpaces) {
  const std::string head = R"({"family": "f", "shapes": [{"M": 1, "N": 1, "K": 1}], )";
  EXPECT_EQ(error_of(head + R"("parameters": {"A": {"values": [1]}}})"), "");
  EXPECT_EQ(error_of(head + R"("parameters": {}})"),
            "x.json:1:69: at /parameters: expected at least one parameter, got {}");
  EXPECT_EQ(error_of(head + R"("parameters": {"A": {"values": [1], "range": [1, 2]}}})"),
            "x.json:1:75: at /parameters/A: parameter A needs exactly one of \"values\", \"pow2\" or \"range\", got 2");
  EXPECT_EQ(error_of(head + R"("parameters": {"A": {"values": [true]}}})"),
            "x.json:1:87: at /parameters/A/values/0: expected an integer or a string, got true");
  EXPECT_EQ(error_of(head + R"("parameters": {"A": {"values": [9223372036854775808]}}})"),
            "x.json:1:87: at /parameters/A/values/0: integer 9223372036854775808 is out of range (at most "
            "9223372036854775807)");
  EXPECT_EQ(error_of(head + R"("parameters": {"A": {"range": [0, 100000000]}}})"),
            "x.json:1:85: at /parameters/A/range: the range has 100000001 values, more than the limit of 10000000");
  EXPECT_EQ(error_of(head + R"("parameters": {"A": {"range": [1]}}})"),
            "x.json:1:85: at /parameters/A/range: expected [lo, hi] or [lo, hi, step], got an array of 1 elements");
  EXPECT_EQ(error_of(head + R"("parameters": {"A": {"values": [1]}}, "derived": {"D": "\"s\""}})"),
            "x.json:1:110: at /derived/D: derived D = \"\"s\"\" is a string; expected an integer or a condition");
  EXPECT_EQ(error_of(head + R"("parameters": {"A": {"values": [1]}}, "derived": {"D": "D + 1"}})"),
            "x.json:1:110: at /derived/D: derived D = \"D + 1\": refers to itself (at character 1)");
  EXPECT_EQ(error_of(head + R"("parameters": {"A": {"values": [1]}}, "constraints": "A > 0"})"),
            "x.json:1:108: at /constraints: expected an array, got \"A > 0\"");
  EXPECT_EQ(error_of(head + R"("parameters": {"A": {"values": [1]}}, "points": {"a b": {"A": 1}}})"),
            "x.json:1:104: at /points/a b: invalid point name \"a b\": names are letters, digits and '_'");
  EXPECT_EQ(error_of(R"({"family": "", "shapes": [], "parameters": {}})"),
            "x.json:1:12: at /family: the family name is empty");
  EXPECT_EQ(error_of(R"({"family": "f", "shapes": [], "parameters": {}})"),
            "x.json:1:27: at /shapes: expected a non-empty array, got []");
  EXPECT_EQ(error_of(R"({"family": "f", "shapes": [{"M": 1, "N": 2, "K": 3}, {"K": 3, "N": 2, "M": 1}]})"),
            "x.json:1:54: at /shapes/1: duplicate shape 1x2x3 (already at index 0)");
  EXPECT_EQ(error_of(R"({"family": "f", "shapes": [{"M": 1, "N": 2}]})"),
            "x.json:1:28: at /shapes/0: missing "
            "required key \"K\"");
  // A newline inside a quoted expression is escaped, so what() stays one line.
  EXPECT_EQ(error_of(head + "\"parameters\": {\"A\": {\"values\": [1]}},\n\"constraints\": [\"A >\\n\"]}"),
            "x.json:2:17: at /constraints/0: constraint \"A >\\n\": unexpected end of expression, expected a value "
            "(at character 5)");
}

TEST(SpaceLoad, ProblemsListTheKindsASpaceIsMeantFor) {
  const std::string head =
      R"({"family": "f", "shapes": [{"M": 1, "N": 1, "K": 1}], "parameters": {"A": {"values": [1]}}, )";
  const Space any = parse_space(head + R"("problems": "any"})", "x.json");
  EXPECT_TRUE(any.problems.empty());
  EXPECT_EQ(any.refuses(*ProblemKind::parse("km_kn_bf16_bf16_beta")), std::nullopt);
  const Space listed = parse_space(head + R"("problems": ["mk_kn_fp16_fp32", "mk_nk_bf16_bf16"]})", "x.json");
  ASSERT_EQ(listed.problems.size(), 2u);
  EXPECT_EQ(listed.problems[1].name(), "mk_nk_bf16_bf16");
  EXPECT_EQ(listed.refuses(ProblemKind{}), std::nullopt);
  EXPECT_EQ(listed.refuses(*ProblemKind::parse("mk_nk_bf16_bf16_beta")),
            "x.json is meant for mk_kn_fp16_fp32, mk_nk_bf16_bf16 (its \"problems\"), not mk_nk_bf16_bf16_beta: tune "
            "it with a space that lists it, or add it to the space's \"problems\"");
  EXPECT_NE(error_of(head + R"("problems": ["mk_nk_bf17_bf16"]})").find("x.json:1:"), std::string::npos);
  EXPECT_NE(error_of(head + R"("problems": ["mk_nk_bf17_bf16"]})").find("at /problems/0: "), std::string::npos);
  EXPECT_NE(error_of(head + R"("problems": ["mk_nk_bf16_bf16", "mk_nk_bf16_bf16"]})")
                .find("at /problems/1: mk_nk_bf16_bf16 is listed twice"),
            std::string::npos);
  EXPECT_NE(error_of(head + R"("problems": []})").find("at /problems: expected a non-empty array"), std::string::npos);
  EXPECT_NE(error_of(head + R"("problems": "all"})").find("at /problems: expected \"any\" or a list of problem kinds"),
            std::string::npos);
}

TEST(SpaceLoad, ConstraintsAndDerivedSeeEachOther) {
  Space s = parse_space(R"({"family": "f", "shapes": [{"M": 1, "N": 1, "K": 1}],
    "constants": {"C": 10},
    "parameters": {"A": {"range": [1, 10, 4]}, "B": {"values": ["p", "q"]}},
    "derived": {"D": "A * C", "E": "D - 1"},
    "constraints": ["E > 10 && B != \"q\""],
    "points": {"outside": {"A": 100, "B": "zzz"}}})",
                        "inline");
  EXPECT_EQ(s.parameters[0].domain, ints({1, 5, 9}));
  EXPECT_FALSE(s.arch.has_value());
  Enumeration e = enumerate(s);
  EXPECT_EQ(e.configs, (std::vector<Params>{{{"A", 5}, {"B", std::string("p")}}, {{"A", 9}, {"B", std::string("p")}}}));
}

}  // namespace
}  // namespace mpgemm
