#include "space/space.hpp"

#include <cctype>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/bounded_input.hpp"
#include "space/enumerate.hpp"
#include "space/space_json.hpp"

namespace mpgemm {

namespace {

using space_json::Json;

// nlohmann's message after its "[json.exception...] parse error at line L, column C: " (or "... at byte B: ")
// prefix, which repeats what our own position says (and counts columns in bytes).
std::string parse_error_detail(const std::string& what) {
  std::size_t error = what.find("parse error");
  std::size_t colon = error == std::string::npos ? std::string::npos : what.find(": ", error);
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

// Where the token that nlohmann's parse error is about starts. nlohmann reports the last character it read: for
// an unexpected string or number (e.g. after a missing comma) that is the token's end, but the reader looks for
// its start. Elsewhere (a bad character, the end of a truncated file) the offset stays.
std::size_t token_start(std::string_view text, std::size_t offset) {
  if (offset >= text.size()) return offset;
  auto is_literal_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '-';
  };
  if (text[offset] == '"') {
    for (std::size_t i = offset; i-- > 0;) {
      if (text[i] == '\n') break;
      if (text[i] != '"') continue;
      std::size_t backslashes = 0;
      while (i > backslashes && text[i - 1 - backslashes] == '\\') ++backslashes;
      if (backslashes % 2 == 0) return i;
    }
    return offset;
  }
  if (!is_literal_char(text[offset])) return offset;
  while (offset > 0 && is_literal_char(text[offset - 1])) --offset;
  return offset;
}

// A number nlohmann refused to store (e.g. 1e999): the text is valid JSON, so the locator finds the literal.
SpaceError number_out_of_range(const Space& space, std::string_view text) {
  std::string path, found_literal;
  const JsonLocation* where = nullptr;
  // The index is unordered: take the overflowing number that comes first in the text.
  for (const auto& [p, loc] : space.locations.entries()) {
    char c = text[loc.value_offset];
    if (c != '-' && (c < '0' || c > '9')) continue;
    std::size_t end = text.find_first_of(",]} \t\r\n", loc.value_offset);
    std::string literal(text.substr(loc.value_offset, end == std::string_view::npos ? end : end - loc.value_offset));
    if (!std::isinf(std::strtod(literal.c_str(), nullptr))) continue;
    if (where == nullptr || loc.value_offset < where->value_offset) {
      where = &loc;
      path = p;
      found_literal = literal;
    }
  }
  if (where == nullptr) return SpaceError(space.file, 1, 1, "", "a number in the file is out of range");
  return space.error_at(path, fmt::format("number {} is out of range", found_literal));
}

// Messages quote the file's strings (constraints, keys); a control character in one must not break the
// one-line "file:line:column: at path: message" form.
std::string one_line(std::string message) {
  std::string out;
  for (char c : message) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      out += c;
    }
  }
  return out;
}

// A space file is tens to hundreds of values; these bounds refuse anything far larger before nlohmann builds it.
// ordered_json (which keeps the parameters' order) finds each new key by a linear search of its object, so an
// object of 200,000 keys took minutes to parse; the bounds keep that search, and the loader's checks that compare
// each name with the ones before it, to a few milliseconds however the file is shaped.
constexpr std::size_t kMaxSpaceMembers = 1'000;   // members of one object, elements of one array
constexpr std::size_t kMaxSpaceValues = 100'000;  // values in the whole file

