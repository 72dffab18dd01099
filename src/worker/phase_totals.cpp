#include "worker/phase_totals.hpp"

#include <type_traits>

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

namespace {

// Each field once, for both directions.
template <class Phases, class F>
void each_field(Phases& p, F&& f) {
  f("measurements", p.measurements);
  f("shapes", p.shapes);
  f("reranks", p.reranks);
  f("idle_settles", p.idle_settles);
  f("waiting_s", p.waiting_s);
  f("setup_s", p.setup_s);
  f("verifying_s", p.verifying_s);
  f("timing_s", p.timing_s);
  f("replying_s", p.replying_s);
  f("preparing_s", p.preparing_s);
  f("reranking_s", p.reranking_s);
  f("settling_s", p.settling_s);
  f("keeping_warm_s", p.keeping_warm_s);
  f("idle_settling_s", p.idle_settling_s);
}

}  // namespace

nlohmann::json to_json(const WorkerPhases& p) {
  nlohmann::json j = nlohmann::json::object();
  each_field(p, [&](const char* name, const auto& value) { j[name] = value; });
  return j;
}

WorkerPhases worker_phases_from_json(const nlohmann::json& j) {
  WorkerPhases p;
  each_field(p, [&](const char* name, auto& value) { value = j.at(name).get<std::remove_cvref_t<decltype(value)>>(); });
  return p;
}

}  // namespace mpgemm
