// The enumerator against counts and orders computed here independently, with hand-written nested loops.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/error.hpp"
#include "space/enumerate.hpp"
#include "space/space_index.hpp"

namespace mpgemm {
namespace {

const std::string kGoodSmall = MPGEMM_SOURCE_DIR "/tests/data/spaces/good_small.json";

Params config(std::int64_t bm, std::int64_t bn, std::int64_t bk, std::int64_t wm, std::int64_t wn, std::int64_t stages,
              const std::string& load) {
  return Params{{"BM", bm}, {"BN", bn}, {"BK", bk}, {"WM", wm}, {"WN", wn}, {"STAGES", stages}, {"LOAD", load}};
}

TEST(SpaceEnumerate, GoodSmallMatchesNestedLoops) {
  // The constraints of good_small.json, written out by hand.
  std::vector<Params> expected;
  std::vector<std::uint64_t> rejected(4, 0);
  std::uint64_t total = 0;
  for (std::int64_t bm : {32, 48, 64, 128})
    for (std::int64_t bn : {32, 64, 128})
      for (std::int64_t bk : {16, 32})
        for (std::int64_t wm : {16, 32})
          for (std::int64_t wn : {16, 32})
            for (std::int64_t stages : {1, 2, 3})
              for (std::string load : {"sync", "cp_async"}) {
                ++total;
                std::int64_t threads = (bm / wm) * (bn / wn) * 32;
                std::int64_t smem = stages * (bm * bk + bk * bn) * 2;
                if (bm % wm != 0) {
                  ++rejected[0];
                } else if (threads > 256) {
                  ++rejected[1];
                } else if (!(load == "cp_async" || stages == 1)) {
                  ++rejected[2];
                } else if (smem > 32768) {
                  ++rejected[3];
                } else {
                  expected.push_back(config(bm, bn, bk, wm, wn, stages, load));
                }
              }
  ASSERT_EQ(total, 576u);
  Enumeration e = enumerate(load_space(kGoodSmall));
  EXPECT_EQ(e.total, 576u);
  EXPECT_EQ(e.configs.size(), 206u);
  EXPECT_EQ(e.configs, expected);  // same configs in the same order
  EXPECT_EQ(e.rejected_by, rejected);
  EXPECT_EQ(e.rejected_by, (std::vector<std::uint64_t>{72, 192, 104, 2}));
  EXPECT_EQ(e.rejected(), 370u);
}

TEST(SpaceEnumerate, IsDeterministic) {
  Space s = load_space(kGoodSmall);
  Enumeration a = enumerate(s);
  Enumeration b = enumerate(load_space(kGoodSmall));
  EXPECT_EQ(a.configs, b.configs);
  EXPECT_EQ(a.rejected_by, b.rejected_by);
  ASSERT_GE(a.configs.size(), 2u);
  EXPECT_EQ(a.configs.front(), config(32, 32, 16, 16, 16, 1, "sync"));
  EXPECT_EQ(a.configs.back(), config(128, 64, 32, 32, 32, 2, "cp_async"));
}

// AdmissibleIndexes gives the enumeration's configs, in its order, as SpaceIndex numbers them; asked in any order
// and past the end.
TEST(SpaceEnumerate, AdmissibleIndexesAreTheEnumerationsConfigsInOrder) {
  const Space s = load_space(kGoodSmall);
  const Enumeration e = enumerate(s);
  const SpaceIndex index(s);
  AdmissibleIndexes admissible(s);
  EXPECT_EQ(admissible.at(3), index.index_of(e.configs.at(3)));  // a later one first: walked to it
  for (std::size_t k = 0; k < e.configs.size(); ++k) {
    const auto i = admissible.at(k);
    ASSERT_TRUE(i) << k;
    EXPECT_EQ(index.decode(*i), e.configs[k]) << k;
  }
  EXPECT_EQ(admissible.at(e.configs.size()), std::nullopt);
  EXPECT_EQ(admissible.at(e.configs.size() + 5), std::nullopt);
  EXPECT_EQ(admissible.at(0), index.index_of(e.configs.front()));  // still there after the walk ended
}

TEST(SpaceEnumerate, FollowsDeclarationOrderNotNameOrder) {
  // Z is declared first, so it varies slowest; list values keep their listed order.
  Space s = parse_space(R"({"family": "t", "shapes": [{"M": 1, "N": 1, "K": 1}],
    "parameters": {"Z": {"values": [2, 1]}, "A": {"values": ["y", "x"]}, "M": {"range": [0, 4, 3]}}})",
                        "inline");
  Enumeration e = enumerate(s);
  std::vector<Params> expected;
  for (std::int64_t z : {2, 1})
    for (const char* a : {"y", "x"})
      for (std::int64_t m : {0, 3}) expected.push_back(Params{{"Z", z}, {"A", std::string(a)}, {"M", m}});
  EXPECT_EQ(e.configs, expected);
  EXPECT_EQ(e.total, 8u);
  EXPECT_TRUE(e.rejected_by.empty());
}

