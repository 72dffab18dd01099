#include "tune/tuner.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/hash.hpp"
#include "compile/compile_pool.hpp"
#include "compile/cubin_cache.hpp"
#include "compile/nvrtc_compile.hpp"
#include "space/space.hpp"
#include "store/store.hpp"
#include "tune/candidates.hpp"
#include "tune/claims.hpp"
#include "tune/gpu_backend.hpp"
#include "tune/keys.hpp"
#include "tune/noise.hpp"
#include "tune/replay_backend.hpp"

namespace mpgemm {

std::atomic<bool> g_stop_requested{false};

namespace {

// One candidate on its way through the run.
struct Work {
  Candidate candidate;
  KernelSpec spec;
  std::string compile_key;
  std::int64_t config_id = 0;
  std::optional<CompileResult> compiled;           // compiled in this run
  std::optional<StoredCompilation> stored;         // recorded earlier (or by this run)
  std::optional<std::int64_t> compilation_id;
  std::optional<std::string> device_rejected;      // Family::check_device's reason: never compiled, and measured
                                                   // as constraint_rejected
};

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

std::vector<Shape> shapes_of(const Space& space, const TuneOptions& opt) {
  std::vector<Shape> shapes = space.shapes;
  for (auto& s : shapes) {
    if (opt.m) s.m = *opt.m;
    if (opt.n) s.n = *opt.n;
    if (opt.k) s.k = *opt.k;
  }
  std::vector<Shape> unique;
  for (const auto& s : shapes)
    if (std::find(unique.begin(), unique.end(), s) == unique.end()) unique.push_back(s);
  return unique;
}

bool selected(const Candidate& c, const std::vector<std::string>& only) {
  if (only.empty()) return true;
  for (const auto& o : only) {
    if (c.name.find(o) != std::string::npos) return true;
    if (c.alias && c.alias->find(o) != std::string::npos) return true;
  }
  return false;
}

// Chooses the backend: replay when asked, none for compile-only, else a GPU worker; without a device the run
// falls back to compile-only and says so.
std::unique_ptr<MeasureBackend> make_backend(const TuneOptions& opt, const TuneObserver& obs) {
  if (opt.replay_db)
    return make_replay_backend(*opt.replay_db, opt.settings, std::chrono::milliseconds(opt.replay_delay_ms));
  if (opt.compile_only) return nullptr;
  std::string why;
  auto backend = make_gpu_backend(opt.worker_path, opt.settings, &why);
  if (!backend) {
    obs.note(fmt::format("{}: running the compile-only pass; verifying and timing need a GPU", why));
  }
  return backend;
}

Arch choose_arch(const TuneOptions& opt, const Space& space, const MeasureBackend* backend) {
  if (backend) {
    const Arch device_arch = backend->device().arch;
    if (opt.arch && opt.arch->cc() != device_arch.cc())
      throw UsageError(fmt::format("--arch {} does not match the device ({}, {}); use --compile-only to compile "
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

// The cuBLASLt reference of a shape as the measurements link to it: its row, and its median when it was
// timed.
struct CublasLtIds {
  std::optional<std::int64_t> id;
  std::optional<double> median_ms;
};

// Records cuBLASLt's reference when the backend has one (it is absent with --no-cublaslt, or replaying a
// recording without it) and says how it went.
CublasLtIds record_cublaslt(Store& store, std::int64_t run_id, const DeviceDescription& device,
                            const Shape& shape, const ShapeReference& ref, const TuneObserver& obs) {
  if (!ref.cublaslt) return {};
  const CublasLtReference& lt = *ref.cublaslt;
  CublasLtIds ids;
  ids.id = store.record_cublaslt(run_id, CublasLtRecord{device.name, device.arch.str(), shape, lt});
  if (lt.timing && lt.timing->median_ms > 0) {
    ids.median_ms = lt.timing->median_ms;
    obs.note(
        fmt::format("shape {}: cuBLASLt {:.4f} ms ({:.1f} TFLOP/s), best of {} verified of {} heuristic "
                    "algorithms: {}",
                    shape.str(), lt.timing->median_ms, shape.flops() / lt.timing->median_ms / 1e9,
                    lt.heuristics_valid, lt.heuristics_returned, lt.algo ? describe(*lt.algo) : "?"));
  } else {
    obs.note(fmt::format("shape {}: no cuBLASLt timing: {}", shape.str(), lt.message));
  }
  return ids;
}

}  // namespace

TuneSummary run_tune(const TuneOptions& opt, const TuneObserver& obs) {
  // Everything that can be wrong with the input is found before anything is written.
  Space space = load_space(opt.space_path);
  const Family* fam = nullptr;
  try {
    fam = &family(space.family);
  } catch (const Error& e) {
    throw space.error_at("/family", e.what());
  }
  std::vector<Candidate> all = build_candidates(space, *fam);
  std::vector<Candidate> candidates;
  for (auto& c : all)
    if (selected(c, opt.only)) candidates.push_back(std::move(c));
  if (candidates.empty()) throw UsageError("--only matches no config of the space");
  const std::vector<Shape> shapes = shapes_of(space, opt);

  std::unique_ptr<MeasureBackend> backend = make_backend(opt, obs);
  TuneSummary summary;
  summary.arch = choose_arch(opt, space, backend.get());
  summary.mode = backend ? backend->mode() : "compile-only";
  summary.candidates = candidates.size();
  // What the family is asked about: the measuring device, or in compile-only mode just the target.
  DeviceDescription device;
  if (backend)
    device = backend->device();
  else
    device.arch = summary.arch;

  Store store = Store::open(opt.db_path, Store::Mode::read_write);
  RunInfo info;
  info.argv = opt.argv;
  info.mode = summary.mode;
  info.space_path = opt.space_path.string();
  info.space_hash = file_hash(opt.space_path);
  info.hostname = host_name();
  info.nvrtc_version = nvrtc_version();
  if (backend) info.set_device(backend->device());
  summary.run_id = store.begin_run(info);
  obs.note(fmt::format("run {}: {} candidates of {} ({}), {} shape(s), {} for {} into {}", summary.run_id,
                       candidates.size(), opt.space_path.string(), space.family, shapes.size(), summary.mode,
                       summary.arch.str(), opt.db_path.string()));

  try {
    // Keys and what is already known.
    std::vector<Work> work;
    for (auto& c : candidates) {
      Work w;
      w.spec = fam->kernel_spec(c.params, summary.arch);
      w.compile_key = compile_key(w.spec);
      w.config_id = store.upsert_config(c, source_hash(w.spec));
      w.device_rejected = fam->check_device(c.params, device);
      w.stored = store.find_compilation(w.config_id, w.spec.arch.str(), w.compile_key);
      if (w.stored && !w.device_rejected) w.compilation_id = w.stored->id;
      if (w.device_rejected && summary.device_rejected++ == 0) summary.device_rejected_reason = *w.device_rejected;
      w.candidate = std::move(c);
      work.push_back(std::move(w));
    }
    if (summary.device_rejected > 0)
      obs.note(fmt::format("{} config{} do{} not run on {}: {}", summary.device_rejected,
                           summary.device_rejected == 1 ? "" : "s", summary.device_rejected == 1 ? "es" : "",
                           device.arch.str(), summary.device_rejected_reason));

    // Which (candidate, shape) pairs still need a measurement.
    std::map<std::pair<std::size_t, std::size_t>, std::string> pending;  // (work index, shape index) -> key
    if (backend) {
      for (std::size_t i = 0; i < work.size(); ++i)
        for (std::size_t s = 0; s < shapes.size(); ++s) {
          std::string key =
              result_key(work[i].candidate, work[i].compile_key, backend->device(), shapes[s], opt.settings);
          if (store.has_measurement(key))
            ++summary.measured_before;
          else
            pending[{i, s}] = key;
        }
    }

    // Compile, or take from the cubin cache: in compile-only mode what has no compilation recorded yet, or no
    // cached cubin for its recorded one; otherwise what still needs measuring. Recorded in chunks as they
    // finish.
    const CubinCache cache(opt.cubin_cache.value_or(CubinCache::beside(opt.db_path)));
    std::vector<std::size_t> to_compile;
    for (std::size_t i = 0; i < work.size(); ++i) {
      const auto& stored = work[i].stored;
      bool needed =
          backend ? std::any_of(pending.begin(), pending.end(), [&](auto& p) { return p.first.first == i; })
                  : !stored || (stored->status == Status::ok && !cache.contains(work[i].compile_key));
      if (needed && summary.mode != "replay" && !work[i].device_rejected) to_compile.push_back(i);
    }
    if (!to_compile.empty()) {
      obs.phase_started("compile", to_compile.size());
      CompilePoolOptions pool;
      pool.threads = opt.compile_threads;
      pool.cache = &cache;
      const std::size_t chunk = 16;
      for (std::size_t begin = 0; begin < to_compile.size() && !g_stop_requested; begin += chunk) {
        std::size_t end = std::min(begin + chunk, to_compile.size());
        std::vector<KernelSpec> specs;
        for (std::size_t j = begin; j < end; ++j) specs.push_back(work[to_compile[j]].spec);
        auto results = compile_all(specs, pool, [&](std::size_t done, std::size_t) {
          obs.progress(begin + done, work[to_compile[begin + done - 1]].candidate.name);
        });
        for (std::size_t j = begin; j < end; ++j) {
          Work& w = work[to_compile[j]];
          PooledCompile& r = results[j - begin];
          w.compiled = std::move(r.result);
          w.compiled->dynamic_shared_bytes =
              static_cast<int>(fam->launch_geometry(w.candidate.params, shapes.front(), device).dynamic_smem_bytes);
          w.compilation_id = store.record_compilation(w.config_id, summary.run_id, *w.compiled);
          ++(r.from_cache ? summary.cubins_cached : summary.compiled_now);
        }
      }
      obs.phase_finished();
    }
    for (auto& w : work) {
      Status st = w.compiled ? w.compiled->status : (w.stored ? w.stored->status : Status::compile_failed);
      if ((!w.compiled && !w.stored) || w.device_rejected) continue;
      (st == Status::ok ? summary.compiled_ok : summary.compile_failed)++;
      const bool warned = w.compiled ? !w.compiled->warnings.empty()
                                     : w.stored->warnings.has_value() && !w.stored->warnings->empty();
      if (st == Status::ok && warned) ++summary.perf_warned;
    }

    // Measure, shape by shape.
    std::map<Status, std::size_t> statuses;
    if (backend && !g_stop_requested) {
      const Claims claims(opt.db_path);
      for (std::size_t s = 0; s < shapes.size() && !g_stop_requested; ++s) {
        std::vector<std::size_t> todo;
        for (auto& [ij, key] : pending)
          if (ij.second == s) todo.push_back(ij.first);
        if (todo.empty()) continue;
        const Shape& shape = shapes[s];
        const ShapeReference ref = backend->prepare_shape(shape);
        const TimingStats& cublas = ref.timing;
        CublasRecord cr{backend->device().name, backend->device().arch.str(), shape, cublas, ref.sm_clock_mhz};
        std::int64_t cublas_id = store.record_cublas(summary.run_id, cr);
        obs.note(fmt::format("shape {}: cuBLAS {:.4f} ms ({:.1f} TFLOP/s)", shape.str(), cublas.median_ms,
                             shape.flops() / cublas.median_ms / 1e9));
        const CublasLtIds lt = record_cublaslt(store, summary.run_id, backend->device(), shape, ref, obs);
        obs.phase_started(fmt::format("measure {}", shape.str()), todo.size());
        std::size_t done = 0;
        std::optional<double> best_ms;  // the fastest ok median of this run on the shape: what the screen compares
        // A candidate another process is measuring goes to the back of the queue; met again, it is waited for.
        std::vector<std::size_t> queue = todo;
        for (std::size_t q = 0; q < queue.size(); ++q) {
          if (g_stop_requested) break;
          const std::size_t i = queue[q];
          Work& w = work[i];
          const bool again = q >= todo.size();
          const Claims::Held claim = claims.take(pending[{i, s}], /*wait=*/again);
          if (!claim) {
            if (!again) queue.push_back(i);
            continue;
          }
          if (store.has_measurement(pending[{i, s}])) {  // recorded by another process since this run started
            ++summary.measured_before;
            obs.progress(++done, w.candidate.alias.value_or(w.candidate.name));
            continue;
          }
          std::optional<Measurement> m;
          Status compiled_status =
              w.compiled ? w.compiled->status : (w.stored ? w.stored->status : Status::compile_failed);
          CompileResult empty;
          if (w.device_rejected) {
            // Decided before compiling, on a GPU and in a replay alike: the recorded outcome does not matter.
            m = Measurement::unmeasured(Status::constraint_rejected, *w.device_rejected);
          } else if (summary.mode == "replay") {
            // The recorded outcome, whatever decided it: on a GPU a failed compilation wins over the shape check,
            // and a replay compiles nothing to know that. The shape check only fills in what was not recorded.
            m = backend->measure(w.candidate, empty, shape);
            if (!m)
              if (auto why = fam->check_shape(w.candidate.params, shape))
                m = Measurement::unmeasured(Status::constraint_rejected, *why);
          } else if (compiled_status != Status::ok) {
            m = Measurement::unmeasured(Status::compile_failed,
                                        "compilation failed; see the compilations table for the log");
          } else if (auto why = fam->check_shape(w.candidate.params, shape)) {
            m = Measurement::unmeasured(Status::constraint_rejected, *why);
          } else {
            m = measure_steady(*backend, w.candidate, w.compiled ? *w.compiled : empty, shape, opt.max_spread, best_ms);
          }
          ++done;
          obs.progress(done, w.candidate.alias.value_or(w.candidate.name));
          if (!m) continue;  // replay without a recorded outcome
          MeasurementRecord rec;
          rec.run_id = summary.run_id;
          rec.config_id = w.config_id;
          rec.compilation_id = w.compilation_id;
          rec.result_key = pending[{i, s}];
          rec.device_name = backend->device().name;
          rec.device_cc = backend->device().arch.str();
          rec.arch = w.spec.arch;
          rec.shape = shape;
          rec.measurement = *m;
          rec.cublas_id = cublas_id;
          rec.cublaslt_id = lt.id;
          if (m->status == Status::ok && m->timing && m->timing->median_ms > 0) {
            if (!best_ms || m->timing->median_ms < *best_ms) best_ms = m->timing->median_ms;
            rec.ratio_to_cublas = cublas.median_ms / m->timing->median_ms;
            if (lt.median_ms) rec.ratio_to_cublaslt = *lt.median_ms / m->timing->median_ms;
          }
          store.record_measurement(rec);
          ++summary.measured_now;
          ++statuses[m->status];
        }
        obs.phase_finished();
      }
    }
    summary.statuses.assign(statuses.begin(), statuses.end());
    summary.interrupted = g_stop_requested;
    store.end_run(summary.run_id, summary.interrupted ? "interrupted" : "finished");
  } catch (...) {
    try {
      store.end_run(summary.run_id, "failed");
    } catch (...) {
    }
    throw;
  }
  return summary;
}

}  // namespace mpgemm
