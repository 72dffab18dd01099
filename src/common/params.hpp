#pragma once
// A kernel configuration as the search space sees it: named parameter values, each an integer or a string
// (e.g. LOAD = "cp_async"). Families turn Params into their own typed config struct.
#include <cstdint>
#include <map>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

namespace mpgemm {

using Value = std::variant<std::int64_t, std::string>;

// Ordered by name, so iteration, JSON and hashes are deterministic.
using Params = std::map<std::string, Value>;

std::string to_string(const Value& v);  // 128 or "cp_async" (strings quoted)
nlohmann::json to_json(const Value& v);
nlohmann::json to_json(const Params& p);
// Throws mpgemm::Error if a value is neither an integer nor a string.
Params params_from_json(const nlohmann::json& j);

// Accessors that throw mpgemm::Error naming the parameter when it is missing or of the other type.
std::int64_t get_int(const Params& p, const std::string& name);
// get_int for parameters a kernel takes as a C++ int; also throws when the value does not fit one.
int get_small_int(const Params& p, const std::string& name);
const std::string& get_string(const Params& p, const std::string& name);

}  // namespace mpgemm
