#include "tune/tuner.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/error.hpp"
#include "common/hash.hpp"
#include "compile/compile_pool.hpp"
#include "compile/cubin_cache.hpp"
#include "compile/nvrtc_compile.hpp"
#include "space/enumerate.hpp"
#include "space/space.hpp"
#include "store/store.hpp"
#include "tune/candidates.hpp"
#include "tune/gpu_backend.hpp"
#include "tune/plan.hpp"
#include "tune/recorder.hpp"
#include "tune/replay_backend.hpp"
#include "tune/run_scope.hpp"
#include "tune/scheduler.hpp"
#include "tune/tune_input.hpp"

namespace mpgemm {

std::atomic<bool> g_stop_requested{false};

double TuneSummary::device_idle_share() const {
  if (device_busy_s.empty() || wall_s <= 0) return 0;
  double idle = 0;
  for (double busy : device_busy_s) idle += std::clamp(1.0 - busy / wall_s, 0.0, 1.0);
  return idle / static_cast<double>(device_busy_s.size());
}

std::optional<std::string> TuneSummary::idle_hint() const {
  // A share of the run below this is not worth a line: noise, a shape switch, the run's start.
  constexpr double kHintShare = 0.10;
  // The worker's shape preparation and settling are named when they take this share of its time or more.
  constexpr double kProtocolShare = 0.30;
  if (mode != "gpu" || lanes.empty()) return std::nullopt;
  double compile = 0, coordinator_wait = 0, compile_s = 0, coordinator_s = 0;
  for (const TimeAccount& lane : lanes) {
    if (lane.wall_s <= 0) continue;
    const double c = lane.seconds(to_string(LanePhase::waiting_for_compiles));
    const double w = lane.seconds(to_string(LanePhase::waiting_for_coordinator)) +
                     lane.seconds(to_string(LanePhase::claiming)) + lane.seconds(to_string(LanePhase::checking));
    compile += c / lane.wall_s;
    coordinator_wait += w / lane.wall_s;
    compile_s += c;
    coordinator_s += w;
  }
  const double n = static_cast<double>(lanes.size());
  compile /= n, coordinator_wait /= n, compile_s /= n, coordinator_s /= n;
  const char* plural = lanes.size() == 1 ? "" : "s";
  if (std::max(compile, coordinator_wait) < kHintShare) {
    // The GPU was kept fed. What the workers did with it: timing, or the per-shape cost of the protocol.
    double total = 0, timing = 0, preparing = 0, settling = 0;
    int shapes = 0, worker_reranks = 0;
    for (const WorkerPhases& w : workers) {
      total += w.total_s();
      timing += w.timing_s;
      preparing += w.preparing_s;
      settling += w.settling_s + w.idle_settling_s;
      shapes += w.shapes;
      worker_reranks += w.reranks;
    }
    if (total <= 0 || preparing + settling < kProtocolShare * total) return std::nullopt;
    return fmt::format(
        "the GPU was kept busy, and the worker{} spent {:.0f}% of {:.1f} s on the measuring protocol's cost per shape "
        "(preparing {} shape visit{} {:.1f} s, settling before {} re-rank{} {:.1f} s) against {:.0f}% timing: it is "
        "paid per shape, not per config, so a run with more configs per shape spends a smaller share on it; neither "
        "a cubin cache nor the coordinator would change it (docs/tuning.md#where-a-runs-time-goes)",
        workers.size() == 1 ? "" : "s", 100 * (preparing + settling) / total, total, shapes, shapes == 1 ? "" : "s",
        preparing, worker_reranks, worker_reranks == 1 ? "" : "s", settling, 100 * timing / total);
  }
  if (compile >= coordinator_wait)
    return fmt::format(
        "the GPU{} waited for compiles {:.0f}% of the run ({:.1f} s; {} of its {} configs were compiled now): "
        "compile the space beforehand (mpgemm-tune SPACE --compile-only --arch {} --cubin-cache DIR, no GPU needed) "
        "and give the run the same --cubin-cache DIR, so it only times",
        plural, 100 * compile, compile_s, compiled_now, compiled_now + cubins_cached, arch.str());
  // The coordinator's busiest phase, its waits for events aside: what to look at.
  std::pair<std::string, double> top{"", 0};
  for (const auto& [name, sec] : coordinator.phases)
    if (name != to_string(CoordinatorPhase::waiting) && sec > top.second) top = {name, sec};
  return fmt::format(
      "the GPU{} waited for the coordinator {:.0f}% of the run ({:.1f} s) with the item's cubin at hand; the "
      "coordinator's own time went most to {} ({:.1f} s of {:.1f} s): a cubin cache does not help here "
      "(docs/tuning.md#where-a-runs-time-goes)",
      plural, 100 * coordinator_wait, coordinator_s, top.first.empty() ? "nothing" : top.first, top.second,
      coordinator.wall_s);
}

namespace {

std::string file_hash(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return Hasher().add(ss.str()).hex();
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

}  // namespace

std::optional<ShapeOrder> shape_order_from_string(std::string_view text) {
  if (text == "costliest") return ShapeOrder::costliest;
  if (text == "file") return ShapeOrder::file;
  return std::nullopt;
}

std::vector<Shape> measuring_order(std::vector<Shape> shapes, ShapeOrder order) {
  if (order == ShapeOrder::costliest)
    std::stable_sort(shapes.begin(), shapes.end(), [](const Shape& a, const Shape& b) {
      // In double: M * N * K of three int-sized sides can overflow 64 bits.
      return double(a.m) * double(a.n) * double(a.k) > double(b.m) * double(b.n) * double(b.k);
    });
  return shapes;
}

namespace {

// Chooses the backends: replay when asked, none for compile-only, else a GPU worker per selected GPU; without a
// device the run falls back to compile-only and says so, unless --gpus named the GPUs (then NoDeviceError).
// A replay refuses shapes its recording lacks here, before the database is opened and the run begun.
std::vector<std::unique_ptr<MeasureBackend>> make_backends(const TuneOptions& opt, const std::vector<Shape>& shapes,
                                                           const TuneObserver& obs) {
  std::vector<std::unique_ptr<MeasureBackend>> out;
  if (opt.replay_db) {
    out.push_back(
        make_replay_backend(*opt.replay_db, opt.settings, std::chrono::milliseconds(opt.replay_delay_ms), shapes));
    return out;
  }
  if (opt.compile_only) return out;
  std::string why;
  out = make_gpu_backends(opt.worker_path, opt.settings, opt.gpus, &why);
  if (out.empty() && opt.gpus_named)
    throw NoDeviceError(
        fmt::format("--gpus {}: {} (without --gpus, a run with no GPU compiles only)", opt.gpus.str(), why));
  if (out.empty()) obs.note(fmt::format("{}: running the compile-only pass; verifying and timing need a GPU", why));
  return out;
}

std::string gpu_label(const DeviceDescription& d) {
  return d.gpu ? fmt::format("{} ({})", d.gpu->ordinal, d.gpu->uuid) : d.name;
}

Arch choose_arch(const TuneOptions& opt, const Space& space, const MeasureBackend* backend) {
  if (backend) {
    const Arch device_arch = backend->device().arch;
    if (opt.arch && opt.arch->cc() != device_arch.cc())
      throw UsageError(
          fmt::format("--arch {} does not match the device ({}, {}); use --compile-only to compile "
                      "for another arch",
                      opt.arch->str(), backend->device().name, device_arch.str()));
    return opt.arch.value_or(device_arch);
  }
  if (opt.arch) return *opt.arch;
  if (space.arch) {
    if (auto a = Arch::parse(*space.arch)) return *a;
    throw space.error_at("/arch", fmt::format("'{}' is not an arch like sm_86 or sm_90a", *space.arch));
  }
  throw UsageError("no GPU, no --arch and the space names no \"arch\": say which arch to compile for (--arch sm_86)");
}

// The `runs` row this run begins with: the command, the space, the host and the devices it measures on.
RunInfo run_info(const TuneOptions& opt, const std::string& mode,
                 const std::vector<std::unique_ptr<MeasureBackend>>& backends) {
  RunInfo info;
  info.argv = opt.argv;
  info.mode = mode;
  info.space_path = opt.space_path.string();
  info.space_hash = file_hash(opt.space_path);
  info.hostname = host_name();
  info.nvrtc_version = nvrtc_version();
  if (!backends.empty()) info.set_device(backends.front()->device());
  for (const auto& b : backends)
    if (b->device().gpu) info.gpus.push_back(*b->device().gpu);
  if (opt.shard) info.shard = opt.shard->str();
  return info;
}

// The run's first lines: what it takes, how, and where it records it.
void announce_run(const TuneOptions& opt, const TuneInput& input,
                  const std::vector<std::unique_ptr<MeasureBackend>>& backends, const TuneSummary& summary,
                  const TuneObserver& obs) {
  const std::size_t per_shape = input.configs_per_shape;
  obs.note(fmt::format("run {}: {} of {} ({}, {}{}), {} shape(s){}, {} for {} into {}", summary.run_id,
                       per_shape ? fmt::format("{} configs{}", per_shape, input.of_space) : "configs",
                       opt.space_path.string(), input.space.family, opt.strategy,
                       opt.budget ? fmt::format(", budget {}", *opt.budget) : "", input.shapes.size(),
                       opt.shard ? fmt::format(", shard {}", opt.shard->str()) : "", summary.mode, summary.arch.str(),
                       opt.db_path.string()));
  if (backends.size() > 1 && backends.front()->capabilities().needs_cubins)
    obs.note(fmt::format("measuring on {} GPUs: {}", backends.size(), fmt::join(summary.gpus, ", ")));
}

// How many compile threads the run takes: --threads, else while a lane measures, NVRTC on every core would delay
// the worker's launches (on the H200 at 4096^3 the configs timed during the compile came out ~10% slower), so a
// core is left to each lane and one to this process.
int compile_threads(const TuneOptions& opt, std::size_t lanes, bool replay) {
  if (opt.compile_threads > 0) return opt.compile_threads;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (lanes == 0 || replay) return cores;
  return std::max(1, cores - 1 - static_cast<int>(lanes));
}

// What the scheduler is told: the shapes in their measuring order, the lanes, the protocol and the search.
// `input` and `cache` outlive the schedule (the selection refers to them).
SchedulerSettings scheduler_settings(const TuneOptions& opt, const TuneInput& input,
                                     const std::vector<std::unique_ptr<MeasureBackend>>& backends,
                                     const CubinCache& cache) {
  const MeasureBackend* const backend = backends.empty() ? nullptr : backends.front().get();
  SchedulerSettings settings;
  // A compile-only run has no shapes to order; it keeps the file's first as the one it checks against.
  settings.shapes = backend ? measuring_order(input.shapes, opt.shape_order) : input.shapes;
  for (const auto& b : backends) settings.backends.push_back(b.get());
  settings.shard = opt.shard;
  settings.replay = backend && !backend->capabilities().needs_cubins;
  settings.measure = opt.settings;
  settings.max_spread = opt.max_spread;
  settings.prune = opt.prune;
  settings.compile.threads = compile_threads(opt, backends.size(), settings.replay);
  settings.compile.cache = &cache;
  settings.db = opt.db_path;
  settings.strategy = opt.strategy;
  settings.strategy_options = opt.strategy_options;
  settings.seed = opt.seed;
  settings.budget = opt.budget;
  settings.time_budget = opt.time_budget;
  settings.stop_requested = [] { return g_stop_requested.load(); };
  settings.admissible = input.admissible;
  if (input.restricted()) settings.selected = [&input](const Candidate& c) { return input.selects(c.name, c.alias); };
  return settings;
}

// The schedule's counts, and the plan's compilations (recorded now or earlier), into the summary.
void summarize_schedule(const SchedulerReport& r, const Plan& plan, const Recorder& recorder, TuneSummary& summary) {
  summary.candidates = plan.size();
  summary.proposed = r.proposed;
  summary.other_shards = r.other_shards;
  summary.compiled_now = r.compiled_now;
  summary.cubins_cached = r.cubins_cached;
  summary.measured_before = r.measured_before;
  summary.measured_now = recorder.measured();
  summary.statuses.assign(recorder.statuses().begin(), recorder.statuses().end());
  summary.not_in_recording = r.not_in_recording;
  summary.pruned.assign(r.pruned.begin(), r.pruned.end());
  summary.first_prune_message = r.first_prune_message;
  summary.wall_s = r.measure_wall_s;
  summary.device_busy_s = r.lane_busy_s;
  summary.coordinator = r.coordinator;
  summary.lanes = r.lanes;
  summary.device_rejected = plan.device_rejected();
  summary.device_rejected_reason = plan.device_rejected_reason();
  summary.kind_rejected = plan.kind_rejected();
  summary.kind_rejected_reason = plan.kind_rejected_reason();
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const PlannedConfig& e = plan.at(i);
    const std::optional<Status> st = e.compile_status();
    if (!st || e.rejected) continue;
    (*st == Status::ok ? summary.compiled_ok : summary.compile_failed)++;
    const bool warned =
        e.compiled ? !e.compiled->warnings.empty() : e.stored->warnings.has_value() && !e.stored->warnings->empty();
    if (*st == Status::ok && warned) ++summary.perf_warned;
  }
  summary.interrupted = r.stopped;
}

// The re-rank's compiler: the tuner's cubin cache, or nothing to compile for a backend that replays a recording.
std::function<CompileResult(const Candidate&, const Arch&)> rerank_compiler(const MeasureBackend& backend,
                                                                            const CubinCache& cache,
                                                                            const ProblemKind& kind) {
  return [&backend, &cache, kind](const Candidate& c, const Arch& a) {
    if (!backend.capabilities().needs_cubins) {  // a replay re-ranks from the recording: nothing to compile
      CompileResult none;
      none.status = Status::ok;
      none.arch = a;
      return none;
    }
    CompilePoolOptions pool;
    pool.cache = &cache;
    return compile_cached(family(c.family).kernel_spec(c.params, a, kind), pool).result;
  };
}

// The top-K re-rank of every shape measured, until a stop is asked for; one line per shape re-ranked into the
// summary, in the space's order.
void rerank_shapes(Store& store, MeasureBackend& backend, const CubinCache& cache,
                   const std::vector<Shape>& measured_order, const std::vector<Shape>& space_order,
                   const RerankOptions& options, const ProblemKind& kind, const TuneObserver& obs,
                   TuneSummary& summary) {
  RerankOptions ro = options;
  ro.run_id = summary.run_id;
  ro.kind = kind;
  ro.compile = rerank_compiler(backend, cache, ro.kind);
  // The last shape measured first: the worker still holds it, and keeps the ones before it from the most recent
  // back (it lets the least recently prepared go first), so each re-rank finds its shape's inputs kept.
  std::vector<std::pair<Shape, std::string>> recorded;
  for (auto shape = measured_order.rbegin(); shape != measured_order.rend(); ++shape) {
    if (g_stop_requested) break;
    const RerankOutcome out = rerank_shape(store, backend, *shape, ro);
    obs.note(fmt::format("shape {}: re-rank: {}", shape->str(), out.note));
    if (out.recorded) recorded.emplace_back(*shape, fmt::format("{}: {}", shape->str(), out.note));
  }
  for (const Shape& shape : space_order)
    for (const auto& [s, note] : recorded)
      if (s == shape) summary.reranks.push_back(note);
  summary.interrupted = g_stop_requested;
}

}  // namespace

nlohmann::json time_accounts_json(const TuneSummary& s) {
  nlohmann::json lanes = nlohmann::json::array(), workers = nlohmann::json::array();
  for (const auto& lane : s.lanes) lanes.push_back(to_json(lane));
  for (const auto& worker : s.workers) workers.push_back(to_json(worker));
  return {{"coordinator", to_json(s.coordinator)}, {"lanes", lanes}, {"workers", workers}};
}

TuneSummary run_tune(const TuneOptions& opt, const TuneObserver& obs) {
  const auto started = std::chrono::steady_clock::now();
  // Everything that can be wrong with the input is found before anything is written.
  const TuneInput input = check_tune_input(opt);

  const std::vector<std::unique_ptr<MeasureBackend>> backends = make_backends(opt, input.shapes, obs);
  MeasureBackend* const backend = backends.empty() ? nullptr : backends.front().get();
  TuneSummary summary;
  summary.arch = choose_arch(opt, input.space, backend);
  summary.mode = backend ? backend->mode() : "compile-only";
  summary.strategy = opt.strategy;
  for (const auto& b : backends) summary.gpus.push_back(gpu_label(b->device()));
  DeviceDescription device;  // what the family is asked about: the measuring device, or the target
  if (backend)
    device = backend->device();
  else
    device.arch = summary.arch;

  Store store = Store::open(opt.db_path, Store::Mode::read_write);
  RunScope scope(store, run_info(opt, summary.mode, backends));
  summary.run_id = scope.id();
  announce_run(opt, input, backends, summary, obs);

  Plan plan(input.space, *input.family, summary.arch, device, store, opt.settings.kind);
  Recorder recorder(store, summary.run_id, opt.settings.kind);
  const CubinCache cache(opt.cubin_cache.value_or(CubinCache::beside(opt.db_path)));
  const SchedulerSettings settings = scheduler_settings(opt, input, backends, cache);
  SchedulerObserver sobs;
  sobs.note = obs.note;
  sobs.progress = [&](std::size_t done, std::size_t, const std::string& current) { obs.progress(done, current); };
  // Without a backend each config is compiled once, for the first shape.
  obs.phase_started(backend ? "measure" : "compile", backend ? input.pairs : input.compile_pairs);
  // An exception leaves the phase unfinished: the error is the last word, not a progress line.
  const double starting_s = seconds_since(started);  // input checks, the workers' start, the database, the plan
  const SchedulerReport r =
      run_schedule(RunContext{plan, recorder, store, input.space, *input.family, device}, settings, sobs);
  obs.phase_finished();
  summarize_schedule(r, plan, recorder, summary);
  summary.coordinator.add("starting", starting_s);
  if (summary.device_rejected > 0)
    obs.note(fmt::format("{} config{} do{} not run on {}: {}", summary.device_rejected,
                         summary.device_rejected == 1 ? "" : "s", summary.device_rejected == 1 ? "es" : "",
                         device.arch.str(), summary.device_rejected_reason));
  if (summary.kind_rejected > 0)
    obs.note(fmt::format("{} config{} cannot compute {} and {} not compiled for it: {}", summary.kind_rejected,
                         summary.kind_rejected == 1 ? "" : "s", plan.kind().name(),
                         summary.kind_rejected == 1 ? "is" : "are", summary.kind_rejected_reason));

  if (opt.shard && opt.rerank.top_k > 0 && backend)
    obs.note(
        fmt::format("no re-rank in a shard: a shard sees only its slice of each shape; merge the shards' "
                    "databases (mpgemm-query merge) and re-rank the result (mpgemm-run DB --rerank {})",
                    opt.rerank.top_k));
  if (backend && !opt.shard && !summary.interrupted && opt.rerank.top_k > 0 && backend->capabilities().interleaved) {
    const auto reranking = std::chrono::steady_clock::now();
    rerank_shapes(store, *backend, cache, settings.shapes, input.shapes, opt.rerank, opt.settings.kind, obs, summary);
    summary.coordinator.add("re-ranking", seconds_since(reranking));
  }
  for (const auto& b : backends)
    if (auto account = b->worker_account()) summary.workers.push_back(*account);
  if (backend) store.record_time_accounts(summary.run_id, time_accounts_json(summary).dump());
  scope.finish(summary.interrupted);
  return summary;
}

}  // namespace mpgemm
