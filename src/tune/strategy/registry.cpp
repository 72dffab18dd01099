#include <fmt/format.h>

#include "common/error.hpp"
#include "tune/strategy/strategy.hpp"

namespace mpgemm {

std::unique_ptr<Strategy> make_exhaustive(const StrategyContext& ctx);

const std::vector<StrategyInfo>& strategies() {
  static const std::vector<StrategyInfo> all{
      {"exhaustive", "every config: the named points, then the enumeration order", {}, &make_exhaustive},
  };
  return all;
}

std::unique_ptr<Strategy> make_strategy(std::string_view name, StrategyContext context) {
  for (const auto& s : strategies()) {
    if (s.name != name) continue;
    for (const auto& [k, v] : context.options) {
      bool known = false;
      for (const auto& o : s.options) known = known || o.name == k;
      if (!known) throw UsageError(fmt::format("strategy {} has no option '{}'", name, k));
    }
    for (const auto& o : s.options) context.options.try_emplace(o.name, o.default_value);
    return s.make(context);
  }
  std::string names;
  for (const auto& s : strategies()) names += (names.empty() ? "" : ", ") + s.name;
  throw UsageError(fmt::format("unknown strategy '{}': one of {}", name, names));
}

}  // namespace mpgemm
