#include "tune/shard.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/whole_number.hpp"

namespace mpgemm {

namespace {

std::optional<int> positive(std::string_view s) {
  const std::optional<int> v = parse_whole_number<int>(s);
  if (!v || *v < 1) return std::nullopt;
  return v;
}

}  // namespace

Shard Shard::parse(std::string_view text) {
  const auto slash = text.find('/');
  const auto i = slash == std::string_view::npos ? std::nullopt : positive(text.substr(0, slash));
  const auto n = slash == std::string_view::npos ? std::nullopt : positive(text.substr(slash + 1));
  if (!i || !n)
    throw UsageError(fmt::format("--shard '{}': expected I/N with whole numbers 1 <= I <= N, e.g. 2/8", text));
  if (*i > *n)
    throw UsageError(fmt::format("--shard '{}': shard {} of {} does not exist (I runs from 1 to N)", text, *i, *n));
  return Shard{*i, *n};
}

std::string Shard::str() const {
  return fmt::format("{}/{}", index, count);
}

bool Shard::takes(std::size_t config_ordinal, std::size_t shape_index) const {
  return (config_ordinal + shape_index) % static_cast<std::size_t>(count) == static_cast<std::size_t>(index - 1);
}

std::size_t Shard::pairs(std::size_t configs, std::size_t shapes) const {
  const auto n = static_cast<std::size_t>(count);
  std::size_t total = 0;
  for (std::size_t s = 0; s < shapes; ++s) {
    // Ordinals k < configs with k = (index - 1 - s) mod n.
    const std::size_t first = (static_cast<std::size_t>(index - 1) + n - s % n) % n;
    if (first < configs) total += (configs - first + n - 1) / n;
  }
  return total;
}

}  // namespace mpgemm