// Where the text holds an object or array of more than kMaxSpaceMembers, or more than kMaxSpaceValues values:
// the offset to report and what is wrong; nullopt when it does not. One pass, strings skipped, counting the commas
// at each level: exact on valid JSON (invalid JSON that passes is refused by the parser next).
std::optional<std::pair<std::size_t, std::string>> too_large_at(std::string_view text) {
  // Each open container: its '[' or '{' and its commas so far. Past kMaxJsonDepth levels only a count: the parser
  // refuses those, and a file of 64 MiB of '[' must not take a gigabyte here.
  std::vector<std::pair<std::size_t, std::size_t>> open;
  std::size_t too_deep = 0;
  std::size_t values = 1;  // at least: the root and one more per comma
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character, '"' included
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (open.size() < kMaxJsonDepth) {
        open.emplace_back(i, 0);
      } else {
        ++too_deep;
      }
    } else if (c == ']' || c == '}') {
      if (too_deep > 0) {
        --too_deep;
      } else if (!open.empty()) {
        open.pop_back();
      }
    } else if (c == ',' && !open.empty() && too_deep == 0) {
      if (++open.back().second >= kMaxSpaceMembers) {
        const bool object = text[open.back().first] == '{';
        return std::pair{
            open.back().first,
            fmt::format("{} of more than {} {}: a space file lists tens (is it the right file?)",
                        object ? "an object" : "an array", kMaxSpaceMembers, object ? "members" : "elements")};
      }
      if (++values > kMaxSpaceValues)
        return std::pair{i, fmt::format("more than {} values in the file: a space file holds hundreds (is it the "
                                        "right file?)",
                                        kMaxSpaceValues)};
    }
  }
  return std::nullopt;
}

}  // namespace

std::vector<Symbol> Space::symbols() const {
  std::vector<Symbol> out;
  out.reserve(parameters.size() + constants.size() + derived.size());
  for (const Parameter& p : parameters) out.push_back({p.name, p.type});
  for (const Constant& c : constants) out.push_back({c.name, ValueType::integer});
  for (const Derived& d : derived) out.push_back({d.name, ValueType::integer});
  return out;
}

const Parameter* Space::find_parameter(std::string_view name) const {
  for (const Parameter& p : parameters)
    if (p.name == name) return &p;
  return nullptr;
}

const NamedPoint* Space::find_point(std::string_view name) const {
  for (const NamedPoint& p : points)
    if (p.name == name) return &p;
  return nullptr;
}

std::optional<std::string> Space::refuses(const ProblemKind& kind) const {
  if (problems.empty()) return std::nullopt;
  std::string listed;
  for (const ProblemKind& p : problems) {
    if (p == kind) return std::nullopt;
    listed += (listed.empty() ? "" : ", ") + p.name();
  }
  return fmt::format(
      "{} is meant for {} (its \"problems\"), not {}: tune it with a space that lists it, or add it "
      "to the space's \"problems\"",
      file, listed, kind.name());
}

SpaceError Space::error_at(std::string json_path, std::string message) const {
  std::string found;
  const JsonLocation* loc = locations.find_nearest(json_path, &found);
  TextPosition pos = loc ? loc->value : TextPosition{};
  return SpaceError(file, pos.line, pos.column, one_line(std::move(json_path)), one_line(std::move(message)));
}

SpaceError Space::error_at_key(std::string json_path, std::string message) const {
  const JsonLocation* loc = locations.find(json_path);
  if (loc == nullptr || !loc->key) return error_at(std::move(json_path), std::move(message));
  return SpaceError(file, loc->key->line, loc->key->column, one_line(std::move(json_path)),
                    one_line(std::move(message)));
}

Space load_space(const std::filesystem::path& path) {
  std::string text;
  try {
    text = read_bounded_file(path, "space file");
  } catch (const InputFileError& e) {
    throw SpaceError(path.string(), 0, 0, "", e.why());  // missing, a folder, unreadable, or endless (/dev/zero)
  }
  return parse_space(text, path.string());
}

namespace {

// "problems": "any", or a non-empty list of distinct kind names.
void read_problems(Space& space, const Json& j, const space_json::Checker& check) {
  if (j.is_string() && j.get<std::string>() == "any") return;
  if (!j.is_array())
    check.fail("/problems",
               fmt::format("expected \"any\" or a list of problem kinds (e.g. [\"mk_nk_bf16_bf16\"]), got {}",
                           space_json::describe(j)));
  const Json& list = check.non_empty_array(j, "/problems");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string path = fmt::format("/problems/{}", i);
    const std::string name = check.string(list[i], path);
    std::string why;
    const auto kind = ProblemKind::parse(name, &why);
    if (!kind) check.fail(path, why);
    for (const ProblemKind& seen : space.problems)
      if (seen == *kind) check.fail(path, fmt::format("{} is listed twice", name));
    space.problems.push_back(*kind);
  }
}

}  // namespace

