#pragma once
// Replaying search strategies against an exhaustive recording: how many measurements each strategy needs to
// come within a few percent of the best config, over many seeds. The oracle is the database itself: a proposed
// config's outcome on a shape is the latest measurement recorded for it there (as the replay backend answers),
// and a config of the space with no recording counts as failed. mpgemm-strategies prints the result.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report/table.hpp"
#include "space/space.hpp"
#include "store/store.hpp"
#include "tune/strategy/strategy.hpp"

namespace mpgemm {

// One recorded outcome: a config on a shape (ptxas's resources when its compilation was recorded).
struct Recording {
  Shape shape;
  Observation observation;
  std::string device_name;  // the device it was measured on
};

// Every measurement of `family` for problems of `kind` (another kind's outcomes at the same shape are another
// problem's) in the database at `db`, oldest first. A database of an older schema is migrated in memory (the file
// itself is never written; its rows are the default kind). Throws StoreError / mpgemm::Error.
std::vector<Recording> load_recordings(const std::filesystem::path& db, const std::string& family,
                                       const ProblemKind& kind = {});
// The same from an open store.
std::vector<Recording> load_recordings(const Store& store, const std::string& family, const ProblemKind& kind = {});

// The recordings of one device, so the oracle and the prior never mix cards (a merged database of two hosts):
// `device`'s, or with none the database's only device. Throws UsageError when `device` has no recording, or when
// none is named and the recordings come from several devices.
std::vector<Recording> recordings_of_device(std::vector<Recording> recordings,
                                            const std::optional<std::string>& device);

struct EvaluationSettings {
  std::vector<std::string> strategies;                  // names; empty: every strategy
  std::size_t seeds = 20;                               // seeds 1..seeds
  std::optional<std::size_t> budget;                    // proposals per replay; nullopt: every config of the space
  std::vector<Shape> shapes;                            // empty: every shape of the space that has recordings
  std::vector<double> tolerances = {0.05, 0.02, 0.01};  // within (1 + t) x the optimum's time
  std::map<std::string, std::map<std::string, std::string>> options;  // per strategy: option -> value
  bool prior = true;  // give each replay the recordings of the other shapes as StrategyContext::prior
};

struct StrategyEvaluation {
  std::string strategy;
  Shape shape;
  std::size_t configs = 0;           // configs of the space's domains that pass its constraints (the named
                                     // points among them included): what every strategy can propose
  std::size_t failed = 0;            // of those, recorded with a status other than ok
  std::size_t unrecorded = 0;        // of those, with no recording on this shape (replayed as failed)
  std::optional<double> optimum_ms;  // the fastest recorded; none when nothing succeeded
  std::string optimum;               // its parameters
  // Named points outside the domains: only exhaustive proposes them, so they are left out of the optimum every
  // strategy is measured against; the fastest of them when it beats that optimum (the CLI says so).
  std::size_t points_outside = 0;
  std::optional<double> faster_point_ms;
  std::string faster_point;  // its name
  std::size_t budget = 0;
  // Per tolerance (EvaluationSettings::tolerances order), per seed: the number of proposals measured when one
  // first came within the tolerance; nullopt when none did within the budget.
  std::vector<std::vector<std::optional<std::size_t>>> evaluations;
};

// Throws UsageError for an unknown strategy or option, or options for a strategy that is not replayed, mpgemm::Error
// when a strategy proposes a config twice, beyond its budget or outside the constraints (a bug in the strategy).
std::vector<StrategyEvaluation> evaluate_strategies(const Space& space, const std::vector<Recording>& recordings,
                                                    const EvaluationSettings& settings);

// One row per strategy and shape: the optimum, and per tolerance the median and p90 number of evaluations
// (over seeds; a seed that never got there counts as infinitely many, so the cell is empty when over half,
// or a tenth, of the seeds missed) and the share of seeds that got there within the budget.
report::Table evaluation_table(const std::vector<StrategyEvaluation>& results, const std::vector<double>& tolerances);

}  // namespace mpgemm
