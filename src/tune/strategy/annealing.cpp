// annealing: simulated annealing over neighbouring configs (SpaceIndex::neighbours: one parameter moved one step
// in its domain). The score is log(ms); a move to a better config is always taken, to a worse one with
// probability exp(-(worse - current) / T); failed configs are never moved to. T starts at initial_temperature
// and is multiplied by cooling after each observation. When the current config has no unproposed admissible
// neighbour, or no move was taken for `patience` observations, it restarts from a random unproposed config with
// T reset. Proposals run ahead of observations: up to n untried neighbours of the current config at a time.
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
        patience_(option_size(c, "annealing", "patience")) {
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
      std::vector<std::uint64_t> free;
      for (std::uint64_t j : index_.neighbours(*current_))
        if (!proposed_.count(j) && index_.admissible(j)) free.push_back(j);
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
  std::size_t patience_;
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
           {"patience", "12", "observations without an improving move before a restart from a random config"}},
          [](const StrategyContext& c) -> std::unique_ptr<Strategy> { return std::make_unique<Annealing>(c); }};
}

}  // namespace mpgemm::strategy_detail
