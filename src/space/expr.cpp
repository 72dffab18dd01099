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

}  // namespace mpgemm
