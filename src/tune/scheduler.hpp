#pragma once
// The coordinator of a run, on the calling thread: it asks each shape's strategy for configs, plans them,
// sends what needs compiling to the compile service, puts what is compiled on the ready queue for the
// measuring lanes (one per backend), records every outcome through the recorder as it comes back and tells
// the strategy. Compiling overlaps measuring: the compile service runs ahead of the lanes by a window of
// configs, so a lane waits for a compile only when nothing compiled is left.
//
// Shapes are searched one after another (shape i + 1's strategy starts proposing once shape i's has finished),
// so a lane seldom changes the shape its device has prepared; cubins are shared between shapes.
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compile/compile_pool.hpp"
#include "tune/backend.hpp"
#include "tune/plan.hpp"
#include "tune/prune.hpp"
#include "tune/recorder.hpp"
#include "tune/shard.hpp"
#include "tune/strategy/strategy.hpp"
#include "tune/time_account.hpp"

namespace mpgemm {

struct SchedulerSettings {
  std::vector<Shape> shapes;
  std::vector<MeasureBackend*> backends;  // none: compile only
  bool replay = false;                    // backends take outcomes from a recording: nothing is compiled
  MeasureSettings measure;
  double max_spread = 0.10;
  PruneRules prune;
  CompilePoolOptions compile;  // threads, cache
  std::filesystem::path db;
  std::string strategy = "exhaustive";
  std::map<std::string, std::string> strategy_options;
  std::uint64_t seed = 0;
  std::optional<std::size_t> budget;                // configs per shape
  std::optional<std::chrono::seconds> time_budget;  // whole run; shared out between the shapes in turn
  std::function<bool()> stop_requested = [] { return false; };
  // --only / --leaders-from: a proposal it refuses is not planned; its strategy sees it as constraint_rejected. Empty:
  // all.
  std::function<bool(const Candidate&)> selected;
  // The space's admissible configs as the run's input enumerated them (TuneInput::admissible); empty: the
  // strategies walk the space themselves, once for every shape.
  std::vector<std::uint64_t> admissible;
  // --shard: only this shard's pairs are planned (tune/shard.hpp); the others are counted, not measured.
  std::optional<Shard> shard;
};

struct SchedulerReport {
  std::size_t proposed = 0;          // (config, shape) pairs the strategies proposed (and --only kept)
  std::size_t other_shards = 0;      // of those, pairs left to the other shards
  std::size_t measured_before = 0;   // of those, already in the database
  std::size_t compiled_now = 0;      // NVRTC runs of this run
  std::size_t cubins_cached = 0;     // compilations taken from the cubin cache
  std::size_t not_in_recording = 0;  // replay: pairs the recording has no outcome for
  std::map<PruneReason, std::size_t> pruned;
  std::string first_prune_message;
  std::vector<double> lane_busy_s;  // per backend: seconds spent preparing shapes and measuring
  TimeAccount coordinator;          // where the coordinator thread's time went (tune/time_account.hpp)
  std::vector<TimeAccount> lanes;   // and each measuring lane's
  double measure_wall_s = 0;        // from the first proposal to the last outcome
  bool stopped = false;             // a stop was requested, or the time budget ran out
};

struct SchedulerObserver {
  std::function<void(std::size_t done, std::size_t total, const std::string& current)> progress = [](auto, auto,
                                                                                                     auto&&) {};
  std::function<void(const std::string& line)> note = [](auto&&) {};
};

// Throws what the strategies, the plan and the compile machinery throw (SpaceError, UsageError, NvrtcError),
// and what a lane's backend threw (the worker cannot be started again, ...); everything recorded until then
// stays recorded.
// What the run has opened for the scheduler; all outlive run_schedule.
struct RunContext {
  Plan& plan;
  Recorder& recorder;  // the only writer
  const Store& store;  // lookups: what the database already holds
  const Space& space;
  const Family& family;
  DeviceDescription plan_device;  // what the family is asked about (compile-only: the target arch)
};

SchedulerReport run_schedule(const RunContext& run, const SchedulerSettings& settings,
                             const SchedulerObserver& observer);

}  // namespace mpgemm
