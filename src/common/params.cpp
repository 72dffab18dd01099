#include "common/params.hpp"

#include <limits>

#include <fmt/format.h>

#include "common/bounded_input.hpp"
#include "common/error.hpp"

namespace mpgemm {

std::string to_string(const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  return "\"" + std::get<std::string>(v) + "\"";
}

nlohmann::json to_json(const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  return std::get<std::string>(v);
}

nlohmann::json to_json(const Params& p) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : p) j[k] = to_json(v);
  return j;
}

Params params_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw Error("parameters must be a JSON object");
  Params p;
  for (const auto& [k, v] : j.items()) {
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t{std::numeric_limits<std::int64_t>::max()}) {
      // get<std::int64_t> would wrap it to a negative value: a silently different parameter
      throw Error(fmt::format("parameter {} = {} is out of range (at most {})", text_excerpt(k), v.get<std::uint64_t>(),
                              std::numeric_limits<std::int64_t>::max()));
    } else if (v.is_number_integer()) {
      p[k] = v.get<std::int64_t>();
    } else if (v.is_string()) {
      p[k] = v.get<std::string>();
    } else {
      throw Error(fmt::format("parameter {} must be an integer or a string, got {}", text_excerpt(k), json_excerpt(v)));
    }
  }
  return p;
}

std::int64_t get_int(const Params& p, const std::string& name) {
  auto it = p.find(name);
  if (it == p.end()) throw Error(fmt::format("parameter {} is missing", name));
  if (const auto* i = std::get_if<std::int64_t>(&it->second)) return *i;
  throw Error(fmt::format("parameter {} must be an integer, got {}", name, to_string(it->second)));
}

int get_small_int(const Params& p, const std::string& name) {
  const std::int64_t v = get_int(p, name);
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
    throw Error(fmt::format("parameter {}={} is out of range", name, v));
  return static_cast<int>(v);
}

const std::string& get_string(const Params& p, const std::string& name) {
  auto it = p.find(name);
  if (it == p.end()) throw Error(fmt::format("parameter {} is missing", name));
  if (const auto* s = std::get_if<std::string>(&it->second)) return *s;
  throw Error(fmt::format("parameter {} must be a string, got {}", name, to_string(it->second)));
}

}  // namespace mpgemm
