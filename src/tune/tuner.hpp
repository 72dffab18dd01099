#pragma once
// One tuning run: space -> strategy -> plan -> compile service -> ready queue -> measuring lanes -> recorder,
// inside a run scope (tune/scheduler.hpp has the pipeline). Every outcome is recorded as soon as it is known, in
// its own short transaction, so a killed run loses at most what was in flight, and a restart with the same
// command measures only what is missing.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/types.hpp"
#include "report/table.hpp"
#include "store/records.hpp"
#include "tune/backend.hpp"
#include "tune/gpu_backend.hpp"
#include "tune/prune.hpp"
#include "tune/rerank.hpp"
#include "tune/shard.hpp"
#include "tune/time_account.hpp"

namespace mpgemm {

// The order a run measures its shapes in. `costliest`: most FLOPs first (ties in file order), so that on a cold run
// the long measurements of the largest shape hide the compilations, the smaller shapes then find every cubin
// compiled, and the coordinator's compile threads never compete with the launches of microsecond kernels.
// `file`: as the space or --shapes lists them. Results and summaries do not depend on it.
enum class ShapeOrder { costliest, file };
std::optional<ShapeOrder> shape_order_from_string(std::string_view text);
std::vector<Shape> measuring_order(std::vector<Shape> shapes, ShapeOrder order);

struct TuneOptions {
  std::filesystem::path space_path;
  std::filesystem::path db_path = "results/results.db";
  std::optional<Arch> arch;                        // compile target; default: the device's, else the space's "arch"
  bool compile_only = false;                       // compile and record resources; no GPU needed
  std::vector<Shape> shapes;                       // --shapes: replace the space's shapes (empty: keep them)
  ShapeOrder shape_order = ShapeOrder::costliest;  // the order the shapes are measured in
  std::optional<std::int64_t> m, n, k;             // override every shape (each independently), after `shapes`
  int compile_threads = 0;                         // 0: one per hardware thread
  MeasureSettings settings;
  double max_spread = 0.10;                        // (max - min) / median of a timing above which it is re-measured
  std::optional<std::filesystem::path> replay_db;  // take outcomes from this database instead of a GPU
  int replay_delay_ms = 0;        // testing aid: replay waits this long per candidate, as a GPU would (ms)
  std::vector<std::string> only;  // restrict to the configs these select (tune/only.hpp)
  // --leaders-from: restrict (also) to the configs that led at the shapes of this database (Store::leaders).
  std::optional<std::filesystem::path> leaders_from;
  LeaderRule leader_rule;
  // --leaders-kind: the problem kind whose leaders --leaders-from takes; none: the run's own (settings.kind). A
  // database without leaders of that kind is refused, never answered with another kind's.
  std::optional<ProblemKind> leaders_kind;
  std::vector<std::string> argv;                     // recorded with the run
  std::optional<std::filesystem::path> worker_path;  // mpgemm-worker to start (default: next to this binary)
  // Compilations kept between runs (compile/cubin_cache.hpp); default CubinCache::beside(db_path),
  // "<db>.cubins".
  std::optional<std::filesystem::path> cubin_cache;
  // Search (tune/strategy/strategy.hpp): which configs each shape measures.
  std::string strategy = "exhaustive";
  std::map<std::string, std::string> strategy_options;  // --strategy-option name=value
  std::uint64_t seed = 0;
  std::optional<std::size_t> budget;                // configs per shape
  std::optional<std::chrono::seconds> time_budget;  // the whole run, shared out between the shapes in turn
  PruneRules prune;                                 // what is not worth timing
  // The top-K re-rank at the end of the run (tune/rerank.hpp): per shape, the K fastest re-timed side by side
  // with cuBLAS and the winner chosen by a fixed rule. top_k 0 turns it off.
  RerankOptions rerank;
  // Scale-out (issue 10): the GPUs of this host to measure on, one worker and one measuring lane each, fed by
  // the one compile service; and the shard of the (config, shape) pairs this run takes (tune/shard.hpp).
  GpuSelection gpus;
  bool gpus_named = false;  // --gpus was given: no usable GPU is then an error, not a compile-only pass
  std::optional<Shard> shard;
};

// How the run reports what it is doing; the CLI draws progress bars from these.
struct TuneObserver {
  std::function<void(const std::string& phase, std::size_t total)> phase_started = [](auto&&, auto) {};
  std::function<void(std::size_t done, const std::string& current)> progress = [](auto, auto&&) {};
  std::function<void()> phase_finished = [] {};
  std::function<void(const std::string& line)> note = [](auto&&) {};  // one-line announcements
};

struct TuneSummary {
  std::int64_t run_id = 0;
  std::string mode;  // "compile-only", "gpu" or "replay"
  Arch arch;
  std::size_t candidates = 0;
  std::size_t compiled_ok = 0;  // compilations recorded ok in this run or earlier ones
  std::size_t compile_failed = 0;
  std::size_t compiled_now = 0;     // compilations NVRTC did in this run
  std::size_t cubins_cached = 0;    // compilations this run needed and took from the cubin cache instead
  std::size_t perf_warned = 0;      // of compiled_ok: those with ptxas performance warnings (wgmma serialized, ...)
  std::size_t measured_now = 0;     // measurements recorded by this run
  std::size_t measured_before = 0;  // measurements skipped because the database already had them
  std::vector<std::pair<Status, std::size_t>> statuses;  // measurement statuses of this run's candidates
  std::size_t device_rejected = 0;     // candidates Family::check_device rejects for the device (or target arch):
                                       // never compiled; measured as constraint_rejected
  std::string device_rejected_reason;  // the first one's reason; empty when none
  std::size_t kind_rejected = 0;       // candidates Family::check_config_kind refuses for the run's kind (the others
                                       // of the space compute it): never compiled; measured as constraint_rejected
  std::string kind_rejected_reason;    // the first one's reason; empty when none
  std::string strategy;
  std::size_t proposed = 0;          // (config, shape) pairs the strategy proposed, the known ones included
  std::size_t other_shards = 0;      // of the pairs proposed, those left to the other shards (--shard)
  std::size_t not_in_recording = 0;  // replay: pairs the recording has no outcome for
  std::vector<std::pair<PruneReason, std::size_t>> pruned;  // compiled but not timed, by reason
  std::string first_prune_message;
  double wall_s = 0;                  // the run, planning to the last outcome (s)
  std::vector<double> device_busy_s;  // per measuring backend (GPU): time spent preparing shapes and measuring (s)
  double device_idle_share() const;   // 1 - busy / wall, averaged over the GPUs; 0 without a backend
  TimeAccount coordinator;            // where the coordinator's time went (tune/time_account.hpp)
  std::vector<TimeAccount> lanes;     // and each measuring lane's: in the worker, waiting for compiles, ...
  std::vector<WorkerPhases> workers;  // each GPU worker's own account at the run's end (the running process's)
  // What kept the GPUs from timing, from the lanes' accounts: when their waits for compiles, or for the
  // coordinator, took 10% of the run or more, the larger one named with its measured share and what to do.
  std::optional<std::string> idle_hint() const;
  std::vector<std::string> gpus;     // the GPUs measured on: "0 (GPU-...)" per lane
  std::vector<std::string> reranks;  // per shape re-ranked: one line naming the winner and the ties
  bool interrupted = false;
};

// Set from a signal handler to stop after the candidate in flight; the run is then recorded as interrupted.
extern std::atomic<bool> g_stop_requested;

// runs.time_accounts of a run (schema version 13): the coordinator's, each lane's and each worker's account.
nlohmann::json time_accounts_json(const TuneSummary& summary);

// Throws SpaceError (bad space), UsageError (bad options), StoreError, NoDeviceError (replay or GPU asked for
// and unavailable), NvrtcError (the compiler machinery still failing after retries: the run is recorded as
// failed, and nothing of it as a config's outcome). Kernel failures are results, not exceptions.
TuneSummary run_tune(const TuneOptions& options, const TuneObserver& observer);

// The fastest verified configs for each shape of `space_path` in the database: rank, config, point, ms, TFLOP/s,
// ratio to cuBLAS.
// The fastest verified configs per shape of `kind` on the device (mpgemm-tune's closing table).
report::Table top_configs(const std::filesystem::path& db_path, const std::string& device_cc, int limit,
                          const ProblemKind& kind = {});

}  // namespace mpgemm
