#include "measure/sampling.hpp"

#include <cmath>

namespace mpgemm {

double relative_noise(std::span<const double> samples) {
  const std::size_t n = samples.size();
  if (n < 2) return 0;
  double sum = 0;
  for (double v : samples) sum += v;
  const double mean = sum / static_cast<double>(n);
  if (!(mean > 0)) return 0;
  double squares = 0;
  for (double v : samples) squares += (v - mean) * (v - mean);
  return std::sqrt(squares / static_cast<double>(n - 1)) / mean;
}

SamplingStep next_sampling_step(std::span<const double> samples, double elapsed_s, const NoiseStop& rule) {
  const int taken = static_cast<int>(samples.size());
  if (taken >= rule.min_samples && taken >= 2 && relative_noise(samples) < rule.target) return SamplingStep::converged;
  if (elapsed_s >= rule.max_time_s) return SamplingStep::time_cap;
  return SamplingStep::more;
}

bool screened_out(double screen_ms, std::optional<double> best_ms, const ScreenRule& rule) {
  if (!best_ms || !(*best_ms > 0)) return false;
  return screen_ms > rule.threshold * *best_ms;
}

bool keep_warm_now(double since_request_ms, const ClockHold& hold) {
  return hold.keep_warm_ms > 0 && since_request_ms < hold.keep_warm_ms;
}

int idle_settle_for(double idle_ms, const ClockHold& hold) {
  return hold.idle_settle_ms > 0 && idle_ms > kIdleGapMs ? hold.idle_settle_ms : 0;
}

}  // namespace mpgemm
