#pragma once
// Where a thread of the tuner spends its time, as the worker accounts for its own (worker/phase_totals.hpp): a
// clock with exactly one current phase, so its phases add up to the thread's wall time, and the account it gives,
// printed at the end of a run beside the worker's. The coordinator and each measuring lane keep one.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace mpgemm {

// The coordinator thread's phases (tune/scheduler.cpp).
enum class CoordinatorPhase : std::size_t {
  waiting,    // for the next event (a compile done, an outcome): nothing else to do
  proposing,  // the strategies: propose, observe (a model strategy refits)
  planning,   // a proposal into the plan: specs, keys, the config's row, the stored outcome looked up
  screening,  // a compiled config checked against the shape and the device, pruned or queued for the lanes
  recording,  // outcomes, compilations and references written to the database
  switching,  // a shape's strategy started (a learning strategy loads its prior from the database)
  other,      // the loop itself, events handled outside the phases above
  count
};

// A measuring lane's phases (tune/measure_lanes.cpp). The lane waits for an item with the worker idle; the wait is
// split at the moment the item it then took finished compiling: before it, the lane waited for a compile; after it,
// for the coordinator (the compile's event in its queue, recording the compilation, screening, queueing).
enum class LanePhase : std::size_t {
  in_worker,                // preparing shapes and measuring: the worker's time (the "busy" of the idle share)
  waiting_for_compiles,     // no item ready, and the one that came was still compiling
  waiting_for_coordinator,  // no item ready, its compile long done: the coordinator had not queued it yet
  claiming,                 // the result key's claim against other processes (fcntl; a held claim is waited for)
  checking,                 // whether another process recorded the key meanwhile (a database read)
  after_last,               // the run's queue emptied for good: waiting for the run to end
  count
};

std::string_view to_string(CoordinatorPhase p);
std::string_view to_string(LanePhase p);

template <class Phase>
class PhaseClock {
 public:
  using Clock = std::chrono::steady_clock;
  explicit PhaseClock(Phase base) : current_(base), since_(Clock::now()) {}

  // Makes `p` the current phase; returns the one it replaces.
  Phase enter(Phase p) {
    const auto now = Clock::now();
    seconds_[index(current_)] += std::chrono::duration<double>(now - since_).count();
    since_ = now;
    return std::exchange(current_, p);
  }
  // Moves up to `s` seconds already counted in `from` to `to` (a wait found afterwards to be of another kind).
  void move(Phase from, Phase to, double s) {
    s = std::max(0.0, std::min(s, seconds_[index(from)]));
    seconds_[index(from)] -= s;
    seconds_[index(to)] += s;
  }
  // Counts the current phase up to now (call before reading).
  void settle() { enter(current_); }
  double seconds(Phase p) const { return seconds_[index(p)]; }
  double total() const {
    double t = 0;
    for (double s : seconds_) t += s;
    return t;
  }

 private:
  static std::size_t index(Phase p) { return static_cast<std::size_t>(p); }
  std::array<double, static_cast<std::size_t>(Phase::count)> seconds_{};
  Phase current_;
  Clock::time_point since_;
};

// Enters a phase for a scope and returns to the one before (nested scopes stay exclusive: the inner one counts).
template <class Phase>
class PhaseScope {
 public:
  PhaseScope(PhaseClock<Phase>& clock, Phase p) : clock_(clock), previous_(clock.enter(p)) {}
  ~PhaseScope() { clock_.enter(previous_); }
  PhaseScope(const PhaseScope&) = delete;
  PhaseScope& operator=(const PhaseScope&) = delete;

 private:
  PhaseClock<Phase>& clock_;
  Phase previous_;
};

// One thread's account: its wall time and each phase's seconds, in the phases' order.
struct TimeAccount {
  std::string owner;  // "coordinator", "lane 0", ...
  double wall_s = 0;
  std::vector<std::pair<std::string, double>> phases;

  double seconds(std::string_view phase) const;
  // A phase timed apart from the clock (the run's start and re-rank, around the schedule): its seconds join the
  // wall time.
  void add(std::string phase, double s);
  // "coordinator 41.0 s: recording 2.1 s (5%), proposing 1.0 s (2%), ..." largest first, phases under 0.05 s left
  // out.
  std::string summary() const;
};

// {"owner", "wall_s", "phases": {phase: seconds}}, as runs.time_accounts keeps it.
nlohmann::json to_json(const TimeAccount& a);

TimeAccount account_of(std::string owner, const PhaseClock<CoordinatorPhase>& clock);
TimeAccount account_of(std::string owner, const PhaseClock<LanePhase>& clock);

}  // namespace mpgemm
