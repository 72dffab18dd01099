#include "worker/phase_totals.hpp"

#include <fmt/format.h>

namespace mpgemm {

std::string WorkerPhases::summary() const {
  const double total = total_s();
  const auto part = [&](const char* name, double s) {
    return fmt::format("{} {:.1f} s ({:.0f}%)", name, s, total > 0 ? 100 * s / total : 0.0);
  };
  std::string out = fmt::format("{} measurement(s), {} shape(s) in {:.1f} s: {}, {}, {}, {}, {}, {}", measurements,
                                shapes, total, part("timing", timing_s), part("verifying", verifying_s),
                                part("loading", setup_s), part("preparing shapes", preparing_s),
                                part("waiting for requests", waiting_s), part("replying", replying_s));
  if (reranks > 0)
    out +=
        fmt::format(", {} ({} re-rank(s)), {}", part("re-ranking", reranking_s), reranks, part("settling", settling_s));
  if (keeping_warm_s > 0) out += fmt::format(", {}", part("keeping warm", keeping_warm_s));
  if (idle_settles > 0)
    out += fmt::format(", {} ({} time(s))", part("settling after idle", idle_settling_s), idle_settles);
  if (measurements > 0)
    out += fmt::format("; per measurement {:.1f} ms outside timing",
                       1e3 * (setup_s + verifying_s + waiting_s + replying_s) / measurements);
  return out;
}

}  // namespace mpgemm