Space parse_space(std::string_view text, std::string file_label) {
  Space space;
  space.file = std::move(file_label);
  // nlohmann stops at a NUL byte as if the text ended there; the locator would not: refuse it up front.
  if (auto nul = text.find('\0'); nul != std::string_view::npos) {
    TextPosition pos = position_at_offset(text, nul);
    throw SpaceError(space.file, pos.line, pos.column, "",
                     "NUL byte in the file (a truncated write or a UTF-16 file?)");
  }
  if (auto large = too_large_at(text)) {
    TextPosition pos = position_at_offset(text, large->first);
    throw SpaceError(space.file, pos.line, pos.column, "", large->second);
  }
  Json root;
  try {
    root = parse_json_bounded<Json>(text);  // nesting bounded: dump and the checks below recurse per level
  } catch (const Json::parse_error& e) {
    TextPosition pos = position_at_offset(text, token_start(text, e.byte == 0 ? 0 : e.byte - 1));
    throw SpaceError(space.file, pos.line, pos.column, "",
                     "invalid JSON: " + text_excerpt(parse_error_detail(e.what()), 200));
  } catch (const Json::exception& e) {
    // A number out of range stops nlohmann before it sees any syntax error further on; the locator finds those.
    try {
      space.locations = JsonLocator::scan(text);
    } catch (const Error&) {
      // Not JSON after all: report nlohmann's complaint at the token it names ("number overflow parsing '1e999'").
      std::string what = e.what();
      std::size_t at = 0;
      if (auto q = what.find('\''); q != std::string::npos) {
        auto q2 = what.find('\'', q + 1);
        if (q2 != std::string::npos) at = std::min(text.find(what.substr(q + 1, q2 - q - 1)), text.size());
      }
      TextPosition pos = position_at_offset(text, at);
      throw SpaceError(space.file, pos.line, pos.column, "",
                       "invalid JSON: " + text_excerpt(parse_error_detail(what), 200));
    }
    throw number_out_of_range(space, text);
  }
  space.locations = JsonLocator::scan(text);
  if (!space.locations.duplicate_keys().empty()) {
    const DuplicateKey& d = space.locations.duplicate_keys().front();
    std::string key = d.json_path.substr(d.json_path.rfind('/') + 1);
    throw space.error_at_key(d.json_path, fmt::format("duplicate key \"{}\" (first at line {}, column {})", key,
                                                      d.first.line, d.first.column));
  }

  space_json::Checker check(space);
  check.object(root, "");
  check.only_keys(root, "",
                  {"family", "description", "arch", "problems", "shapes", "constants", "parameters", "derived",
                   "constraints", "points"});
  space.family = check.string(check.required(root, "", "family"), "/family");
  if (space.family.empty()) check.fail("/family", "the family name is empty");
  if (root.contains("description")) space.description = check.string(root.at("description"), "/description");
  if (root.contains("arch")) {
    space.arch = check.string(root.at("arch"), "/arch");
    if (!Arch::parse(*space.arch))
      check.fail("/arch", fmt::format("unknown arch \"{}\"; expected e.g. \"sm_86\" or \"sm_90a\"", *space.arch));
  }
  if (root.contains("problems")) read_problems(space, root.at("problems"), check);
  space_json::read_shapes(space, root, check);
  space_json::read_parameters(space, root, check);
  space_json::read_constants(space, root, check);
  space_json::read_derived(space, root, check);
  space_json::read_constraints(space, root, check);
  space_json::read_points(space, root, check);
  check_satisfiable(space);
  return space;
}

}  // namespace mpgemm
