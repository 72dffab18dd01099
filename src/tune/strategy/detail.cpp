#include "tune/strategy/detail.hpp"

#include <cerrno>
#include <cstdlib>

#include <fmt/format.h>

#include "common/error.hpp"

namespace mpgemm::strategy_detail {

namespace {
const std::string& raw_option(const StrategyContext& context, const std::string& strategy, const std::string& name) {
  auto it = context.options.find(name);
  if (it == context.options.end())
    throw Error(fmt::format("strategy {}: option {} was not filled in (make_strategy fills defaults)", strategy, name));
  return it->second;
}
}  // namespace

std::uint64_t IndexSampler::value_at(std::uint64_t i) const {
  auto it = swapped_.find(i);
  return it == swapped_.end() ? i : it->second;
}

std::optional<std::uint64_t> IndexSampler::next(Rng& rng) {
  if (drawn_ == size_) return std::nullopt;
  const std::uint64_t j = drawn_ + rng.below(size_ - drawn_);
  const std::uint64_t picked = value_at(j);
  if (j != drawn_) swapped_[j] = value_at(drawn_);
  swapped_.erase(drawn_);
  ++drawn_;
  return picked;
}

double option_double(const StrategyContext& context, const std::string& strategy, const std::string& name) {
  const std::string& text = raw_option(context, strategy, name);
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE)
    throw UsageError(fmt::format("strategy {}: option {} must be a number, got '{}'", strategy, name, text));
  return v;
}

std::size_t option_size(const StrategyContext& context, const std::string& strategy, const std::string& name) {
  const std::string& text = raw_option(context, strategy, name);
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || v < 0)
    throw UsageError(fmt::format("strategy {}: option {} must be a whole number >= 0, got '{}'", strategy, name, text));
  return static_cast<std::size_t>(v);
}

bool option_bool(const StrategyContext& context, const std::string& strategy, const std::string& name) {
  const std::string& text = raw_option(context, strategy, name);
  if (text == "1" || text == "true" || text == "on" || text == "yes") return true;
  if (text == "0" || text == "false" || text == "off" || text == "no") return false;
  throw UsageError(fmt::format("strategy {}: option {} must be true or false, got '{}'", strategy, name, text));
}

}  // namespace mpgemm::strategy_detail
