#pragma once
// Internal to the space loader: typed reads of an nlohmann value that throw a SpaceError at the value's place in
// the file. ordered_json keeps members in file order, which is the parameters' enumeration order.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "space/space.hpp"

namespace mpgemm::space_json {

using Json = nlohmann::ordered_json;

inline constexpr std::string_view kNameRule =
    "names are letters, digits and '_', not starting with a digit, and not min, max or is_pow2";

std::string member_path(const std::string& parent, std::string_view key);  // parent + "/" + escaped key
std::string index_path(const std::string& parent, std::size_t index);

// How a value appears in messages: scalars as JSON ("64", 1.5, true), containers by kind ("an object").
std::string describe(const Json& j);

// " (did you mean "X"?)" for the candidate closest to `name`, or "" when none is close.
std::string did_you_mean(std::string_view name, std::initializer_list<std::string_view> candidates);
std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates);

// Every check throws space.error_at(path, ...) (or error_at_key for keys) when it fails.
class Checker {
 public:
  explicit Checker(const Space& space) : space_(space) {}

  [[noreturn]] void fail(const std::string& path, const std::string& message) const;
  [[noreturn]] void fail_key(const std::string& path, const std::string& message) const;

  const Json& object(const Json& j, const std::string& path) const;
  const Json& array(const Json& j, const std::string& path) const;
  const Json& non_empty_array(const Json& j, const std::string& path) const;
  std::int64_t integer(const Json& j, const std::string& path) const;
  std::int64_t positive_integer(const Json& j, const std::string& path) const;
  std::string string(const Json& j, const std::string& path) const;

  // Rejects members other than `allowed`, at the unknown key.
  void only_keys(const Json& obj, const std::string& path, std::initializer_list<std::string_view> allowed) const;
  // The member `key`, or an error at the object saying it is missing.
  const Json& required(const Json& obj, const std::string& path, std::string_view key) const;

 private:
  const Space& space_;
};

// The sections of a space file, read in this order (each may use what the earlier ones read).
void read_shapes(Space& space, const Json& root, const Checker& check);       // space_parameters.cpp
void read_parameters(Space& space, const Json& root, const Checker& check);   // space_parameters.cpp
void read_constants(Space& space, const Json& root, const Checker& check);    // space_expressions.cpp
void read_derived(Space& space, const Json& root, const Checker& check);      // space_expressions.cpp
void read_constraints(Space& space, const Json& root, const Checker& check);  // space_expressions.cpp
void read_points(Space& space, const Json& root, const Checker& check);       // space_points.cpp

}  // namespace mpgemm::space_json
