#include "tune/noise.hpp"

#include <fmt/format.h>

namespace mpgemm {

std::optional<Measurement> measure_steady(MeasureBackend& backend, const Candidate& c, const CompileResult& compiled,
                                          const Shape& shape, double max_spread,
                                          std::optional<double> screen_against_ms) {
  // A timing taken under a noise target has already been sampled until it was steady (or out of time): measuring
  // it again would only fight the stopping rule.
  auto noisy = [&](const std::optional<Measurement>& m) {
    return m && m->status == Status::ok && m->timing && !m->timing->noise_target && m->timing->spread() > max_spread;
  };
  std::optional<Measurement> m = backend.measure_screened(c, compiled, shape, screen_against_ms);
  for (int retry = 0; retry < 2 && noisy(m); ++retry) {
    std::optional<Measurement> again = backend.measure(c, compiled, shape);
    if (!again) break;
    if (again->status != Status::ok || !again->timing || again->timing->spread() < m->timing->spread()) m = again;
  }
  if (noisy(m))
    m->message = fmt::format("noisy timing: spread {:.1f}% of the median after 3 measurements (threshold {:.1f}%)",
                             100 * m->timing->spread(), 100 * max_spread);
  return m;
}

}  // namespace mpgemm
