// The expression language: precedence, evaluation, types, and errors with their character offsets.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "space/expr.hpp"

namespace mpgemm {
namespace {

const std::vector<Symbol> kSymbols{{"BM", ValueType::integer}, {"WM", ValueType::integer}, {"LOAD", ValueType::string}};

Value eval(const std::string& text, std::int64_t bm = 128, std::int64_t wm = 32, std::string load = "cp_async") {
  std::vector<Value> env{bm, wm, std::move(load)};
  return Expr::parse(text, kSymbols).eval(env);
}

std::int64_t eval_int(const std::string& text, std::int64_t bm = 128, std::int64_t wm = 32) {
  return std::get<std::int64_t>(eval(text, bm, wm));
}

// The offset of the ExprError that parsing (or else evaluating) `text` throws; -1 if none is thrown.
long error_offset(const std::string& text, std::string* message = nullptr, std::int64_t wm = 32) {
  try {
    eval(text, 128, wm);
  } catch (const ExprError& e) {
    if (message) *message = e.message();
    return static_cast<long>(e.offset());
  }
  return -1;
}

TEST(SpaceExpr, PrecedenceFollowsC) {
  EXPECT_EQ(eval_int("1 + 2 * 3"), 7);
  EXPECT_EQ(eval_int("(1 + 2) * 3"), 9);
  EXPECT_EQ(eval_int("10 - 3 - 2"), 5);    // left associative
  EXPECT_EQ(eval_int("100 / 10 / 5"), 2);  // left associative
  EXPECT_EQ(eval_int("7 % 4 * 2"), 6);
  EXPECT_EQ(eval_int("1 + 2 < 4"), 1);
  EXPECT_EQ(eval_int("3 > 2 > 1"), 0);    // (3 > 2) > 1
  EXPECT_EQ(eval_int("1 < 2 == 1"), 1);   // relational binds tighter than equality
  EXPECT_EQ(eval_int("1 || 0 && 0"), 1);  // && binds tighter than ||
  EXPECT_EQ(eval_int("2 == 2 && 0 || 1"), 1);
  EXPECT_EQ(eval_int("-2 * 3"), -6);
  EXPECT_EQ(eval_int("!0 + 1"), 2);  // unary binds tighter than binary
  EXPECT_EQ(eval_int("- -5"), 5);
  EXPECT_EQ(eval_int("!!7"), 1);
  EXPECT_EQ(eval_int("  BM/WM*2 "), 8);
}

TEST(SpaceExpr, IntegerArithmeticTruncatesLikeC) {
  EXPECT_EQ(eval_int("-7 / 2"), -3);
  EXPECT_EQ(eval_int("-7 % 3"), -1);
  EXPECT_EQ(eval_int("7 % -3"), 1);
  EXPECT_EQ(eval_int("9223372036854775807"), 9223372036854775807);
}

TEST(SpaceExpr, NamesAndFunctions) {
  EXPECT_EQ(eval_int("BM % WM == 0", 128, 32), 1);
  EXPECT_EQ(eval_int("BM % WM == 0", 48, 32), 0);
  EXPECT_EQ(eval_int("min(3, -4)"), -4);
  EXPECT_EQ(eval_int("max(BM, 5 * WM)", 128, 32), 160);
  EXPECT_EQ(eval_int("min(max(1, 2), 3) + 1"), 3);
  EXPECT_EQ(eval_int("is_pow2(64)"), 1);
  EXPECT_EQ(eval_int("is_pow2(48)"), 0);
  EXPECT_EQ(eval_int("is_pow2(0)"), 0);
  EXPECT_EQ(eval_int("is_pow2(-8)"), 0);
  EXPECT_EQ(eval_int("is_pow2(BM / WM)", 96, 32), 0);
}

TEST(SpaceExpr, StringsCompareWithEqualityOnly) {
  EXPECT_EQ(eval("LOAD == \"cp_async\""), Value{std::int64_t{1}});
  EXPECT_EQ(eval("LOAD != \"cp_async\""), Value{std::int64_t{0}});
  EXPECT_EQ(eval("LOAD == \"sync\" || BM == 128", 64, 32, "sync"), Value{std::int64_t{1}});
  EXPECT_EQ(eval("\"a\\\"b\" == \"a\\\"b\""), Value{std::int64_t{1}});
  EXPECT_EQ(eval("LOAD"), Value{std::string("cp_async")});
  EXPECT_EQ(Expr::parse("LOAD", kSymbols).type(), ValueType::string);
  EXPECT_EQ(Expr::parse("LOAD == \"x\"", kSymbols).type(), ValueType::integer);
}

TEST(SpaceExpr, LogicalOperatorsShortCircuit) {
  EXPECT_EQ(eval_int("WM != 0 && BM % WM == 0", 128, 0), 0);
  EXPECT_EQ(eval_int("WM == 0 || BM / WM > 1", 128, 0), 1);
  EXPECT_EQ(error_offset("WM == 0 && BM / WM > 1", nullptr, 0), 14);
}

TEST(SpaceExpr, ParsesOnceEvaluatesMany) {
  Expr e = Expr::parse("BM * WM - 1", kSymbols);
  EXPECT_EQ(e.text(), "BM * WM - 1");
  EXPECT_EQ(e.slots_used(), (std::vector<std::size_t>{0, 1}));
  std::int64_t sum = 0;
  for (std::int64_t bm = 1; bm <= 4; ++bm) {
    std::vector<Value> env{bm, std::int64_t{10}, std::string("x")};
    sum += std::get<std::int64_t>(e.eval(env));
    EXPECT_EQ(e.holds(env), true);
  }
  EXPECT_EQ(sum, 96);  // 9 + 19 + 29 + 39
  EXPECT_EQ(Expr::parse("LOAD == \"x\" && WM", kSymbols).slots_used(), (std::vector<std::size_t>{1, 2}));
}

TEST(SpaceExpr, SyntaxErrorsGiveTheirOffset) {
  std::string message;
  EXPECT_EQ(error_offset("", &message), 0);
  EXPECT_EQ(message, "empty expression");
  EXPECT_EQ(error_offset("BM + ", &message), 5);
  EXPECT_EQ(message, "unexpected end of expression, expected a value");
  EXPECT_EQ(error_offset("BM % == 0", &message), 5);
  EXPECT_EQ(message, "unexpected '=', expected a value");
  EXPECT_EQ(error_offset("(BM + 1", &message), 0);
  EXPECT_EQ(message, "expected ')' to close this '(', got end of expression");
  EXPECT_EQ(error_offset("BM = 64", &message), 3);
  EXPECT_EQ(message, "unknown operator '=' (did you mean '=='?)");
  EXPECT_EQ(error_offset("BM & 1", &message), 3);
  EXPECT_EQ(message, "unknown operator '&' (did you mean '&&'?)");
  EXPECT_EQ(error_offset("BM 64", &message), 3);
  EXPECT_EQ(message, "unexpected '6' after the expression");
  EXPECT_EQ(error_offset("64abc", &message), 2);
  EXPECT_EQ(message, "unexpected 'a' after a number");
  EXPECT_EQ(error_offset("min(BM)", &message), 6);
  EXPECT_EQ(message, "expected ',' between the two arguments of min(), got ')'");
  EXPECT_EQ(error_offset("max", &message), 3);
  EXPECT_EQ(message, "expected '(' after max, got end of expression");
  EXPECT_EQ(error_offset("\"abc", &message), 0);
  EXPECT_EQ(message, "unterminated string literal");
  EXPECT_EQ(error_offset("99999999999999999999", &message), 0);
  EXPECT_EQ(message, "integer literal out of range");
  EXPECT_EQ(error_offset("BM # 2", &message), 3);
  EXPECT_EQ(message, "unexpected '#' after the expression");
}

TEST(SpaceExpr, UnknownNamesAreParseErrorsWithASuggestion) {
  std::string message;
  EXPECT_EQ(error_offset("BM % WX == 0", &message), 5);
  EXPECT_EQ(message, "unknown name 'WX' (did you mean 'WM'?)");
  EXPECT_EQ(error_offset("1 + THREADS", &message), 4);
  EXPECT_EQ(message, "unknown name 'THREADS'");
  EXPECT_THROW(Expr::parse("BM", std::vector<Symbol>{}), ExprError);
}

TEST(SpaceExpr, TypeErrorsAreParseErrors) {
  std::string message;
  EXPECT_EQ(error_offset("LOAD + 1", &message), 5);
  EXPECT_EQ(message, "operator '+' needs integers, got a string");
  EXPECT_EQ(error_offset("BM == 1 && LOAD == 1", &message), 16);
  EXPECT_EQ(message, "'==' compares a string with an integer");
  EXPECT_EQ(error_offset("LOAD < \"x\"", &message), 5);
  EXPECT_EQ(error_offset("-LOAD", &message), 0);
  EXPECT_EQ(message, "operator '-' needs integers, got a string");
  EXPECT_EQ(error_offset("min(LOAD, 1)", &message), 0);
  EXPECT_EQ(message, "min() needs integers, got a string");
}

TEST(SpaceExpr, EvaluationErrorsGiveTheOperatorOffset) {
  std::string message;
  EXPECT_EQ(error_offset("BM / (WM - WM)", &message), 3);
  EXPECT_EQ(message, "division by zero");
  EXPECT_EQ(error_offset("1 + BM % 0", &message), 7);
  EXPECT_EQ(message, "modulo by zero");
  EXPECT_EQ(error_offset("9223372036854775807 + 1", &message), 20);
  EXPECT_EQ(message, "integer overflow");
  EXPECT_EQ(error_offset("4611686018427387904 * 2", &message), 20);
  EXPECT_EQ(error_offset("-9223372036854775807 - 2", &message), 21);
  // An environment whose value has the wrong type for its name.
  std::vector<Value> env{std::string("64"), std::int64_t{1}, std::string("x")};
  try {
    Expr::parse("WM + BM", kSymbols).eval(env);
    FAIL() << "no error";
  } catch (const ExprError& e) {
    EXPECT_EQ(e.offset(), 5u);
    EXPECT_STREQ(e.what(), "'BM' is \"64\", expected an integer (at character 6)");
  }
  EXPECT_THROW(Expr::parse("LOAD", kSymbols).holds(env), ExprError);
}

TEST(SpaceExpr, DeepNestingIsAnErrorNotACrash) {
  std::string deep(5000, '(');
  EXPECT_GE(error_offset(deep + "1"), 0);
  std::string chain = "1";
  for (int i = 0; i < 5000; ++i) chain += " + 1";
  EXPECT_GE(error_offset(chain), 0);
  std::string ok(100, '(');
  EXPECT_EQ(eval_int(ok + "1" + std::string(100, ')')), 1);
}

TEST(SpaceExpr, Identifiers) {
  EXPECT_TRUE(is_identifier("BM"));
  EXPECT_TRUE(is_identifier("_x1"));
  EXPECT_FALSE(is_identifier("1x"));
  EXPECT_FALSE(is_identifier("a-b"));
  EXPECT_FALSE(is_identifier(""));
  EXPECT_FALSE(is_identifier("min"));
  EXPECT_TRUE(is_function_name("is_pow2"));
}

// Expr::range over slot ranges: bounds that hold every result, nullopt wherever some value could throw.
TEST(SpaceExpr, RangeBoundsEveryResultAndSaysWhenEvaluationMightThrow) {
  const auto range = [](const std::string& text, ValueRange bm, ValueRange wm) {
    const std::vector<ValueRange> slots{bm, wm, ValueRange{false, true, 0, 0}};
    return Expr::parse(text, kSymbols).range(slots);
  };
  const ValueRange bm{true, false, 16, 128}, wm{true, false, 1, 4}, wm0{true, false, 0, 4};
  auto r = range("BM / WM", bm, wm);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->lo, 4);
  EXPECT_EQ(r->hi, 128);
  EXPECT_FALSE(range("BM / WM", bm, wm0)) << "a divisor range holding 0";
  EXPECT_FALSE(range("BM % WM", bm, wm0));
  r = range("BM % WM", bm, wm);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->lo, 0);
  EXPECT_EQ(r->hi, 3);
  r = range("BM - WM * 2", bm, wm);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->lo, 8);
  EXPECT_EQ(r->hi, 126);
  r = range("min(BM, WM) + max(BM, 200)", bm, wm);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->lo, 201);
  EXPECT_EQ(r->hi, 204);
  r = range("LOAD == \"sync\" && BM / WM > 3", bm, wm);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->lo, 0);
  EXPECT_EQ(r->hi, 1);
  EXPECT_FALSE(range("BM * 4611686018427387904", bm, wm)) << "a product past int64";
  EXPECT_FALSE(range("-BM", ValueRange{true, false, std::numeric_limits<std::int64_t>::min(), 0}, wm));
  EXPECT_FALSE(range("BM + 1", ValueRange{true, true, 0, 1}, wm)) << "a slot that may hold a string";
  // Conservative: a guard is not seen through.
  EXPECT_FALSE(range("WM != 0 && BM / WM > 1", bm, wm0));
}

}  // namespace
}  // namespace mpgemm