TEST(SpaceEnumerate, DerivedValuesFeedConstraintsButAreNotReturned) {
  Space s = parse_space(R"({"family": "t", "shapes": [{"M": 1, "N": 1, "K": 1}],
    "parameters": {"A": {"pow2": [1, 8]}, "B": {"range": [1, 3]}},
    "derived": {"P": "A * B", "Q": "P + 1"},
    "constraints": ["Q % 2 == 1", "P >= 4"]})",
                        "inline");
  Enumeration e = enumerate(s);
  std::vector<Params> expected;
  std::vector<std::uint64_t> rejected(2, 0);
  for (std::int64_t a : {1, 2, 4, 8})
    for (std::int64_t b : {1, 2, 3}) {
      std::int64_t p = a * b;
      if ((p + 1) % 2 != 1) {
        ++rejected[0];
      } else if (p < 4) {
        ++rejected[1];
      } else {
        expected.push_back(Params{{"A", a}, {"B", b}});
      }
    }
  EXPECT_EQ(e.configs, expected);
  EXPECT_EQ(e.rejected_by, rejected);
  EXPECT_EQ(e.rejected_by, (std::vector<std::uint64_t>{2, 2}));
  for (const Params& p : e.configs) EXPECT_EQ(p.size(), 2u);
}

TEST(SpaceEnumerate, FailingConstraintNamesTheFirstOneThatFails) {
  Space s = load_space(kGoodSmall);
  EXPECT_EQ(failing_constraint(s, config(64, 64, 32, 32, 32, 2, "cp_async")), std::nullopt);
  EXPECT_EQ(failing_constraint(s, config(48, 64, 32, 32, 32, 2, "sync")), "BM % WM == 0");
  EXPECT_EQ(failing_constraint(s, config(64, 64, 32, 32, 32, 2, "sync")), "LOAD == \"cp_async\" || STAGES == 1");
  EXPECT_EQ(failing_constraint(s, config(128, 128, 32, 32, 32, 3, "cp_async")), "THREADS <= MAX_THREADS");
  EXPECT_EQ(failing_constraint(s, config(128, 64, 32, 32, 32, 3, "cp_async")), "SMEM_BYTES <= SMEM_LIMIT");
  // Values outside the domains are fine: named points use them.
  EXPECT_EQ(failing_constraint(s, config(16, 16, 16, 16, 16, 1, "direct")), std::nullopt);
}

TEST(SpaceEnumerate, FailingConstraintRejectsIncompleteOrMistypedParams) {
  Space s = load_space(kGoodSmall);
  Params missing = config(64, 64, 32, 32, 32, 2, "cp_async");
  missing.erase("WN");
  EXPECT_THROW(failing_constraint(s, missing), Error);
  Params mistyped = config(64, 64, 32, 32, 32, 2, "cp_async");
  mistyped["BM"] = std::string("64");
  try {
    failing_constraint(s, mistyped);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "parameter BM must be an integer, got \"64\"");
  }
  EXPECT_EQ(describe_config(s, missing), "BM=64 BN=64 BK=32 WM=32 WN=? STAGES=2 LOAD=\"cp_async\"");
}

