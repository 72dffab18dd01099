// Parsing of the expression language (see expr.hpp): a hand-written lexer and precedence climbing, building the
// flat AST of an Expr and checking each node's types as it is built.
#include <algorithm>
#include <array>
#include <limits>

#include <fmt/format.h>

#include "common/error.hpp"
#include "space/expr.hpp"
#include "space/suggest.hpp"

namespace mpgemm {

namespace {

constexpr std::array<std::string_view, 3> kFunctions{"min", "max", "is_pow2"};
constexpr int kMaxDepth = 256;  // AST depth; bounds the recursion of both parser and evaluator

bool is_ident_start(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

}  // namespace

bool is_function_name(std::string_view name) {
  return std::find(kFunctions.begin(), kFunctions.end(), name) != kFunctions.end();
}

bool is_identifier(std::string_view name) {
  if (name.empty() || !is_ident_start(name[0])) return false;
  for (char c : name)
    if (!is_ident_start(c) && !is_digit(c)) return false;
  return !is_function_name(name);
}

class ExprParser {
 public:
  ExprParser(std::string_view text, std::span<const Symbol> symbols) : text_(text), symbols_(symbols) {}

  Expr run() {
    out_.text_ = std::string(text_);
    skip_ws();
    if (pos_ == text_.size()) throw ExprError("empty expression", pos_);
    out_.root_ = parse_binary(1);
    skip_ws();
    if (pos_ != text_.size()) throw ExprError(fmt::format("unexpected {} after the expression", describe()), pos_);
    out_.type_ = out_.nodes_[out_.root_].type;
    std::sort(out_.slots_used_.begin(), out_.slots_used_.end());
    out_.slots_used_.erase(std::unique(out_.slots_used_.begin(), out_.slots_used_.end()), out_.slots_used_.end());
    return std::move(out_);
  }

 private:
  using Op = Expr::Op;

  struct Binary {
    std::string_view token;
    Op op;
    int precedence;  // higher binds tighter
  };
  static constexpr std::array<Binary, 13> kBinary{{
      {"||", Op::lor, 1},
      {"&&", Op::land, 2},
      {"==", Op::eq, 3},
      {"!=", Op::ne, 3},
      {"<=", Op::le, 4},
      {">=", Op::ge, 4},
      {"<", Op::lt, 4},
      {">", Op::gt, 4},
      {"+", Op::add, 5},
      {"-", Op::sub, 5},
      {"*", Op::mul, 6},
      {"/", Op::div, 6},
      {"%", Op::mod, 6},
  }};

  std::int32_t parse_binary(int min_precedence) {
    std::int32_t lhs = parse_unary();
    while (true) {
      skip_ws();
      const Binary* match = nullptr;
      for (const Binary& b : kBinary) {
        if (text_.substr(pos_).starts_with(b.token)) {
          match = &b;
          break;
        }
      }
      if (match == nullptr) {
        reject_lone_operator();
        return lhs;
      }
      if (match->precedence < min_precedence) return lhs;
      std::size_t at = pos_;
      pos_ += match->token.size();
      std::int32_t rhs = parse_binary(match->precedence + 1);
      lhs = add_binary(match->op, match->token, lhs, rhs, at);
    }
  }

  std::int32_t parse_unary() {
    skip_ws();
    std::size_t at = pos_;
    // Every level of parentheses or unary operators passes through here: bound the parser's recursion.
    struct Nesting {
      int& level;
      explicit Nesting(int& l) : level(++l) {}
      ~Nesting() { --level; }
    } nesting(nesting_);
    if (nesting_ > kMaxDepth) throw ExprError(fmt::format("expression nested deeper than {} levels", kMaxDepth), at);
    if (peek() == '-' || peek() == '!') {
      char c = text_[pos_++];
      std::int32_t operand = parse_unary();
      require_int(operand, at, fmt::format("operator '{}'", c));
      return add(node(c == '-' ? Op::neg : Op::lnot, at, operand));
    }
    return parse_primary();
  }

  std::int32_t parse_primary() {
    skip_ws();
    std::size_t at = pos_;
    char c = peek();
    if (c == '(') {
      ++pos_;
      std::int32_t inner = parse_binary(1);
      expect(')', at, "to close this '('");
      return inner;
    }
    if (is_digit(c)) return parse_integer();
    if (c == '"') return parse_string();
    if (is_ident_start(c)) {
      while (pos_ < text_.size() && (is_ident_start(text_[pos_]) || is_digit(text_[pos_]))) ++pos_;
      std::string_view name = text_.substr(at, pos_ - at);
      if (is_function_name(name)) return parse_call(name, at);
      for (std::size_t i = 0; i < symbols_.size(); ++i) {
        if (symbols_[i].name == name) {
          out_.slots_used_.push_back(i);
          Expr::Node n = node(Op::name, at);
          n.type = symbols_[i].type;
          n.str = std::string(name);
          n.slot = i;
          return add(std::move(n));
        }
      }
      throw ExprError(fmt::format("unknown name '{}'{}", name, suggestion(name)), at);
    }
    if (pos_ == text_.size()) throw ExprError("unexpected end of expression, expected a value", pos_);
    throw ExprError(fmt::format("unexpected {}, expected a value", describe()), pos_);
  }

