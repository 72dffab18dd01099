#pragma once
// What the strategies share, internal to src/tune/strategy: a portable random generator (the same draws on
// every machine and standard library, so a seed replays exactly), sampling without replacement over a
// SpaceIndex, option parsing, and each strategy's StrategyInfo for the registry.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "common/random.hpp"
#include "space/space_index.hpp"
#include "tune/strategy/strategy.hpp"

namespace mpgemm::strategy_detail {

// The strategies' generator: common/random.hpp's, so a seed replays exactly on every machine.
using Rng = Xoshiro256;

// Uniform draws without replacement from [0, size) by a sparse Fisher-Yates shuffle: memory grows with the
// draws made, not with size, so any size costs nothing until drawn from.
class IndexSampler {
 public:
  explicit IndexSampler(std::uint64_t size) : size_(size) {}
  std::optional<std::uint64_t> next(Rng& rng);  // nullopt once every index was drawn
  std::uint64_t remaining() const { return size_ - drawn_; }

 private:
  std::uint64_t value_at(std::uint64_t i) const;
  std::uint64_t size_;
  std::uint64_t drawn_ = 0;
  std::unordered_map<std::uint64_t, std::uint64_t> swapped_;  // position -> value where it differs from position
};

// Option values as make_strategy filled them in; UsageError naming the strategy and option when unparsable.
double option_double(const StrategyContext& context, const std::string& strategy, const std::string& name);
std::size_t option_size(const StrategyContext& context, const std::string& strategy, const std::string& name);
bool option_bool(const StrategyContext& context, const std::string& strategy, const std::string& name);

StrategyInfo exhaustive_info();
StrategyInfo random_info();
StrategyInfo annealing_info();
StrategyInfo model_info();

}  // namespace mpgemm::strategy_detail
