#include "tune/time_account.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace mpgemm {

std::string_view to_string(CoordinatorPhase p) {
  switch (p) {
    case CoordinatorPhase::waiting:
      return "waiting for events";
    case CoordinatorPhase::proposing:
      return "strategies";
    case CoordinatorPhase::planning:
      return "planning";
    case CoordinatorPhase::screening:
      return "screening";
    case CoordinatorPhase::recording:
      return "database writes";
    case CoordinatorPhase::switching:
      return "shape switches";
    case CoordinatorPhase::other:
    case CoordinatorPhase::count:
      break;
  }
  return "other";
}

std::string_view to_string(LanePhase p) {
  switch (p) {
    case LanePhase::in_worker:
      return "in the worker";
    case LanePhase::waiting_for_compiles:
      return "waiting for compiles";
    case LanePhase::waiting_for_coordinator:
      return "waiting for the coordinator";
    case LanePhase::claiming:
      return "claims";
    case LanePhase::checking:
      return "database checks";
    case LanePhase::after_last:
    case LanePhase::count:
      break;
  }
  return "after the last item";
}

namespace {

template <class Phase>
TimeAccount account(std::string owner, const PhaseClock<Phase>& clock) {
  TimeAccount a;
  a.owner = std::move(owner);
  a.wall_s = clock.total();
  for (std::size_t i = 0; i < static_cast<std::size_t>(Phase::count); ++i) {
    const auto p = static_cast<Phase>(i);
    a.phases.emplace_back(std::string(to_string(p)), clock.seconds(p));
  }
  return a;
}

}  // namespace

TimeAccount account_of(std::string owner, const PhaseClock<CoordinatorPhase>& clock) {
  return account(std::move(owner), clock);
}
TimeAccount account_of(std::string owner, const PhaseClock<LanePhase>& clock) {
  return account(std::move(owner), clock);
}

double TimeAccount::seconds(std::string_view phase) const {
  for (const auto& [name, s] : phases)
    if (name == phase) return s;
  return 0;
}

nlohmann::json to_json(const TimeAccount& a) {
  nlohmann::json phases = nlohmann::json::object();
  for (const auto& [name, s] : a.phases) phases[name] = s;
  return {{"owner", a.owner}, {"wall_s", a.wall_s}, {"phases", phases}};
}

void TimeAccount::add(std::string phase, double s) {
  s = std::max(0.0, s);
  wall_s += s;
  for (auto& [name, seconds] : phases)
    if (name == phase) {
      seconds += s;
      return;
    }
  phases.emplace_back(std::move(phase), s);
}

std::string TimeAccount::summary() const {
  std::vector<std::pair<std::string, double>> shown;
  for (const auto& p : phases)
    if (p.second >= 0.05) shown.push_back(p);
  std::stable_sort(shown.begin(), shown.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out = fmt::format("{} {:.1f} s", owner, wall_s);
  for (std::size_t i = 0; i < shown.size(); ++i)
    out += fmt::format("{} {} {:.1f} s ({:.0f}%)", i == 0 ? ":" : ",", shown[i].first, shown[i].second,
                       wall_s > 0 ? 100 * shown[i].second / wall_s : 0.0);
  return out;
}

}  // namespace mpgemm