TEST(SpaceEnumerate, RefusesProductsOverTheLimit) {
  Space s = load_space(kGoodSmall);
  EXPECT_EQ(product_size(s), 576u);
  // 4 * 3 * 2 * 2 * 2 * 3 * 2 = 576; widen two domains to 576 / 4 / 3 * 3000 * 2000 = 288 000 000 configs.
  s.parameters[0].domain.assign(3000, Value{std::int64_t{64}});
  s.parameters[1].domain.assign(2000, Value{std::int64_t{64}});
  EXPECT_EQ(product_size(s), 288000000u);
  try {
    enumerate(s);
    FAIL() << "no error";
  } catch (const SpaceError& e) {
    EXPECT_EQ(e.json_path(), "/parameters");
    EXPECT_EQ(e.line(), 10);
    EXPECT_EQ(e.column(), 17);
    EXPECT_EQ(e.message(),
              "the space has 288000000 configs (3000 x 2000 x 2 x 2 x 2 x 3 x 2), more than the limit of 10000000; "
              "narrow the domains");
  }
  for (int i = 0; i < 7; ++i) s.parameters[i % 7].domain.resize(1u << 12, Value{std::int64_t{1}});
  EXPECT_EQ(product_size(s), UINT64_MAX);  // saturates
  EXPECT_THROW(check_product_size(s), SpaceError);
}

TEST(SpaceEnumerate, EvaluationErrorsNameTheConfig) {
  try {
    parse_space(R"({"family": "t", "shapes": [{"M": 1, "N": 1, "K": 1}],
      "parameters": {"BM": {"values": [64]}, "WM": {"range": [0, 2]}},
      "derived": {"RATIO": "BM / WM"}})",
                "inline");
    FAIL() << "no error";
  } catch (const SpaceError& e) {
    EXPECT_EQ(e.json_path(), "/derived/RATIO");
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(e.column(), 28);
    EXPECT_EQ(e.message(), "derived RATIO = \"BM / WM\": division by zero (at character 4) for config BM=64 WM=0");
  }
}

TEST(SpaceEnumerate, AnEmptySpaceIsReportedPerConstraint) {
  Space s = parse_space(R"({"family": "t", "shapes": [{"M": 1, "N": 1, "K": 1}],
      "parameters": {"A": {"range": [1, 10]}}, "constraints": ["A > 2", "A < 8"]})",
                        "inline");
  s.constraints.push_back(s.constraints[0]);
  s.constraints[2] = Constraint{Expr::parse("A > 20", s.symbols()), "/constraints/2"};
  Enumeration all = enumerate(s);
  EXPECT_TRUE(all.configs.empty());
  EXPECT_EQ(all.rejected_by, (std::vector<std::uint64_t>{2, 3, 5}));
  try {
    check_satisfiable(s);
    FAIL() << "no error";
  } catch (const SpaceError& e) {
    EXPECT_EQ(e.json_path(), "/constraints");
    EXPECT_EQ(e.message(),
              "no config satisfies every constraint; of the 10 configs, \"A > 20\" rejects the most (10); "
              "configs failing each constraint: \"A > 2\": 2, \"A < 8\": 3, \"A > 20\": 10");
  }
}

// Every config of the product walked in declaration order, each checked against every constraint: what
// enumerate gives when it walks the product pruned (a prefix whose first failing constraint is certain counted whole).
Enumeration walked_config_by_config(const Space& space) {
  Enumeration out;
  out.total = product_size(space);
  out.rejected_by.assign(space.constraints.size(), 0);
  std::vector<std::size_t> digits(space.parameters.size(), 0);
  for (std::uint64_t n = 0; n < out.total; ++n) {
    Params params;
    for (std::size_t i = 0; i < digits.size(); ++i)
      params.emplace(space.parameters[i].name, space.parameters[i].domain[digits[i]]);
    const std::vector<Value> env = make_environment(space, params);
    std::size_t failed = 0;
    while (failed < space.constraints.size() && space.constraints[failed].expr.holds(env)) ++failed;
    if (failed == space.constraints.size())
      out.configs.push_back(params);
    else
      ++out.rejected_by[failed];
    for (std::size_t i = digits.size(); i-- > 0;) {
      if (++digits[i] < space.parameters[i].domain.size()) break;
      digits[i] = 0;
    }
  }
  return out;
}

