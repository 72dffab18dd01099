// model: a surrogate picks what to measure. Gradient-boosted regression trees (boosted_trees.hpp) learn
// log(ms / flop) from what was measured: features are each parameter's value (integers as they are, strings
// as their position in the domain), the space's derived values (shared memory bytes, threads, ...) and the
// shape (log2 M, N, K), so measurements of the same family at other shapes (StrategyContext::prior) carry
// over. A failed config is learnt as slower than the slowest success (fail_penalty), so the model steers
// away from it. Each proposal scores a pool of unproposed configs (of a product up to kListAdmissibleUpTo, its
// admissible configs, listed once: all of them, or a uniform pool_size; of a larger one, pool_size uniform draws
// decoded lazily) and takes the best predicted; the first `initial` proposals
// (`prior_initial` when there is a prior) and a share `epsilon` of the rest are uniform random picks instead.
// With a prior, the `prior_seeds` fastest configs of each other shape are proposed before anything else
// (prior_winners).
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

#include "common/error.hpp"
#include "space/enumerate.hpp"
#include "tune/strategy/boosted_trees.hpp"
#include "tune/strategy/detail.hpp"

namespace mpgemm::strategy_detail {

namespace {

constexpr const char* kName = "model";
// A product of at most this many configs has its admissible ones listed once per shape (one constraint check
// each: ~30 ms for the 27,648 of configs/sm90a_bench.json, several seconds on a 2-core machine for the 2.2 million of
// configs/sm90a_suite.json), and each proposal scores every unproposed one (or a uniform pool_size of them). A
// larger product is sampled with rejection. Listing is the default because rejection sampling a sparse space costs
// many constraint checks per admissible config (tens of thousands per proposal at the bench space's 4% density, slow
// enough to leave the GPU waiting) and yields a small pool at a very sparse one (the suite space's 0.07%), which
// points the model less well (docs/findings.md, "A new shape on a warm database is the model strategy's job").
constexpr std::uint64_t kListAdmissibleUpTo = std::uint64_t{1} << 22;

struct Row {
  std::vector<double> features;
  double target = 0;  // log(ms / flop); filled for failures once the slowest success is known
  bool ok = false;
  double weight = 1;
};

class Model final : public Strategy {
 public:
  explicit Model(const StrategyContext& c)
      : space_(*c.space),
        shape_(c.shape),
        index_(space_),
        sampler_(index_.size()),
        rng_(c.seed),
        budget_(c.budget),
        initial_(option_size(c, kName, "initial")),
        prior_initial_(option_size(c, kName, "prior_initial")),
        epsilon_(option_double(c, kName, "epsilon")),
        pool_size_(option_size(c, kName, "pool_size")),
        fail_penalty_(option_double(c, kName, "fail_penalty")),
        prior_weight_(option_double(c, kName, "prior_weight")),
        use_prior_(option_bool(c, kName, "use_prior")),
        resources_(option_bool(c, kName, "resources")) {
    const std::size_t seeds_per_shape = option_size(c, kName, "prior_seeds");
    settings_.trees = option_size(c, kName, "trees");
    settings_.depth = option_size(c, kName, "depth");
    settings_.learning_rate = option_double(c, kName, "learning_rate");
    if (!(epsilon_ >= 0 && epsilon_ <= 1)) throw UsageError("strategy model: epsilon must be in [0, 1]");
    if (pool_size_ == 0) throw UsageError("strategy model: pool_size must be at least 1");
    if (!(settings_.learning_rate > 0 && settings_.learning_rate <= 1))
      throw UsageError("strategy model: learning_rate must be in (0, 1]");
    if (!(prior_weight_ >= 0)) throw UsageError("strategy model: prior_weight must be >= 0");
    if (use_prior_ && prior_weight_ > 0) {
      for (const PriorObservation& p : c.prior) learn_resources(p.observation);
      for (const PriorObservation& p : c.prior) {
        if (p.shape == shape_) continue;
        if (auto row = make_row(p.observation, p.shape)) {
          row->weight = prior_weight_;
          prior_.push_back(std::move(*row));
        }
      }
    }
    if (use_prior_) seeds_ = prior_winners(c.prior, seeds_per_shape);
  }

