// annealing: simulated annealing over neighbouring configs (SpaceIndex::neighbours: one parameter moved one step
// in its domain; by default also two such steps, option reach). The score is log(ms); a move to a better config
// is always taken, to a worse one with probability exp(-(worse - current) / T); failed configs are never moved
// to. T starts at initial_temperature and is multiplied by cooling after each observation. When the current
// config has no untried admissible neighbour, or no improving move came for `patience` observations, it
// restarts from a random untried config with T reset. Proposals run ahead of observations: up to n untried
// neighbours of the current config at a time.
#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_set>

#include "common/error.hpp"
#include "tune/strategy/detail.hpp"

namespace mpgemm::strategy_detail {

namespace {

class Annealing final : public Strategy {
 public:
  explicit Annealing(const StrategyContext& c)
      : index_(*c.space),
        restart_sampler_(index_.size()),
        rng_(c.seed),
        budget_(c.budget),
        t0_(option_double(c, "annealing", "initial_temperature")),
        cooling_(option_double(c, "annealing", "cooling")),
        patience_(option_size(c, "annealing", "patience")),
        reach_(option_size(c, "annealing", "reach")) {
    if (reach_ != 1 && reach_ != 2) throw UsageError("strategy annealing: reach must be 1 or 2");
    if (!(t0_ > 0)) throw UsageError("strategy annealing: initial_temperature must be > 0");
    if (!(cooling_ > 0 && cooling_ <= 1)) throw UsageError("strategy annealing: cooling must be in (0, 1]");
    if (patience_ == 0) throw UsageError("strategy annealing: patience must be at least 1");
    t_ = t0_;
  }

  std::vector<Params> propose(std::size_t n) override {
    std::vector<Params> out;
    while (out.size() < n && !budget_spent() && !exhausted_) {
      if (!current_) {
        // No current config: start (or restart) from a random one once the previous start came back.
        if (start_in_flight_) break;
        auto i = draw_random();
        if (!i) {
          exhausted_ = true;
          break;
        }
        start_in_flight_ = true;
        start_ = *i;
        push(*i, out);
        continue;
      }
      std::vector<std::uint64_t> free = untried_neighbours(*current_);
      if (free.empty()) {
        if (in_flight_ > 0) break;  // what is in flight may move us on
        restart();
        continue;
      }
      push(free[rng_.below(free.size())], out);
    }
    return out;
  }

  void observe(const Observation& o) override {
    if (in_flight_ > 0) --in_flight_;
    auto i = index_.index_of(o.params);
    if (!i) return;
    const bool ok = o.status == Status::ok && o.ms && *o.ms > 0;
    const double score = ok ? std::log(*o.ms) : 0;
    if (start_in_flight_ && *i == start_) {
      start_in_flight_ = false;
      if (ok) {
        current_ = *i;
        current_score_ = score;
        stale_ = 0;
      }
      return;  // a failed start: the next propose() draws another
    }
    t_ *= cooling_;
    if (!current_) return;
    bool moved = false;
    if (ok) {
      const double delta = score - current_score_;
      if (delta < 0 || rng_.uniform() < std::exp(-delta / t_)) {
        current_ = *i;
        current_score_ = score;
        moved = delta < 0;
      }
    }
    stale_ = moved ? 0 : stale_ + 1;
    if (stale_ >= patience_) restart();
  }

  bool done() const override { return budget_spent() || exhausted_; }

 private:
  bool budget_spent() const { return budget_ && proposed_.size() >= *budget_; }

  void push(std::uint64_t i, std::vector<Params>& out) {
    proposed_.insert(i);
    ++in_flight_;
    out.push_back(index_.decode(i));
  }

  // Untried admissible configs one step away and, with reach 2, two steps away (two parameters one step each,
  // or one parameter two steps): constraints couple parameters (an epilogue and its buffers, a tile and its
  // ring depth), so a single step often leaves the space.
  std::vector<std::uint64_t> untried_neighbours(std::uint64_t from) const {
    std::vector<std::uint64_t> out;
    const std::vector<std::uint64_t> ring = index_.neighbours(from);
    for (std::uint64_t j : ring)
      if (!proposed_.count(j) && index_.admissible(j)) out.push_back(j);
    if (reach_ == 1) return out;
    std::set<std::uint64_t> second;
    for (std::uint64_t j : ring)
      for (std::uint64_t k : index_.neighbours(j))
        if (k != from && !proposed_.count(k) && std::find(ring.begin(), ring.end(), k) == ring.end()) second.insert(k);
    for (std::uint64_t k : second)
      if (index_.admissible(k)) out.push_back(k);
    return out;
  }

  std::optional<std::uint64_t> draw_random() {
    while (auto i = restart_sampler_.next(rng_))
      if (!proposed_.count(*i) && index_.admissible(*i)) return i;
    return std::nullopt;
  }

  void restart() {
    current_.reset();
    t_ = t0_;
    stale_ = 0;
  }

  SpaceIndex index_;
  IndexSampler restart_sampler_;
  Rng rng_;
  std::optional<std::size_t> budget_;
  double t0_, cooling_;
  std::size_t patience_, reach_;
  double t_ = 0;
  std::unordered_set<std::uint64_t> proposed_;
  std::size_t in_flight_ = 0;
  std::optional<std::uint64_t> current_;
  double current_score_ = 0;
  bool start_in_flight_ = false;
  std::uint64_t start_ = 0;
  std::size_t stale_ = 0;  // observations since the last improving move
  bool exhausted_ = false;
};

}  // namespace

StrategyInfo annealing_info() {
  return {"annealing",
          "simulated annealing over neighbouring configs (one parameter moved one step), restarting when stuck",
          {{"initial_temperature", "0.05",
            "T at the start and after each restart, in units of log(ms): a config 5% slower is taken with "
            "probability exp(-0.049 / T)"},
           {"cooling", "0.95", "T is multiplied by this after each observation, in (0, 1]"},
           {"patience", "12", "observations without an improving move before a restart from a random config"},
           {"reach", "2",
            "neighbours are configs 1 parameter step away, or (2) also 2 steps away: constraints often couple "
            "parameters so that no single step stays in the space"}},
          [](const StrategyContext& c) -> std::unique_ptr<Strategy> { return std::make_unique<Annealing>(c); }};
}

}  // namespace mpgemm::strategy_detail