  std::int32_t parse_integer() {
    std::size_t at = pos_;
    std::int64_t v = 0;
    while (pos_ < text_.size() && is_digit(text_[pos_])) {
      std::int64_t digit = text_[pos_++] - '0';
      if (v > (std::numeric_limits<std::int64_t>::max() - digit) / 10)
        throw ExprError("integer literal out of range", at);
      v = v * 10 + digit;
    }
    if (pos_ < text_.size() && is_ident_start(text_[pos_]))
      throw ExprError(fmt::format("unexpected {} after a number", describe()), pos_);
    Expr::Node n = node(Op::int_lit, at);
    n.number = v;
    return add(std::move(n));
  }

  std::int32_t parse_string() {
    std::size_t at = pos_++;
    std::string s;
    while (true) {
      if (pos_ >= text_.size()) throw ExprError("unterminated string literal", at);
      char c = text_[pos_++];
      if (c == '"') break;
      if (c == '\\') {
        if (pos_ >= text_.size()) throw ExprError("unterminated string literal", at);
        c = text_[pos_++];
        if (c != '"' && c != '\\') throw ExprError("unknown escape in string literal (only \\\" and \\\\)", pos_ - 2);
      }
      s += c;
    }
    Expr::Node n = node(Op::str_lit, at);
    n.type = ValueType::string;
    n.str = std::move(s);
    return add(std::move(n));
  }

  std::int32_t parse_call(std::string_view name, std::size_t at) {
    skip_ws();
    expect('(', pos_, fmt::format("after {}", name));
    std::int32_t a = parse_binary(1);
    require_int(a, at, fmt::format("{}()", name));
    std::int32_t b = -1;
    if (name != "is_pow2") {
      skip_ws();
      expect(',', pos_, fmt::format("between the two arguments of {}()", name));
      b = parse_binary(1);
      require_int(b, at, fmt::format("{}()", name));
    }
    skip_ws();
    expect(')', at, fmt::format("to close the call of {}()", name));
    Op op = name == "min" ? Op::fn_min : name == "max" ? Op::fn_max : Op::fn_is_pow2;
    return add(node(op, at, a, b));
  }

  std::int32_t add_binary(Op op, std::string_view token, std::int32_t lhs, std::int32_t rhs, std::size_t at) {
    if (op == Op::eq || op == Op::ne) {
      ValueType l = out_.nodes_[lhs].type, r = out_.nodes_[rhs].type;
      if (l != r) throw ExprError(fmt::format("'{}' compares {} with {}", token, article(l), article(r)), at);
    } else {
      require_int(lhs, at, fmt::format("operator '{}'", token));
      require_int(rhs, at, fmt::format("operator '{}'", token));
    }
    return add(node(op, at, lhs, rhs));
  }

  static Expr::Node node(Op op, std::size_t at, std::int32_t lhs = -1, std::int32_t rhs = -1) {
    Expr::Node n;
    n.op = op;
    n.offset = at;
    n.lhs = lhs;
    n.rhs = rhs;
    return n;
  }

  std::int32_t add(Expr::Node n) {
    int d = 1;
    for (std::int32_t child : {n.lhs, n.rhs})
      if (child >= 0) d = std::max(d, depth_[child] + 1);
    if (d > kMaxDepth) throw ExprError(fmt::format("expression nested deeper than {} levels", kMaxDepth), n.offset);
    depth_.push_back(d);
    out_.nodes_.push_back(std::move(n));
    return static_cast<std::int32_t>(out_.nodes_.size() - 1);
  }

  static std::string_view article(ValueType t) { return t == ValueType::integer ? "an integer" : "a string"; }

  void require_int(std::int32_t node, std::size_t at, const std::string& what) const {
    if (out_.nodes_[node].type != ValueType::integer) throw ExprError(what + " needs integers, got a string", at);
  }

  void expect(char c, std::size_t at, const std::string& why) {
    skip_ws();
    if (peek() == c) {
      ++pos_;
      return;
    }
    throw ExprError(fmt::format("expected '{}' {}, got {}", c, why, describe()), pos_ == text_.size() ? at : pos_);
  }

  // '=', '&', '|' alone are not operators; say what was probably meant instead of "unexpected '='" later.
  void reject_lone_operator() const {
    char c = peek();
    if (c == '=' || c == '&' || c == '|')
      throw ExprError(fmt::format("unknown operator '{}' (did you mean '{}{}'?)", c, c, c), pos_);
  }

  std::string suggestion(std::string_view name) const {
    const Symbol* best = nullptr;
    std::size_t best_distance = suggestion_limit(name) + 1;
    for (const Symbol& s : symbols_) {
      std::size_t d = edit_distance(name, s.name);
      if (d < best_distance) {
        best = &s;
        best_distance = d;
      }
    }
    return best ? fmt::format(" (did you mean '{}'?)", best->name) : "";
  }

  std::string describe() const {
    if (pos_ >= text_.size()) return "end of expression";
    return fmt::format("'{}'", text_[pos_]);
  }

  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  void skip_ws() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n')) ++pos_;
  }

  std::string_view text_;
  std::span<const Symbol> symbols_;
  std::size_t pos_ = 0;
  Expr out_;
  std::vector<int> depth_;  // per node, parallel to out_.nodes_
  int nesting_ = 0;         // current recursion depth of parse_unary
};

Expr Expr::parse(std::string_view text, std::span<const Symbol> symbols) {
  return ExprParser(text, symbols).run();
}

}  // namespace mpgemm