  std::vector<Params> propose(std::size_t n) override {
    std::vector<Params> out;
    while (out.size() < n && !budget_spent() && next_seed_ < seeds_.size()) {
      // Distinct (prior_winners) and proposed before anything else, so each is new.
      const std::uint64_t seed = seeds_[next_seed_++];
      proposed_.insert(seed);
      out.push_back(index_.decode(seed));
    }
    while (out.size() < n && !budget_spent() && !exhausted_) {
      const std::size_t random_first = prior_.empty() ? initial_ : prior_initial_;
      // The random start counts the model's own proposals, not the seeds.
      const bool explore =
          proposed_.size() - next_seed_ < random_first || rng_.uniform() < epsilon_ || !has_training_data();
      // Every config of a listed space proposed: done, without a random walk over the whole product.
      if (admissible_ && proposed_.size() >= admissible_->size()) {
        exhausted_ = true;
        break;
      }
      std::optional<std::uint64_t> pick;
      if (!explore) pick = best_predicted();
      if (!pick) pick = draw_random();
      if (!pick) {
        exhausted_ = true;
        break;
      }
      proposed_.insert(*pick);
      out.push_back(index_.decode(*pick));
    }
    return out;
  }

  void observe(const Observation& o) override {
    learn_resources(o);
    if (auto row = make_row(o, shape_)) {
      own_.push_back(std::move(*row));
      stale_ = true;
    }
  }

  bool done() const override { return budget_spent() || exhausted_; }

 private:
  bool budget_spent() const { return budget_ && proposed_.size() >= *budget_; }

  // The `per_shape` fastest configs of each other shape of the prior that are admissible here, as indexes: every
  // shape's fastest first (shapes nearest this one first, by the distance of their log2 sides), then every shape's
  // second, and so on; each config once. A surrogate fitted mostly to other shapes predicts this shape by their
  // structure (at 8192x2048x4096 a prior of three cubes kept 55 of 58 proposals on the 128 x 256 tiles that win
  // the large cubes, while the 128 x 128 pingpong tiles that win 2048^3 won there): measuring each shape's
  // winners first shows the model where, at this shape, those structures stand.
  std::vector<std::uint64_t> prior_winners(const std::vector<PriorObservation>& prior, std::size_t per_shape) const {
    std::map<std::array<std::int64_t, 3>, std::vector<std::pair<double, const Params*>>> by_shape;
    for (const PriorObservation& p : prior)
      if (p.shape != shape_ && p.observation.status == Status::ok && p.observation.ms)
        by_shape[{p.shape.m, p.shape.n, p.shape.k}].emplace_back(*p.observation.ms, &p.observation.params);
    const auto distance = [&](const std::array<std::int64_t, 3>& s) {
      const std::array<std::int64_t, 3> here{shape_.m, shape_.n, shape_.k};
      double d = 0;
      for (std::size_t i = 0; i < 3; ++i)
        d += std::abs(std::log2(static_cast<double>(s[i])) - std::log2(static_cast<double>(here[i])));
      return d;
    };
    std::vector<std::pair<double, std::vector<std::pair<double, const Params*>>*>> shapes;
    for (auto& [shape, rows] : by_shape) {
      std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      shapes.emplace_back(distance(shape), &rows);
    }
    std::stable_sort(shapes.begin(), shapes.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::vector<std::uint64_t>> lists;  // per shape: its distinct admissible configs, fastest first
    for (auto& [d, rows] : shapes) {
      std::vector<std::uint64_t> list;
      std::unordered_set<std::uint64_t> listed;
      for (const auto& [ms, params] : *rows) {
        if (list.size() >= per_shape) break;
        const auto i = index_.index_of(*params);
        if (i && index_.admissible(*i) && listed.insert(*i).second) list.push_back(*i);
      }
      lists.push_back(std::move(list));
    }
    std::vector<std::uint64_t> out;
    std::unordered_set<std::uint64_t> taken;
    for (std::size_t rank = 0; rank < per_shape; ++rank)
      for (const auto& list : lists)
        if (rank < list.size() && taken.insert(list[rank]).second) out.push_back(list[rank]);
    return out;
  }

  bool has_training_data() const {
    auto any_ok = [](const std::vector<Row>& rows) {
      return std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.ok; });
    };
    return any_ok(own_) || any_ok(prior_);
  }

