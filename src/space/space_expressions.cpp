// The "constants", "derived" and "constraints" sections of a space file.
#include <cctype>

#include <fmt/format.h>

#include "space/space_json.hpp"

namespace mpgemm::space_json {

namespace {

// A name for a constant or derived value: an identifier no parameter, constant or derived value already has.
void check_new_name(const Space& space, const Checker& check, const std::string& path, const std::string& name,
                    std::string_view kind) {
  if (!is_identifier(name)) check.fail_key(path, fmt::format("invalid {} name \"{}\": {}", kind, name, kNameRule));
  auto taken = [&](std::string_view what, const std::string& other_path) {
    const JsonLocation* loc = space.locations.find(other_path);
    TextPosition at = loc && loc->key ? *loc->key : TextPosition{};
    check.fail_key(path, fmt::format("{} name \"{}\" is already the name of a {} (line {}, column {})", kind, name,
                                     what, at.line, at.column));
  };
  for (const Parameter& p : space.parameters)
    if (p.name == name) taken("parameter", p.json_path);
  for (const Constant& c : space.constants)
    if (c.name == name) taken("constant", c.json_path);
  for (const Derived& d : space.derived)
    if (d.name == name) taken("derived value", d.json_path);
}

// The identifier starting at `offset` of `text`, or "".
std::string_view identifier_at(std::string_view text, std::size_t offset) {
  std::size_t end = offset;
  while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
  return text.substr(offset, end - offset);
}

// Parses an integer-typed expression, reporting problems at the string that holds it.
Expr parse_condition(const Checker& check, const std::string& path, const std::string& text,
                     const std::vector<Symbol>& symbols, const std::string& what) {
  try {
    Expr e = Expr::parse(text, symbols);
    if (e.type() != ValueType::integer)
      check.fail(path, fmt::format("{} \"{}\" is a string; expected an integer or a condition", what, text));
    return e;
  } catch (const ExprError& e) {
    check.fail(path, fmt::format("{} \"{}\": {}", what, text, e.what()));
  }
}

}  // namespace

void read_constants(Space& space, const Json& root, const Checker& check) {
  if (!root.contains("constants")) return;
  const Json& constants = check.object(root.at("constants"), "/constants");
  for (const auto& [name, value] : constants.items()) {
    std::string path = member_path("/constants", name);
    check_new_name(space, check, path, name, "constant");
    space.constants.push_back(Constant{name, check.integer(value, path), path});
  }
}

void read_derived(Space& space, const Json& root, const Checker& check) {
  if (!root.contains("derived")) return;
  const Json& derived = check.object(root.at("derived"), "/derived");
  for (const auto& [name, value] : derived.items()) {
    std::string path = member_path("/derived", name);
    check_new_name(space, check, path, name, "derived");
    std::string text = check.string(value, path);
    // Each derived value sees the parameters, the constants and the derived values before it.
    std::vector<Symbol> symbols = space.symbols();
    try {
      Expr::parse(text, symbols);
    } catch (const ExprError& e) {
      std::string_view later = identifier_at(text, e.offset());
      if (later == name)
        check.fail(path,
                   fmt::format("derived {} = \"{}\": refers to itself (at character {})", name, text, e.offset() + 1));
      if (!later.empty() && derived.contains(std::string(later)))
        check.fail(path, fmt::format("derived {} = \"{}\": uses {}, which is derived later in the file (at character "
                                     "{}); derived values may use only those before them",
                                     name, text, later, e.offset() + 1));
    }
    Expr expr = parse_condition(check, path, text, symbols, fmt::format("derived {} =", name));
    space.derived.push_back(Derived{name, std::move(expr), path});
  }
}

void read_constraints(Space& space, const Json& root, const Checker& check) {
  if (!root.contains("constraints")) return;
  const Json& constraints = check.array(root.at("constraints"), "/constraints");
  std::vector<Symbol> symbols = space.symbols();
  for (std::size_t i = 0; i < constraints.size(); ++i) {
    std::string path = index_path("/constraints", i);
    std::string text = check.string(constraints[i], path);
    space.constraints.push_back(Constraint{parse_condition(check, path, text, symbols, "constraint"), path});
  }
}

}  // namespace mpgemm::space_json
