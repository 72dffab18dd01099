#include "lib/dispatch_policy.hpp"

#include <cmath>
#include <tuple>

#include <fmt/format.h>

namespace mpgemm::lib {

namespace {

double log2_ratio(std::int64_t a, std::int64_t b) {
  return std::fabs(std::log2(static_cast<double>(a)) - std::log2(static_cast<double>(b)));
}

// Distances equal up to rounding (log2 of products) count as ties.
constexpr double kTieEpsilon = 1e-9;

std::string describe_ratio(const std::optional<double>& ratio) {
  return ratio ? fmt::format("{:.3f}x cuBLAS", *ratio) : std::string("an unknown speed relative to cuBLAS");
}

}  // namespace

double shape_distance(const Shape& a, const Shape& b) {
  return log2_ratio(a.m, b.m) + log2_ratio(a.n, b.n) + log2_ratio(a.k, b.k);
}

Decision decide(const Shape& requested, std::span<const TunedShape> table, const PolicyOptions& options) {
  Decision d;
  if (table.empty()) {
    d.reason = "no tuned shapes of this problem kind for this device: cuBLAS";
    return d;
  }
  std::optional<std::size_t> best;
  double best_distance = 0;
  std::size_t invalid = 0;
  const std::string* first_invalid = nullptr;
  for (std::size_t i = 0; i < table.size(); ++i) {
    const TunedShape& row = table[i];
    if (row.invalid) {
      ++invalid;
      if (!first_invalid) first_invalid = &*row.invalid;
      continue;
    }
    const double distance = shape_distance(requested, row.shape);
    const auto order = [](const Shape& s) { return std::tie(s.m, s.n, s.k); };
    if (!best || distance < best_distance - kTieEpsilon ||
        (distance <= best_distance + kTieEpsilon && order(row.shape) < order(table[*best].shape))) {
      best = i;
      best_distance = distance;
    }
  }
  if (!best) {
    d.reason = fmt::format("no tuned winner is valid for {} ({} tuned shapes; e.g. {}): cuBLAS", requested.str(),
                           invalid, first_invalid ? *first_invalid : std::string("?"));
    return d;
  }
  const TunedShape& row = table[*best];
  d.chosen = best;
  d.distance = best_distance;
  const bool exact = row.shape == requested;
  const std::string where =
      exact ? fmt::format("tuned at {}", requested.str())
            : fmt::format("not tuned; nearest tuned shape with a valid winner is {} (distance {:.2f})", row.shape.str(),
                          best_distance);
  const std::string what = fmt::format("{} runs at {} there", row.config, describe_ratio(row.ratio_cublas));
  // min_ratio <= 0 asks for the tuned winner whatever cuBLAS does, an unknown ratio included.
  if (options.min_ratio <= 0 || (row.ratio_cublas && *row.ratio_cublas >= options.min_ratio)) {
    d.route = exact ? Route::tuned : Route::nearest;
    d.reason = fmt::format("{}: {}", where, what);
  } else {
    d.route = Route::cublas;
    d.reason = fmt::format("{}: {}, not known to reach {:.2f}x: cuBLAS", where, what, options.min_ratio);
  }
  return d;
}

}  // namespace mpgemm::lib