  // ptxas's report depends on the config, not the shape: one seen at any shape serves every shape.
  void learn_resources(const Observation& o) {
    if (resources_ && o.registers >= 0) known_resources_[o.params] = {o.registers, o.shared_bytes, o.spill_bytes};
  }

  // Parameters (integers as they are, strings as domain positions), derived values, log2 of the shape, and
  // with `resources` ptxas's registers, shared memory and spills where a compilation of the config was seen
  // (-1 elsewhere).
  std::optional<std::vector<double>> features(const Params& params, const Shape& shape) const {
    std::vector<Value> env;
    try {
      env = make_environment(space_, params);
    } catch (const Error&) {
      return std::nullopt;  // a prior config of another space of the family, without this space's parameters
    }
    std::vector<double> f;
    f.reserve(space_.parameters.size() + space_.derived.size() + 3);
    for (std::size_t p = 0; p < space_.parameters.size(); ++p) {
      if (const auto* i = std::get_if<std::int64_t>(&env[p])) {
        f.push_back(static_cast<double>(*i));
      } else {
        const auto& domain = space_.parameters[p].domain;
        auto it = std::find(domain.begin(), domain.end(), env[p]);
        f.push_back(it == domain.end() ? -1.0 : static_cast<double>(it - domain.begin()));
      }
    }
    const std::size_t base = space_.parameters.size() + space_.constants.size();
    for (std::size_t d = 0; d < space_.derived.size(); ++d)
      f.push_back(static_cast<double>(std::get<std::int64_t>(env[base + d])));
    f.push_back(std::log2(static_cast<double>(shape.m)));
    f.push_back(std::log2(static_cast<double>(shape.n)));
    f.push_back(std::log2(static_cast<double>(shape.k)));
    if (resources_) {
      auto it = known_resources_.find(params);
      for (std::size_t r = 0; r < 3; ++r)
        f.push_back(it == known_resources_.end() ? -1.0 : static_cast<double>(it->second[r]));
    }
    return f;
  }

  std::optional<Row> make_row(const Observation& o, const Shape& shape) const {
    auto f = features(o.params, shape);
    if (!f) return std::nullopt;
    Row r;
    r.features = std::move(*f);
    r.ok = o.status == Status::ok && o.ms && *o.ms > 0;
    if (r.ok) r.target = std::log(*o.ms / shape.flops());
    return r;
  }

  void refit() {
    if (!stale_ && trees_.fitted()) return;
    std::vector<std::vector<double>> x;
    std::vector<double> y, w;
    double worst = -1e300;
    for (const auto* rows : {&prior_, &own_})
      for (const Row& r : *rows)
        if (r.ok) worst = std::max(worst, r.target);
    for (const auto* rows : {&prior_, &own_}) {
      for (const Row& r : *rows) {
        x.push_back(r.features);
        y.push_back(r.ok ? r.target : worst + fail_penalty_);
        w.push_back(r.weight);
      }
    }
    trees_.fit(x, y, w, settings_);
    stale_ = false;
  }

  // The unproposed config with the lowest predicted time.
  std::optional<std::uint64_t> best_predicted() {
    refit();
    std::vector<std::uint64_t> pool;
    if (index_.size() <= kListAdmissibleUpTo) {
      if (!admissible_) {
        admissible_.emplace();
        for (std::uint64_t i = 0; i < index_.size(); ++i)
          if (index_.admissible(i)) admissible_->push_back(i);
      }
      for (std::uint64_t i : *admissible_)
        if (!proposed_.count(i)) pool.push_back(i);
      // More than a pool: a uniform pick of pool_size of them, without replacement (a partial shuffle).
      if (pool.size() > pool_size_) {
        for (std::size_t k = 0; k < pool_size_; ++k)
          std::swap(pool[k], pool[k + static_cast<std::size_t>(rng_.below(pool.size() - k))]);
        pool.resize(pool_size_);
      }
    } else {
      // Uniform draws with replacement; a few rejections per admissible config is the space's density.
      std::unordered_set<std::uint64_t> seen;
      for (std::size_t tries = 0; pool.size() < pool_size_ && tries < 20 * pool_size_; ++tries) {
        const std::uint64_t i = rng_.below(index_.size());
        if (proposed_.count(i) || !seen.insert(i).second || !index_.admissible(i)) continue;
        pool.push_back(i);
      }
    }
    std::optional<std::uint64_t> best;
    double best_score = 0;
    for (std::uint64_t i : pool) {
      const std::vector<double>* f = pool_features(i);
      if (!f) continue;
      const double score = trees_.predict(*f);
      if (!best || score < best_score) {
        best = i;
        best_score = score;
      }
    }
    return best;
  }