// Both walks give the same, or both throw (a derived value or constraint that cannot be evaluated for a config).
void expect_same_as_walked(const Space& space, const std::string& what) {
  Enumeration walked;
  try {
    walked = walked_config_by_config(space);
  } catch (const std::exception&) {
    EXPECT_ANY_THROW(enumerate(space)) << what;
    return;
  }
  const Enumeration e = enumerate(space);
  EXPECT_EQ(e.total, walked.total) << what;
  EXPECT_EQ(e.rejected_by, walked.rejected_by) << what;
  EXPECT_EQ(e.configs, walked.configs) << what;
}

TEST(SpaceEnumerate, PrunedWalkGivesTheConfigsAndCountsOfWalkingEveryConfig) {
  for (const auto& entry : std::filesystem::directory_iterator(MPGEMM_SOURCE_DIR "/configs")) {
    if (entry.path().extension() != ".json") continue;
    const Space space = load_space(entry.path());
    if (product_size(space) > 100'000) continue;  // sm90a.json and the suite's: seconds each
    expect_same_as_walked(space, entry.path().filename().string());
  }
  expect_same_as_walked(load_space(kGoodSmall), "good_small.json");
}

// Random spaces: integer and string parameters, derived values over them and over each other, constraints over
// any of them in any order; divisions by domains that hold 0 now and then, so some spaces are walked whole.
TEST(SpaceEnumerate, PrunedWalkMatchesOnRandomSpaces) {
  std::mt19937 rng(20261207);
  int compared = 0;
  const auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  for (int trial = 0; trial < 400; ++trial) {
    const int params = 2 + pick(5);
    std::vector<std::string> ints;
    std::string text = R"({"family": "t", "shapes": [{"M": 1, "N": 1, "K": 1}], "parameters": {)";
    for (int i = 0; i < params; ++i) {
      const std::string name = fmt::format("P{}", i);
      if (pick(5) == 0) {
        text += fmt::format(R"({}"{}": {{"values": ["a", "b", "c"]}})", i ? ", " : "", name);
        continue;
      }
      const int lo = pick(4) == 0 ? 0 : 1 + pick(3);
      text += fmt::format(R"({}"{}": {{"range": [{}, {}]}})", i ? ", " : "", name, lo, lo + 1 + pick(3));
      ints.push_back(name);
    }
    if (ints.empty()) continue;
    const auto term = [&]() {
      return pick(4) == 0 ? std::to_string(1 + pick(9))
                          : ints[static_cast<std::size_t>(pick(static_cast<int>(ints.size())))];
    };
    const char* ops[] = {"+", "-", "*", "/", "%"};
    text += R"(}, "derived": {)";
    const int derived = pick(3);
    for (int d = 0; d < derived; ++d) {
      text += fmt::format(R"({}"D{}": "{} {} {}")", d ? ", " : "", d, term(), ops[pick(5)], term());
      ints.push_back(fmt::format("D{}", d));
    }
    const char* compare[] = {"<", "<=", ">", ">=", "==", "!="};
    text += R"(}, "constraints": [)";
    const int constraints = 1 + pick(5);
    for (int c = 0; c < constraints; ++c) {
      std::string condition =
          fmt::format("{} {} {} {} {}", term(), ops[pick(3)], term(), compare[pick(6)], 1 + pick(12));
      if (pick(3) == 0) condition = fmt::format("({}) || {} {} {}", condition, term(), compare[pick(6)], term());
      text += fmt::format(R"({}"{}")", c ? ", " : "", condition);
    }
    text += "]}";
    Space space;
    try {
      space = parse_space(text, "random");
    } catch (const SpaceError&) {
      continue;  // no config passes, or an expression throws for some config: the loader refuses the space
    }
    expect_same_as_walked(space, text);
    ++compared;
  }
  EXPECT_GE(compared, 120) << "too few random spaces load: the generator needs looser constraints";
}

}  // namespace
}  // namespace mpgemm
