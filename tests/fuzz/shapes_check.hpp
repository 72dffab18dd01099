#pragma once
// The shape list readers' contract on any input (space/shape_list.hpp), shared by the libFuzzer harness
// (fuzz/shapes_fuzz.cpp) and the corpus replay that CI runs without clang (unit/space_shapes_corpus_test.cpp).
// The same text goes to both readers, as a shape file and as an inline --shapes list:
//   - each returns a non-empty list of shapes with positive M, N and K, none listed twice under one kind, or
//   - throws a UsageError whose what() is one line of at most kMaxMessage bytes; a shape file's starts
//     "<label>: ", an inline list's with "--shapes: " or the quoted text.
// Anything else (another exception, a crash, a hang, a message over lines) is a bug in src/space/shape_list.cpp.
#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "common/error.hpp"
#include "fuzz/contract.hpp"
#include "space/shape_list.hpp"

namespace mpgemm::fuzz {

// The messages quote values, keys and the text cut short (common/bounded_input.hpp); the longest form is
// "<label>: /shapes/<index>/M: expected a positive integer, got <40 bytes>" or a parser's complaint.
inline constexpr std::size_t kMaxMessage = 512;

// Empty when `shapes` is what a reader may return.
inline std::string shapes_problem(std::vector<Shape> shapes) {
  if (shapes.empty()) return "returned no shapes";
  for (const Shape& s : shapes)
    if (s.m <= 0 || s.n <= 0 || s.k <= 0) return "returned a shape that is not positive: " + s.str();
  const auto key = [](const Shape& s) { return std::tuple(s.m, s.n, s.k); };
  std::sort(shapes.begin(), shapes.end(), [&](const Shape& a, const Shape& b) { return key(a) < key(b); });
  if (auto d = std::adjacent_find(shapes.begin(), shapes.end()); d != shapes.end())
    return "returned a shape twice: " + d->str();
  return "";
}

// The same for a shape file's entries: a shape may be listed once per kind it names.
inline std::string shapes_problem(std::vector<ListedShape> listed) {
  if (listed.empty()) return "returned no shapes";
  for (const ListedShape& l : listed)
    if (l.shape.m <= 0 || l.shape.n <= 0 || l.shape.k <= 0)
      return "returned a shape that is not positive: " + l.shape.str();
  const auto key = [](const ListedShape& l) {
    return std::tuple(l.shape.m, l.shape.n, l.shape.k, l.kind ? l.kind->name() : std::string());
  };
  std::sort(listed.begin(), listed.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
  if (auto d = std::adjacent_find(listed.begin(), listed.end()); d != listed.end())
    return "returned a shape twice under one kind: " + d->shape.str();
  return "";
}

// Empty when `what` is one line, short, and starts with one of `prefixes`.
inline std::string message_problem(std::string_view what, std::initializer_list<std::string_view> prefixes) {
  if (what.find('\n') != std::string_view::npos) return "a message over several lines";
  if (what.size() > kMaxMessage) return "a message of " + std::to_string(what.size()) + " bytes";
  for (std::string_view p : prefixes)
    if (what.starts_with(p)) return "";
  return "a message that does not name what it is about";
}

// One reader on `text`: empty when it kept the contract, else what it did wrong (prefixed by `form`).
template <class Read>
std::string check_shape_reader(std::string_view form, Read read, std::initializer_list<std::string_view> prefixes) {
  std::string problem;
  try {
    problem = shapes_problem(read());
  } catch (const UsageError& e) {
    problem = message_problem(e.what(), prefixes);
    if (!problem.empty()) problem += std::string(": ") + e.what();
  } catch (const std::exception& e) {
    problem = "threw " + type_name(e) + " instead of UsageError: " + e.what();
  } catch (...) {
    problem = "threw something that is not a std::exception";
  }
  return problem.empty() ? "" : std::string(form) + ": " + problem;
}

// Empty when both readers kept their contract on `text`; otherwise what went wrong.
inline std::string check_shapes_input(std::string_view text) {
  const std::string label(kLabel);
  const std::string named = label + ": ";
  std::string problem = check_shape_reader("shape file", [&] { return parse_shape_file(text, label); }, {named});
  if (!problem.empty()) return problem;
  return check_shape_reader("inline list", [&] { return parse_shape_list(text); }, {"--shapes: ", "'"});
}

}  // namespace mpgemm::fuzz
