#include <fmt/format.h>

#include "common/error.hpp"
#include "tune/strategy/detail.hpp"
#include "tune/strategy/strategy.hpp"

namespace mpgemm {

const std::vector<StrategyInfo>& strategies() {
  static const std::vector<StrategyInfo> all = {strategy_detail::exhaustive_info(), strategy_detail::random_info(),
                                                strategy_detail::annealing_info(), strategy_detail::model_info()};
  return all;
}

const StrategyInfo& strategy_info(std::string_view name) {
  std::string names;
  for (const StrategyInfo& s : strategies()) {
    if (s.name == name) return s;
    names += fmt::format("{}{}", names.empty() ? "" : ", ", s.name);
  }
  throw UsageError(fmt::format("unknown strategy '{}'; the strategies are {}", name, names));
}

std::unique_ptr<Strategy> make_strategy(std::string_view name, StrategyContext context) {
  const StrategyInfo* info = &strategy_info(name);
  if (!context.space) throw Error(fmt::format("strategy {}: no space given", name));
  for (const auto& [key, value] : context.options) {
    bool known = false;
    std::string accepted;
    for (const StrategyOption& o : info->options) {
      known = known || o.name == key;
      accepted += fmt::format("{}{}", accepted.empty() ? "" : ", ", o.name);
    }
    if (!known)
      throw UsageError(info->options.empty()
                           ? fmt::format("strategy {} takes no options, got '{}'", name, key)
                           : fmt::format("strategy {} has no option '{}'; its options are {}", name, key, accepted));
  }
  for (const StrategyOption& o : info->options) context.options.try_emplace(o.name, o.default_value);
  // Each strategy parses its values when made, throwing UsageError for one it cannot read.
  return info->make(context);
}

}  // namespace mpgemm
