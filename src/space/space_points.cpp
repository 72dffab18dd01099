// The "points" section of a space file: named, complete configs such as baselines.
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "space/enumerate.hpp"
#include "space/space_json.hpp"

namespace mpgemm::space_json {

namespace {

bool is_point_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

}  // namespace

void read_points(Space& space, const Json& root, const Checker& check) {
  if (!root.contains("points")) return;
  const Json& points = check.object(root.at("points"), "/points");
  std::vector<std::string> names;
  std::unordered_map<std::string_view, const Parameter*> by_name;  // a point may set hundreds: no linear search
  for (const Parameter& p : space.parameters) {
    names.push_back(p.name);
    by_name.emplace(p.name, &p);
  }

  for (const auto& [name, value] : points.items()) {
    NamedPoint point{name, {}, member_path("/points", name)};
    if (!is_point_name(name))
      check.fail_key(point.json_path,
                     fmt::format("invalid point name \"{}\": names are letters, digits and '_'", name));
    check.object(value, point.json_path);
    for (const auto& [key, v] : value.items()) {
      std::string path = member_path(point.json_path, key);
      const auto found = by_name.find(key);
      const Parameter* p = found == by_name.end() ? nullptr : found->second;
      if (p == nullptr)
        check.fail_key(path, fmt::format("point \"{}\" sets \"{}\", which is not a parameter{}", name, key,
                                         did_you_mean(key, names)));
      if (p->type == ValueType::integer) {
        if (!v.is_number_integer())
          check.fail(path, fmt::format("expected an integer (parameter {} is an integer), got {}", key, describe(v)));
        point.params[key] = check.integer(v, path);
      } else {
        if (!v.is_string())
          check.fail(path, fmt::format("expected a string (parameter {} is a string), got {}", key, describe(v)));
        point.params[key] = v.get<std::string>();
      }
    }
    for (const Parameter& p : space.parameters)
      if (!point.params.contains(p.name))
        check.fail_key(point.json_path, fmt::format("point \"{}\" does not set parameter {}", name, p.name));
    // Evaluation problems (a derived value dividing by zero) are reported at the point, where the values are.
    std::optional<std::string> failed;
    try {
      failed = failing_constraint(space, point.params);
    } catch (const SpaceError& e) {
      check.fail_key(point.json_path, fmt::format("point \"{}\": {}: {}", name, e.json_path(), e.message()));
    }
    if (failed) check.fail_key(point.json_path, fmt::format("point \"{}\" violates constraint \"{}\"", name, *failed));
    space.points.push_back(std::move(point));
  }
}

}  // namespace mpgemm::space_json
