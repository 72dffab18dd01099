#include "measure/stats.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/error.hpp"
#include "measure/sampling.hpp"

namespace mpgemm {

TimingStats summarize(std::vector<double> per_launch_ms_per_run, int warmup, int runs, int iters) {
  if (per_launch_ms_per_run.empty()) throw Error("summarize: no timed runs");
  if (runs < 1 || iters < 1 || warmup < 0)
    throw Error(fmt::format("summarize: bad protocol (warmup {}, runs {}, iters {})", warmup, runs, iters));
  if (per_launch_ms_per_run.size() != static_cast<std::size_t>(runs))
    throw Error(fmt::format("summarize: {} timed runs, expected {}", per_launch_ms_per_run.size(), runs));
  for (double v : per_launch_ms_per_run)
    if (!std::isfinite(v) || v < 0) throw Error(fmt::format("summarize: invalid per-launch time {} ms", v));

  const double noise = relative_noise(per_launch_ms_per_run);
  std::sort(per_launch_ms_per_run.begin(), per_launch_ms_per_run.end());
  const std::size_t n = per_launch_ms_per_run.size();
  TimingStats t;
  t.median_ms = n % 2 == 1 ? per_launch_ms_per_run[n / 2]
                           : 0.5 * (per_launch_ms_per_run[n / 2 - 1] + per_launch_ms_per_run[n / 2]);
  t.min_ms = per_launch_ms_per_run.front();
  t.max_ms = per_launch_ms_per_run.back();
  t.warmup = warmup;
  t.runs = runs;
  t.iters = iters;
  t.noise = noise;
  return t;
}

ErrorStats compare(std::span<const float> out, std::span<const float> ref, double atol, double rtol) {
  if (out.size() != ref.size())
    throw Error(fmt::format("compare: output has {} elements, reference {}", out.size(), ref.size()));
  if (!(atol >= 0) || !(rtol >= 0)) throw Error(fmt::format("compare: bad tolerances atol {} rtol {}", atol, rtol));

  ErrorStats s;
  s.atol = atol;
  s.rtol = rtol;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double c = out[i];
    const double r = ref[i];
    if (!std::isfinite(c)) {
      ++s.nan_count;
      ++s.bad_count;
      continue;
    }
    if (!std::isfinite(r)) {
      ++s.bad_count;
      continue;
    }
    const double diff = std::fabs(c - r);
    s.max_abs = std::max(s.max_abs, diff);
    if (r != 0) s.max_rel = std::max(s.max_rel, diff / std::fabs(r));
    if (!(diff <= atol + rtol * std::fabs(r))) ++s.bad_count;
  }
  return s;
}

double tflops(const Shape& shape, double ms) {
  if (!(ms > 0)) return 0;
  return shape.flops() / (ms * 1e-3) / 1e12;
}

double unit_roundoff(ElementType type) {
  switch (type) {
    case ElementType::fp16:
      return 0x1p-11;
    case ElementType::bf16:
      return 0x1p-8;
    case ElementType::fp32:
      return 0;
  }
  return 0;
}

Tolerance output_tolerance(ElementType out, double atol, double rtol) {
  const double u = unit_roundoff(out);
  return Tolerance{atol * (1 + u), rtol + u * (1 + rtol)};
}

}  // namespace mpgemm
