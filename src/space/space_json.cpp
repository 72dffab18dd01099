#include "space/space_json.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "space/suggest.hpp"

namespace mpgemm::space_json {

namespace {

template <class Range>
std::string closest(std::string_view name, const Range& candidates) {
  std::string_view best;
  std::size_t best_distance = suggestion_limit(name) + 1;
  for (std::string_view c : candidates) {
    std::size_t d = edit_distance(name, c);
    if (d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", best);
}

}  // namespace

std::string member_path(const std::string& parent, std::string_view key) {
  return parent + "/" + json_pointer_token(key);
}

std::string index_path(const std::string& parent, std::size_t index) {
  return fmt::format("{}/{}", parent, index);
}

std::string describe(const Json& j) {
  if (j.is_object()) return "an object";
  if (j.is_array()) return "an array";
  std::string text = j.dump();
  return text.size() > 40 ? text.substr(0, 37) + "..." : text;
}

std::string did_you_mean(std::string_view name, std::initializer_list<std::string_view> candidates) {
  return closest(name, candidates);
}

std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates) {
  return closest(name, candidates);
}

void Checker::fail(const std::string& path, const std::string& message) const {
  throw space_.error_at(path, message);
}

void Checker::fail_key(const std::string& path, const std::string& message) const {
  throw space_.error_at_key(path, message);
}

const Json& Checker::object(const Json& j, const std::string& path) const {
  if (!j.is_object()) fail(path, fmt::format("expected an object, got {}", describe(j)));
  return j;
}

const Json& Checker::array(const Json& j, const std::string& path) const {
  if (!j.is_array()) fail(path, fmt::format("expected an array, got {}", describe(j)));
  return j;
}

const Json& Checker::non_empty_array(const Json& j, const std::string& path) const {
  if (array(j, path).empty()) fail(path, "expected a non-empty array, got []");
  return j;
}

std::int64_t Checker::integer(const Json& j, const std::string& path) const {
  if (!j.is_number_integer()) fail(path, fmt::format("expected an integer, got {}", describe(j)));
  if (j.is_number_unsigned() && j.get<std::uint64_t>() > std::uint64_t{std::numeric_limits<std::int64_t>::max()})
    fail(path,
         fmt::format("integer {} is out of range (at most {})", j.dump(), std::numeric_limits<std::int64_t>::max()));
  return j.get<std::int64_t>();
}

std::int64_t Checker::positive_integer(const Json& j, const std::string& path) const {
  if (!j.is_number_integer()) fail(path, fmt::format("expected a positive integer, got {}", describe(j)));
  std::int64_t v = integer(j, path);
  if (v <= 0) fail(path, fmt::format("expected a positive integer, got {}", v));
  return v;
}

std::string Checker::string(const Json& j, const std::string& path) const {
  if (!j.is_string()) fail(path, fmt::format("expected a string, got {}", describe(j)));
  return j.get<std::string>();
}

void Checker::only_keys(const Json& obj, const std::string& path,
                        std::initializer_list<std::string_view> allowed) const {
  for (const auto& [key, value] : obj.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string expected;
    for (std::string_view a : allowed) expected += fmt::format("{}{}", expected.empty() ? "" : ", ", a);
    fail_key(member_path(path, key),
             fmt::format("unknown key \"{}\"{}; expected {}", key, did_you_mean(key, allowed), expected));
  }
}

const Json& Checker::required(const Json& obj, const std::string& path, std::string_view key) const {
  auto it = obj.find(std::string(key));
  if (it == obj.end()) fail(path, fmt::format("missing required key \"{}\"", key));
  return *it;
}

}  // namespace mpgemm::space_json
