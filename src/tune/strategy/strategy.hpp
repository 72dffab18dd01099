#pragma once
// Search strategies: which configs of a space a run measures, and in what order. A strategy proposes configs
// (Params), the run compiles and measures them on one shape, and tells the strategy what came out. One strategy
// instance serves one shape; the run keeps one per shape and shares compilations between them.
//
//   exhaustive -> every config of the space (named points first, then enumeration order), the default
//   random     -> uniform samples without replacement, decoded lazily from indexes (space/space_index.hpp)
//   annealing  -> simulated annealing over neighbouring configs (one parameter moved one step)
//   model      -> a surrogate (gradient-boosted trees over parameters and ptxas resources) picks what to try
//
// Each strategy lives in its own file and declares its options as data (StrategyInfo::options), so `--help`,
// validation and the docs come from one place.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/params.hpp"
#include "common/types.hpp"
#include "space/enumerate.hpp"
#include "space/space.hpp"

namespace mpgemm {

// What one proposed config came to on the strategy's shape.
struct Observation {
  Params params;
  Status status = Status::ok;  // ok: verified and timed; anything else counts as a failure
  std::optional<double> ms;    // median time per launch (ms) when status is ok; lower is better
  // ptxas's report of the compilation when there was one (features for a surrogate); -1 when unknown.
  int registers = -1;
  int shared_bytes = -1;  // static + dynamic shared memory per block (bytes)
  int spill_bytes = -1;   // spill stores + spill loads (bytes)
};

// An observation made earlier, on another shape of the same family (a surrogate may start from these).
struct PriorObservation {
  Shape shape;
  Observation observation;
};

// One option a strategy accepts as `--strategy-option name=value`.
struct StrategyOption {
  std::string name;           // e.g. "initial_temperature"
  std::string default_value;  // as text, e.g. "0.1"
  std::string description;    // for --help and mpgemm-strategies list
};

struct StrategyContext {
  const Space* space = nullptr;                // outlives the strategy
  Shape shape;                                 // the shape this instance serves
  std::uint64_t seed = 0;                      // every random choice comes from this
  std::optional<std::size_t> budget;           // the most configs it may propose; nullopt: no limit
  std::map<std::string, std::string> options;  // validated against StrategyInfo::options, defaults filled in
  std::vector<PriorObservation> prior;         // earlier measurements of the family on other shapes
  // The space's admissible configs, walked once for a run's shapes (space/enumerate.hpp); null: the strategy walks
  // the space on its own.
  std::shared_ptr<AdmissibleIndexes> admissible;
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  // Up to `n` configs not proposed before by this instance, each satisfying the space's constraints. Fewer
  // than `n` (even none) while it waits for observations of configs in flight; none and done() when finished.
  virtual std::vector<Params> propose(std::size_t n) = 0;
  // The outcome of a config this instance proposed, in any order.
  virtual void observe(const Observation& observation) = 0;
  // No further proposals will come (space or budget exhausted, or the strategy has converged).
  virtual bool done() const = 0;
};

struct StrategyInfo {
  std::string name;     // "exhaustive", "random", "annealing", "model"
  std::string summary;  // one line for --help
  std::vector<StrategyOption> options;
  std::unique_ptr<Strategy> (*make)(const StrategyContext& context) = nullptr;
  bool learns_from_prior = false;  // reads StrategyContext::prior: the tuner loads it (the others skip the query)
};

// Every strategy, "exhaustive" first.
const std::vector<StrategyInfo>& strategies();
// The named one; throws UsageError listing the strategies.
const StrategyInfo& strategy_info(std::string_view name);

// The named strategy with `context`; its options checked (unknown names, unparsable values) and defaults
// filled in. Throws UsageError naming the strategy or option and what is accepted.
std::unique_ptr<Strategy> make_strategy(std::string_view name, StrategyContext context);

}  // namespace mpgemm
