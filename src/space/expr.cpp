// Evaluation of a parsed Expr: a recursive walk of the flat AST. The parser checked the types, but names are
// checked again against the environment, which the caller fills.
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "common/error.hpp"
#include "space/expr.hpp"

namespace mpgemm {

std::string_view to_string(ValueType t) {
  return t == ValueType::integer ? "integer" : "string";
}

Value Expr::eval(std::span<const Value> env) const {
  if (root_ < 0) throw ExprError("empty expression (never parsed)", 0);
  Result r = eval_node(root_, env);
  if (r.s) return *r.s;
  return r.i;
}

bool Expr::holds(std::span<const Value> env) const {
  if (root_ < 0) throw ExprError("empty expression (never parsed)", 0);
  if (type_ != ValueType::integer) throw ExprError("a condition must be an integer (or comparison), not a string", 0);
  return eval_int(root_, env) != 0;
}

std::int64_t Expr::eval_int(std::int32_t index, std::span<const Value> env) const {
  // The parser checked the types, so an integer-typed node yields an integer (names are checked in eval_node).
  return eval_node(index, env).i;
}

Expr::Result Expr::eval_node(std::int32_t index, std::span<const Value> env) const {
  const Node& n = nodes_[index];
  auto overflow = [&]() -> ExprError { return ExprError("integer overflow", n.offset); };
  std::int64_t a = 0, b = 0, r = 0;
  switch (n.op) {
    case Op::int_lit:
      return {n.number, nullptr};
    case Op::str_lit:
      return {0, &n.str};
    case Op::name: {
      if (n.slot >= env.size()) throw ExprError(fmt::format("no value for '{}'", n.str), n.offset);
      const Value& v = env[n.slot];
      if (n.type == ValueType::integer) {
        if (const auto* i = std::get_if<std::int64_t>(&v)) return {*i, nullptr};
      } else if (const auto* s = std::get_if<std::string>(&v)) {
        return {0, s};
      }
      throw ExprError(fmt::format("'{}' is {}, expected {}", n.str, to_string(v),
                                  n.type == ValueType::integer ? "an integer" : "a string"),
                      n.offset);
    }
    case Op::neg:
      a = eval_int(n.lhs, env);
      if (a == std::numeric_limits<std::int64_t>::min()) throw overflow();
      return {-a, nullptr};
    case Op::lnot:
      return {eval_int(n.lhs, env) == 0 ? 1 : 0, nullptr};
    case Op::land:
      return {eval_int(n.lhs, env) != 0 && eval_int(n.rhs, env) != 0 ? 1 : 0, nullptr};
    case Op::lor:
      return {eval_int(n.lhs, env) != 0 || eval_int(n.rhs, env) != 0 ? 1 : 0, nullptr};
    case Op::eq:
    case Op::ne: {
      Result x = eval_node(n.lhs, env), y = eval_node(n.rhs, env);
      bool equal = x.s ? (y.s && *x.s == *y.s) : (!y.s && x.i == y.i);
      return {equal == (n.op == Op::eq) ? 1 : 0, nullptr};
    }
    case Op::fn_is_pow2:
      a = eval_int(n.lhs, env);
      return {a > 0 && (a & (a - 1)) == 0 ? 1 : 0, nullptr};
    default:
      break;
  }
  a = eval_int(n.lhs, env);
  b = eval_int(n.rhs, env);
  switch (n.op) {
    case Op::mul:
      if (__builtin_mul_overflow(a, b, &r)) throw overflow();
      return {r, nullptr};
    case Op::add:
      if (__builtin_add_overflow(a, b, &r)) throw overflow();
      return {r, nullptr};
    case Op::sub:
      if (__builtin_sub_overflow(a, b, &r)) throw overflow();
      return {r, nullptr};
    case Op::div:
      if (b == 0) throw ExprError("division by zero", n.offset);
      if (a == std::numeric_limits<std::int64_t>::min() && b == -1) throw overflow();
      return {a / b, nullptr};
    case Op::mod:
      if (b == 0) throw ExprError("modulo by zero", n.offset);
      return {b == -1 ? 0 : a % b, nullptr};
    case Op::lt:
      return {a < b ? 1 : 0, nullptr};
    case Op::le:
      return {a <= b ? 1 : 0, nullptr};
    case Op::gt:
      return {a > b ? 1 : 0, nullptr};
    case Op::ge:
      return {a >= b ? 1 : 0, nullptr};
    case Op::fn_min:
      return {std::min(a, b), nullptr};
    case Op::fn_max:
      return {std::max(a, b), nullptr};
    default:
      throw ExprError("internal error: unknown operator", n.offset);
  }
}

namespace {

using Range = std::optional<ValueRange>;

ValueRange integers(std::int64_t lo, std::int64_t hi) {
  return {true, false, lo, hi};
}

const ValueRange kBoolean = integers(0, 1);

// The range of op(a, b) for every a in x and b in y, from the four corners (the operation is monotone in each
// operand over the ranges it is applied to); nullopt when a corner overflows.
template <class Op>
Range corners(const ValueRange& x, const ValueRange& y, Op op) {
  std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = std::numeric_limits<std::int64_t>::min();
  for (const std::int64_t a : {x.lo, x.hi}) {
    for (const std::int64_t b : {y.lo, y.hi}) {
      std::int64_t r = 0;
      if (!op(a, b, r)) return std::nullopt;
      lo = std::min(lo, r);
      hi = std::max(hi, r);
    }
  }
  return integers(lo, hi);
}

// |v| as an unsigned value (INT64_MIN included).
std::uint64_t magnitude(std::int64_t v) {
  return v < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
}

}  // namespace

std::optional<ValueRange> Expr::range(std::span<const ValueRange> slots) const {
  if (root_ < 0) return std::nullopt;
  return range_node(root_, slots);
}

std::optional<ValueRange> Expr::range_node(std::int32_t index, std::span<const ValueRange> slots) const {
  const Node& n = nodes_[index];
  switch (n.op) {
    case Op::int_lit:
      return integers(n.number, n.number);
    case Op::str_lit:
      return ValueRange{false, true, 0, 0};
    case Op::name: {
      if (n.slot >= slots.size()) return std::nullopt;
      const ValueRange& v = slots[n.slot];
      // A value of the other type throws in eval_node.
      if (n.type == ValueType::integer ? v.strings || !v.integers : v.integers || !v.strings) return std::nullopt;
      return v;
    }
    default:
      break;
  }
  const Range a = range_node(n.lhs, slots);
  if (!a) return std::nullopt;
  if (n.op == Op::neg) {
    if (a->lo == std::numeric_limits<std::int64_t>::min()) return std::nullopt;
    return integers(-a->hi, -a->lo);
  }
  if (n.op == Op::lnot || n.op == Op::fn_is_pow2) return kBoolean;
  const Range b = range_node(n.rhs, slots);
  if (!b) return std::nullopt;
  switch (n.op) {
    case Op::land:
    case Op::lor:
    case Op::eq:
    case Op::ne:
    case Op::lt:
    case Op::le:
    case Op::gt:
    case Op::ge:
      return kBoolean;
    case Op::mul:
      return corners(*a, *b,
                     [](std::int64_t x, std::int64_t y, std::int64_t& r) { return !__builtin_mul_overflow(x, y, &r); });
    case Op::add:
      return corners(*a, *b,
                     [](std::int64_t x, std::int64_t y, std::int64_t& r) { return !__builtin_add_overflow(x, y, &r); });
    case Op::sub:
      return corners(*a, *b,
                     [](std::int64_t x, std::int64_t y, std::int64_t& r) { return !__builtin_sub_overflow(x, y, &r); });
    case Op::div:
      // A divisor range of one sign: the quotient is monotone in each operand over it.
      if (b->lo <= 0 && b->hi >= 0) return std::nullopt;
      if (a->lo == std::numeric_limits<std::int64_t>::min() && b->lo <= -1 && b->hi >= -1) return std::nullopt;
      return corners(*a, *b, [](std::int64_t x, std::int64_t y, std::int64_t& r) {
        r = x / y;
        return true;
      });
    case Op::mod: {
      if (b->lo <= 0 && b->hi >= 0) return std::nullopt;
      // |a % b| < |b|, with a's sign (0 for b == -1).
      const std::uint64_t m = std::max(magnitude(b->lo), magnitude(b->hi)) - 1;
      const auto bound =
          static_cast<std::int64_t>(std::min<std::uint64_t>(m, std::numeric_limits<std::int64_t>::max()));
      return integers(a->lo < 0 ? -bound : 0, a->hi > 0 ? bound : 0);
    }
    case Op::fn_min:
      return integers(std::min(a->lo, b->lo), std::min(a->hi, b->hi));
    case Op::fn_max:
      return integers(std::max(a->lo, b->lo), std::max(a->hi, b->hi));
    default:
      return std::nullopt;
  }
}

}  // namespace mpgemm
