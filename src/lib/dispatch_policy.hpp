#pragma once
// The library's dispatch policy (stated in include/mpgemm/gemm.hpp and docs/library.md) as a pure function over a
// table of tuned shapes, so it is tested on the CPU. The caller (src/lib/device_state.cpp) builds the table for
// one device and one requested shape: each tuned shape of the device with its winner's ratio to cuBLAS and
// whether that winner can run the requested shape there.
#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "common/types.hpp"

namespace mpgemm::lib {

// One tuned shape of the device, as the policy sees it.
struct TunedShape {
  Shape shape;
  std::string config;                  // its winner's procedural name (for the reason)
  std::optional<double> ratio_cublas;  // the winner's cuBLAS time / its time, measured at `shape`
  std::optional<std::string> invalid;  // why the winner cannot run the requested shape on this device; none: valid
};

enum class Route { tuned, nearest, cublas };

struct Decision {
  Route route = Route::cublas;
  std::optional<std::size_t> chosen;  // the table row that decided (its winner runs unless route is cublas)
  double distance = 0;                // shape_distance(requested, chosen's shape)
  std::string reason;                 // one sentence for people
};

struct PolicyOptions {
  double min_ratio = 1.0;  // the chosen winner runs when its ratio is known and >= this; <= 0: always
};

// |log2(a.m / b.m)| + |log2(a.n / b.n)| + |log2(a.k / b.k)|: 1 per doubling or halving of a dimension.
double shape_distance(const Shape& a, const Shape& b);

// The nearest row whose winner is valid (ties: the smaller M, then N, then K of the tuned shape), then the ratio
// rule; cuBLAS when no row is valid or the chosen one's ratio is unknown or below options.min_ratio (> 0). Pure.
Decision decide(const Shape& requested, std::span<const TunedShape> table, const PolicyOptions& options);

}  // namespace mpgemm::lib
