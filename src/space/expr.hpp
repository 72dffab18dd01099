#pragma once
// The expression language of search spaces (constraints and derived values), parsed once and evaluated per config.
//
//   literals     64   "cp_async"            (integers are int64; strings use \" and \\ escapes)
//   names        BM   SMEM_LIMIT            (parameters, constants, derived values)
//   unary        -x   !x
//   binary       * / %   + -   < <= > >=   == !=   &&   ||     (C precedence, left associative)
//   functions    min(a, b)   max(a, b)   is_pow2(x)
//
// Values are integers or strings; booleans are the integers 0 and 1 and any nonzero integer is true. Only == and
// != accept strings (both sides strings). / and % truncate toward zero as in C; && and || short-circuit, so
// "WN != 0 && BM % WN == 0" never divides by zero. Types are checked when parsing, as every name has a known type.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/params.hpp"

namespace mpgemm {

enum class ValueType { integer, string };

std::string_view to_string(ValueType t);  // "integer" / "string"

// A name an expression may use. Its index in the list given to Expr::parse is its slot in the evaluation
// environment.
struct Symbol {
  std::string name;
  ValueType type = ValueType::integer;
};

// True for the reserved function names (min, max, is_pow2), which cannot name a parameter.
bool is_function_name(std::string_view name);

// True for [A-Za-z_][A-Za-z0-9_]* that is not a function name.
bool is_identifier(std::string_view name);

// The values a slot (or an expression) can take over a set of environments: integers within [lo, hi], strings, or
// both. For the interval analysis of Expr::range.
struct ValueRange {
  bool integers = false;
  bool strings = false;
  std::int64_t lo = 0;
  std::int64_t hi = 0;
};

class Expr {
 public:
  // Throws ExprError (with the character offset) on a syntax error, an unknown name, or a type error.
  static Expr parse(std::string_view text, std::span<const Symbol> symbols);

  // Evaluates with env[i] the value of symbols[i]. Throws ExprError on division or modulo by zero, integer
  // overflow, or an env value whose type differs from its symbol's.
  Value eval(std::span<const Value> env) const;

  // eval() as a condition: nonzero integer -> true. Throws ExprError if the expression is a string.
  bool holds(std::span<const Value> env) const;

  // Over every environment whose slot i holds a value within slots[i]: a range holding every result, or nullopt
  // when some such environment might make eval() throw (a divisor or modulus range holding 0, a bound past int64, a
  // value of the wrong type). Conservative: nullopt does not say that one does.
  std::optional<ValueRange> range(std::span<const ValueRange> slots) const;

  ValueType type() const { return type_; }
  const std::string& text() const { return text_; }
  // Slots the expression reads, ascending, without repeats.
  const std::vector<std::size_t>& slots_used() const { return slots_used_; }

  // A node of the flat AST; children are indices into nodes_. Public only for the parser in expr.cpp.
  enum class Op : std::uint8_t {
    int_lit,
    str_lit,
    name,
    neg,
    lnot,
    mul,
    div,
    mod,
    add,
    sub,
    lt,
    le,
    gt,
    ge,
    eq,
    ne,
    land,
    lor,
    fn_min,
    fn_max,
    fn_is_pow2
  };
  struct Node {
    Op op = Op::int_lit;
    ValueType type = ValueType::integer;
    std::int64_t number = 0;  // int_lit value
    std::string str;          // str_lit value
    std::size_t slot = 0;     // name: environment slot
    std::int32_t lhs = -1;    // first operand
    std::int32_t rhs = -1;    // second operand
    std::size_t offset = 0;   // 0-based character offset of the token in text(), for errors
  };

 private:
  struct Result {
    std::int64_t i = 0;
    const std::string* s = nullptr;  // non-null for a string result; points into the AST or env
  };
  Result eval_node(std::int32_t index, std::span<const Value> env) const;
  std::int64_t eval_int(std::int32_t index, std::span<const Value> env) const;
  std::optional<ValueRange> range_node(std::int32_t index, std::span<const ValueRange> slots) const;

  friend class ExprParser;
  std::string text_;
  std::vector<Node> nodes_;
  std::int32_t root_ = -1;
  ValueType type_ = ValueType::integer;
  std::vector<std::size_t> slots_used_;
};

}  // namespace mpgemm
