#include "tune/candidates.hpp"

#include <map>

#include <fmt/format.h>

#include "space/enumerate.hpp"

namespace mpgemm {

namespace {
std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}
}  // namespace

std::vector<Candidate> build_candidates(const Space& space, const Family& family) {
  std::vector<Candidate> out;
  std::map<std::string, std::size_t> index_by_name;
  for (const auto& point : space.points) {
    if (auto problems = family.check_config(point.params); !problems.empty())
      throw space.error_at(point.json_path, fmt::format("the {} family cannot build point {}: {}", family.name(),
                                                        point.name, join(problems)));
    Candidate c{space.family, point.params, family.config_name(point.params), point.name};
    if (auto it = index_by_name.find(c.name); it != index_by_name.end())
      throw space.error_at_key(point.json_path, fmt::format("point {} is the same config as point {} ({})", point.name,
                                                            *out[it->second].alias, c.name));
    index_by_name[c.name] = out.size();
    out.push_back(std::move(c));
  }
  Enumeration e = enumerate(space);
  for (auto& params : e.configs) {
    if (auto problems = family.check_config(params); !problems.empty())
      throw space.error_at("/constraints",
                           fmt::format("config {} satisfies every constraint but the {} family cannot build it: {} "
                                       "(add a constraint that excludes it)",
                                       describe_config(space, params), family.name(), join(problems)));
    std::string name = family.config_name(params);
    if (index_by_name.count(name)) continue;  // a named point that also lies inside the domains
    index_by_name[name] = out.size();
    out.push_back(Candidate{space.family, std::move(params), std::move(name), std::nullopt});
  }
  return out;
}

}  // namespace mpgemm