  // The features of the config at `index` on this shape, kept when the space is scored whole (the same pool at
  // every proposal). Not kept when ptxas's resources are features (they become known as outcomes arrive), nor
  // for a pool drawn from more configs (the cache would grow with every draw).
  const std::vector<double>* pool_features(std::uint64_t index) {
    if (auto it = feature_cache_.find(index); it != feature_cache_.end()) return it->second ? &*it->second : nullptr;
    auto f = features(index_.decode(index), shape_);
    if (resources_ || !admissible_ || admissible_->size() > pool_size_) {
      scratch_features_ = std::move(f);
      return scratch_features_ ? &*scratch_features_ : nullptr;
    }
    auto& cached = feature_cache_[index] = std::move(f);
    return cached ? &*cached : nullptr;
  }

  std::optional<std::uint64_t> draw_random() {
    while (auto i = sampler_.next(rng_))
      if (!proposed_.count(*i) && index_.admissible(*i)) return i;
    return std::nullopt;
  }

  const Space& space_;
  Shape shape_;
  SpaceIndex index_;
  IndexSampler sampler_;
  Rng rng_;
  std::optional<std::size_t> budget_;
  std::size_t initial_, prior_initial_;
  double epsilon_;
  std::size_t pool_size_;
  double fail_penalty_, prior_weight_;
  bool use_prior_, resources_;
  std::map<Params, std::array<int, 3>> known_resources_;  // registers, shared bytes, spill bytes
  gbt::TreeSettings settings_;
  gbt::BoostedTrees trees_;
  bool stale_ = true;
  std::vector<Row> prior_, own_;
  std::vector<std::uint64_t> seeds_;  // the prior's winners, proposed first (prior_winners)
  std::size_t next_seed_ = 0;         // seeds proposed so far
  std::unordered_set<std::uint64_t> proposed_;
  std::optional<std::vector<std::uint64_t>> admissible_;  // every admissible index, for a listed space
  std::unordered_map<std::uint64_t, std::optional<std::vector<double>>> feature_cache_;
  std::optional<std::vector<double>> scratch_features_;
  bool exhausted_ = false;
};

}  // namespace

StrategyInfo model_info() {
  return {
      kName,
      "a surrogate (gradient-boosted trees over parameters, derived values and shape) picks the config "
      "predicted fastest; learns from the run and from the family's measurements at other shapes",
      {{"initial", "6", "uniform random configs measured before the model is trusted (no prior)"},
       {"prior_initial", "0",
        "the same when there are prior measurements at other shapes, after the seeds (0: the first pick after them "
        "is the prior's best predicted)"},
       {"prior_seeds", "2",
        "the fastest configs of each other shape of the prior proposed first, this many per shape (0: none)"},
       {"epsilon", "0.1", "share of later proposals that are uniform random picks (exploration)"},
       {"pool_size", "4000",
        "unproposed configs scored per proposal; a listed space (product up to 2^22) with at most this many "
        "admissible configs is scored whole"},
       {"trees", "60", "boosting rounds"},
       {"depth", "3", "splits per tree, root to leaf"},
       {"learning_rate", "0.15", "shrinkage of each tree, in (0, 1]"},
       {"fail_penalty", "0.7", "a failed config is learnt as this much slower than the slowest success, in log(ms)"},
       {"use_prior", "true", "learn from measurements of the family at other shapes (StrategyContext::prior)"},
       {"prior_weight", "1", "weight of each prior measurement relative to one of this run"},
       {"resources", "false",
        "also learn from ptxas's registers, shared memory and spills, where a compilation of the config was "
        "observed (at any shape); unknown for configs never compiled, which is most of a pool"}},
      [](const StrategyContext& c) -> std::unique_ptr<Strategy> { return std::make_unique<Model>(c); },
      true};
}

}  // namespace mpgemm::strategy_detail
