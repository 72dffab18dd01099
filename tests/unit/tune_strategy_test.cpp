// The search strategies (tune/strategy/strategy.hpp): option validation, the promises every strategy keeps
// (each config at most once, within the budget, satisfying the constraints, the same proposals for the same
// seed), exhaustive's order against build_candidates, and the model finding the optimum of a smooth objective
// sooner than random sampling.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "codegen/family.hpp"
#include "common/error.hpp"
#include "space/enumerate.hpp"
#include "tune/candidates.hpp"
#include "tune/strategy/strategy.hpp"

namespace mpgemm {
namespace {

const std::string kGoodSmall = MPGEMM_SOURCE_DIR "/tests/data/spaces/good_small.json";

StrategyContext context_for(const Space& space, std::uint64_t seed, std::optional<std::size_t> budget = {}) {
  StrategyContext c;
  c.space = &space;
  c.shape = space.shapes.at(0);
  c.seed = seed;
  c.budget = budget;
  return c;
}

// A smooth objective over good_small.json with one optimum (BM=64 BN=64 BK=32 WM=32 WN=32 STAGES=3 cp_async).
double objective_ms(const Params& p) {
  auto l = [&](const char* name, double best) {
    return std::log2(static_cast<double>(get_int(p, name))) - std::log2(best);
  };
  double d = l("BM", 64) * l("BM", 64) + l("BN", 64) * l("BN", 64) + 0.5 * l("BK", 32) * l("BK", 32) +
             0.3 * l("WM", 32) * l("WM", 32) + 0.3 * l("WN", 32) * l("WN", 32) +
             0.2 * std::pow(static_cast<double>(get_int(p, "STAGES")) - 3, 2) +
             (get_string(p, "LOAD") == "cp_async" ? 0 : 0.4);
  return 0.1 * std::exp(0.3 * d);
}

Observation observe_objective(const Params& p) {
  Observation o;
  o.params = p;
  o.status = Status::ok;
  o.ms = objective_ms(p);
  return o;
}

// Runs a strategy to the end, proposing `batch` at a time and observing each batch in reverse order.
std::vector<Params> drive(Strategy& s, std::size_t batch = 1, std::size_t limit = 100000) {
  std::vector<Params> all;
  while (all.size() < limit) {
    auto got = s.propose(batch);
    if (got.empty()) break;
    EXPECT_LE(got.size(), batch);
    for (auto it = got.rbegin(); it != got.rend(); ++it) s.observe(observe_objective(*it));
    all.insert(all.end(), got.begin(), got.end());
  }
  return all;
}

std::vector<std::string> names() {
  std::vector<std::string> out;
  for (const StrategyInfo& s : strategies()) out.push_back(s.name);
  return out;
}

TEST(TuneStrategy, RegistryListsEveryStrategyExhaustiveFirst) {
  EXPECT_EQ(names(), (std::vector<std::string>{"exhaustive", "random", "annealing", "model"}));
  for (const StrategyInfo& s : strategies()) {
    EXPECT_FALSE(s.summary.empty()) << s.name;
    EXPECT_NE(s.make, nullptr) << s.name;
    for (const StrategyOption& o : s.options) EXPECT_FALSE(o.description.empty()) << s.name << " " << o.name;
  }
}

TEST(TuneStrategy, MakeStrategyValidatesNamesAndOptions) {
  Space space = load_space(kGoodSmall);
  auto with = [&](std::map<std::string, std::string> options) {
    StrategyContext c = context_for(space, 1);
    c.options = std::move(options);
    return c;
  };
  try {
    make_strategy("genetic", with({}));
    FAIL() << "an unknown strategy was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("exhaustive, random, annealing, model"), std::string::npos) << e.what();
  }
  try {
    make_strategy("annealing", with({{"temperature", "1"}}));
    FAIL() << "an unknown option was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("initial_temperature"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_strategy("exhaustive", with({{"x", "1"}})), UsageError);
  EXPECT_THROW(make_strategy("annealing", with({{"cooling", "fast"}})), UsageError);
  EXPECT_THROW(make_strategy("annealing", with({{"cooling", "1.5"}})), UsageError);
  EXPECT_THROW(make_strategy("model", with({{"trees", "-3"}})), UsageError);
  EXPECT_THROW(make_strategy("model", with({{"use_prior", "maybe"}})), UsageError);
  EXPECT_THROW(make_strategy("model", with({{"epsilon", "2"}})), UsageError);
  // Every default parses.
  for (const std::string& n : names()) EXPECT_NO_THROW(make_strategy(n, with({}))) << n;
  EXPECT_NO_THROW(make_strategy("model", with({{"epsilon", "0.3"}, {"use_prior", "false"}})));
  StrategyContext no_space;
  EXPECT_THROW(make_strategy("random", no_space), Error);
}

TEST(TuneStrategy, EveryStrategyProposesEachAdmissibleConfigOnceAndStops) {
  Space space = load_space(kGoodSmall);
  std::set<Params> admissible;
  for (const Params& p : enumerate(space).configs) admissible.insert(p);
  for (const std::string& n : names()) {
    for (std::size_t batch : {1, 4}) {
      SCOPED_TRACE(n + " batch " + std::to_string(batch));
      auto s = make_strategy(n, context_for(space, 7));
      auto all = drive(*s, batch);
      EXPECT_TRUE(s->done());
      std::set<Params> distinct(all.begin(), all.end());
      EXPECT_EQ(distinct.size(), all.size()) << "a config was proposed twice";
      for (const Params& p : all) EXPECT_FALSE(failing_constraint(space, p)) << describe_config(space, p);
      // Every admissible config (exhaustive adds the named points).
      std::set<Params> inside;
      for (const Params& p : distinct)
        if (admissible.count(p)) inside.insert(p);
      EXPECT_EQ(inside, admissible);
      EXPECT_EQ(all.size(), admissible.size() + (n == "exhaustive" ? 1 : 0));  // wmma_naive lies outside
    }
  }
}

// A listed space (product up to the model's bound) with more admissible configs than the pool: each proposal scores
// a uniform pool_size of the unproposed ones, so the model still proposes each admissible config once, then stops.
TEST(TuneStrategy, ModelDrawsItsPoolFromTheListedAdmissibleConfigs) {
  Space space = load_space(kGoodSmall);
  const auto admissible = enumerate(space).configs;
  ASSERT_GT(admissible.size(), 3u);
  for (std::size_t batch : {1, 5}) {
    SCOPED_TRACE(batch);
    StrategyContext c = context_for(space, 11);
    c.options = {{"pool_size", "3"}, {"initial", "2"}};
    auto s = make_strategy("model", c);
    const auto all = drive(*s, batch);
    EXPECT_TRUE(s->done());
    EXPECT_EQ(std::set<Params>(all.begin(), all.end()).size(), all.size()) << "a config was proposed twice";
    EXPECT_EQ(all.size(), admissible.size());
    for (const Params& p : all) EXPECT_FALSE(failing_constraint(space, p)) << describe_config(space, p);
  }
}

TEST(TuneStrategy, EveryStrategyRespectsItsBudget) {
  Space space = load_space(kGoodSmall);
  for (const std::string& n : names()) {
    for (std::size_t budget : {0, 1, 17}) {
      SCOPED_TRACE(n + " budget " + std::to_string(budget));
      auto s = make_strategy(n, context_for(space, 3, budget));
      auto all = drive(*s, 5);
      EXPECT_EQ(all.size(), budget);
      EXPECT_TRUE(s->done());
      EXPECT_TRUE(s->propose(3).empty());
    }
  }
}

TEST(TuneStrategy, FailuresAreNeverAProblem) {
  // Every config fails: the strategies still cover the space once and stop.
  Space space = load_space(kGoodSmall);
  for (const std::string& n : names()) {
    SCOPED_TRACE(n);
    auto s = make_strategy(n, context_for(space, 5));
    std::set<Params> seen;
    while (true) {
      auto got = s->propose(2);
      if (got.empty()) break;
      for (const Params& p : got) {
        EXPECT_TRUE(seen.insert(p).second);
        Observation o;
        o.params = p;
        o.status = Status::runtime_fault;
        s->observe(o);
      }
    }
    EXPECT_TRUE(s->done());
    EXPECT_GE(seen.size(), enumerate(space).configs.size());
  }
}

TEST(TuneStrategy, TheSameSeedProposesTheSameConfigs) {
  Space space = load_space(kGoodSmall);
  for (const std::string& n : names()) {
    SCOPED_TRACE(n);
    auto a = make_strategy(n, context_for(space, 42, 60));
    auto b = make_strategy(n, context_for(space, 42, 60));
    auto c = make_strategy(n, context_for(space, 43, 60));
    auto pa = drive(*a), pb = drive(*b), pc = drive(*c);
    EXPECT_EQ(pa, pb);
    if (n != "exhaustive") {
      EXPECT_NE(pa, pc);
    }
  }
}

TEST(TuneStrategy, ExhaustiveOrderIsBuildCandidatesOrder) {
  Space space = load_space(MPGEMM_SOURCE_DIR "/configs/sm86.json");
  std::vector<Params> want;
  for (const Candidate& c : build_candidates(space, family(space.family))) want.push_back(c.params);
  auto s = make_strategy("exhaustive", context_for(space, 1));
  EXPECT_EQ(drive(*s, 3), want);
}

TEST(TuneStrategy, StrategiesSampleAHugeSpaceLazily) {
  // 8^9 > 10^8 configs (widened after loading: the loader refuses products over kMaxSpaceProduct).
  std::string params;
  for (int p = 0; p < 9; ++p)
    params += std::string(p ? ", " : "") + "\"P" + std::to_string(p) + "\": {\"range\": [0, 1]}";
  Space space = parse_space(R"J({"family": "wmma", "shapes": [{"M": 64, "N": 64, "K": 64}], "parameters": {)J" +
                                params + R"J(}, "constraints": ["P0 <= P1"]})J",
                            "huge.json");
  for (Parameter& p : space.parameters) {
    p.domain.clear();
    for (std::int64_t v = 0; v < 8; ++v) p.domain.emplace_back(std::in_place_index<0>, v);
  }
  for (const std::string& n : names()) {
    SCOPED_TRACE(n);
    StrategyContext c = context_for(space, 9, 40);
    if (n == "model") c.options = {{"pool_size", "500"}};
    auto s = make_strategy(n, c);
    std::set<Params> seen;
    while (true) {
      auto got = s->propose(4);
      if (got.empty()) break;
      for (const Params& p : got) {
        EXPECT_TRUE(seen.insert(p).second);
        EXPECT_LE(get_int(p, "P0"), get_int(p, "P1"));
        Observation o;
        o.params = p;
        o.status = Status::ok;
        double sum = 0;
        for (const auto& [k, v] : p) sum += static_cast<double>(std::get<std::int64_t>(v));
        o.ms = 1 + sum;
        s->observe(o);
      }
    }
    EXPECT_EQ(seen.size(), 40u);
  }
}

// Evaluations until the optimum of objective_ms was proposed.
std::size_t evaluations_to_optimum(const Space& space, const std::string& name, std::uint64_t seed) {
  double best = INFINITY;
  for (const Params& p : enumerate(space).configs) best = std::min(best, objective_ms(p));
  auto s = make_strategy(name, context_for(space, seed));
  std::size_t n = 0;
  while (true) {
    auto got = s->propose(1);
    if (got.empty()) return n + 1000;  // never found
    ++n;
    if (objective_ms(got[0]) <= best) return n;
    s->observe(observe_objective(got[0]));
  }
}

// With a prior, the model first measures each other shape's fastest configs (prior_seeds per shape): every shape's
// fastest before any shape's second, the nearest shape first, a config named twice once; then its own picks.
TEST(TuneStrategy, ModelMeasuresThePriorShapesWinnersFirst) {
  Space space = load_space(kGoodSmall);
  const std::vector<Params> configs = enumerate(space).configs;
  ASSERT_GE(configs.size(), 8u);
  const Shape here = space.shapes.at(0);
  const Shape near{here.m, here.n, here.k * 2}, far{here.m * 16, here.n * 16, here.k * 16};
  // At `shape`: `first` at 0.1 ms, `second` at 0.2 ms, every other config at 1 ms.
  const auto prior_at = [&](const Shape& shape, std::size_t first, std::size_t second) {
    std::vector<PriorObservation> out;
    for (std::size_t i = 0; i < configs.size(); ++i) {
      PriorObservation p{shape, observe_objective(configs[i])};
      p.observation.ms = i == first ? 0.1 : i == second ? 0.2 : 1.0;
      out.push_back(p);
    }
    return out;
  };
  StrategyContext c = context_for(space, 1);
  c.prior = prior_at(far, 7, 3);  // listed first, but farther
  for (auto& p : prior_at(near, 3, 5)) c.prior.push_back(p);
  const auto first = [&](std::map<std::string, std::string> options, std::size_t n) {
    StrategyContext with = c;
    with.options = std::move(options);
    auto s = make_strategy("model", with);
    return s->propose(n);
  };
  // Learning nothing from the prior's times (weight 0), the model would start with random picks: what comes first
  // is the seeds. The near shape's fastest (3), the far one's (7), the near one's second (5); the far one's second
  // is 3 again.
  const std::map<std::string, std::string> unweighted{{"prior_weight", "0"}};
  EXPECT_EQ(first(unweighted, 3), (std::vector<Params>{configs[3], configs[7], configs[5]}));
  EXPECT_EQ(first({{"prior_weight", "0"}, {"prior_seeds", "1"}}, 2), (std::vector<Params>{configs[3], configs[7]}));
  EXPECT_NE(first({{"prior_weight", "0"}, {"prior_seeds", "0"}}, 1), (std::vector<Params>{configs[3]}));
  EXPECT_NE(first({{"use_prior", "false"}}, 1), (std::vector<Params>{configs[3]}));
  // With the prior's times learnt too, the seeds still come first.
  EXPECT_EQ(first({}, 3), (std::vector<Params>{configs[3], configs[7], configs[5]}));
  c.budget = 2;
  EXPECT_EQ(first(unweighted, 5), (std::vector<Params>{configs[3], configs[7]}))
      << "the seeds count against the budget";
}

TEST(TuneStrategy, ModelFindsTheOptimumOfASmoothObjectiveSoonerThanRandom) {
  Space space = load_space(kGoodSmall);
  std::vector<std::size_t> model, random;
  for (std::uint64_t seed = 1; seed <= 15; ++seed) {
    model.push_back(evaluations_to_optimum(space, "model", seed));
    random.push_back(evaluations_to_optimum(space, "random", seed));
  }
  std::sort(model.begin(), model.end());
  std::sort(random.begin(), random.end());
  EXPECT_LT(model[7] * 2, random[7]) << "median evaluations: model " << model[7] << ", random " << random[7];
}

}  // namespace
}  // namespace mpgemm
