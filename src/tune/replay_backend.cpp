#include "tune/replay_backend.hpp"

#include <algorithm>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/error.hpp"
#include "common/readable.hpp"
#include "store/store.hpp"
#include "worker/interleaved.hpp"

namespace mpgemm {

namespace {

// The recording, read-only; a file that cannot be read is refused in the words every reader uses.
Store open_recording(const std::filesystem::path& path) {
  require_readable_file(path, "database");
  return Store::open(path, Store::Mode::read_only);
}

std::string text_cell(const report::Cell& c) {
  if (const auto* s = std::get_if<std::string>(&c)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&c)) return std::to_string(*i);
  return {};
}

// A recorded outcome at the tolerances of this run (make_replay_backend says what can be carried over).
Measurement judged(Measurement m, const MeasureSettings& now) {
  if (!m.error) return m;
  ErrorStats& e = *m.error;
  const bool no_tighter = now.atol >= e.atol && now.rtol >= e.rtol;
  if (m.status == Status::ok && !no_tighter && !(e.max_abs <= now.atol)) {
    m.status = Status::incorrect;
    m.timing.reset();
    m.message = fmt::format(
        "replayed at atol {:g}, rtol {:g}: the recorded max |c - ref| {:g} (verified at atol {:g}, "
        "rtol {:g}) is beyond atol, and the recording cannot show that rtol * |ref| covers it",
        now.atol, now.rtol, e.max_abs, e.atol, e.rtol);
    e.bad_count = std::max<std::int64_t>(e.bad_count, 1);
  }
  e.atol = now.atol;
  e.rtol = now.rtol;
  return m;
}

class ReplayBackend final : public MeasureBackend {
 public:
  ReplayBackend(const std::filesystem::path& path, const MeasureSettings& settings, std::chrono::milliseconds delay)
      : store_(open_recording(path)), settings_(settings), delay_(delay) {
    // The device of the most recent run that measured on a GPU (a fixed query: no values pasted into SQL).
    auto t = store_.query_sql(
        "SELECT device_name, device_cc, sm_count, driver_version, runtime_version, cublas_version FROM runs "
        "WHERE device_name IS NOT NULL ORDER BY id DESC LIMIT 1");
    if (t.rows.empty()) throw Error(fmt::format("{} has no run measured on a GPU: nothing to replay", path.string()));
    const auto& r = t.rows.front();
    device_.name = text_cell(r[0]);
    auto arch = Arch::parse(text_cell(r[1]));
    if (!arch) throw Error(fmt::format("{}: run has an unreadable device arch '{}'", path.string(), text_cell(r[1])));
    device_.arch = *arch;
    device_.sm_count = static_cast<int>(std::get_if<std::int64_t>(&r[2]) ? std::get<std::int64_t>(r[2]) : 0);
    // smem_per_block_optin stays 0 (unknown): runs do not record it, and families must not reject on an unknown.
    device_.driver_version = text_cell(r[3]);
    device_.runtime_version = text_cell(r[4]);
    device_.cublas_version = text_cell(r[5]);
  }

  // Every shape of `shapes` the recording cannot replay (no cuBLAS timing on its device), refused at once: a lane
  // would find it only when it prepares the shape, after the run has begun.
  void require_recorded(const std::vector<Shape>& shapes) const {
    std::vector<std::string> missing;
    for (const Shape& shape : shapes)
      if (!store_.find_latest_cublas(device_.name, problem(shape))) missing.push_back(problem(shape).str());
    if (missing.empty()) return;
    // What it does hold, to choose from.
    std::vector<std::string> recorded;
    for (const GemmProblem& p : store_.cublas_problems(device_.name)) recorded.push_back(p.str());
    const auto listed = [](const std::vector<std::string>& v) {
      constexpr std::size_t kShown = 8;
      std::vector<std::string> shown(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(std::min(v.size(), kShown)));
      return fmt::format("{}{}", fmt::join(shown, ", "),
                         v.size() > kShown ? fmt::format(" and {} more", v.size() - kShown) : "");
    };
    throw Error(fmt::format(
        "{}: the recording has no cuBLAS timing of {} on {}, so {} cannot be replayed (it "
        "recorded {}); tune only the shapes it recorded",
        store_.path().string(), listed(missing), device_.name, missing.size() == 1 ? "that shape" : "those shapes",
        recorded.empty() ? std::string("no shape") : listed(recorded)));
  }

  std::string mode() const override { return "replay"; }
  // The recorded problem of `shape`: the run's kind (MeasureSettings::kind); no other kind's outcome is replayed.
  GemmProblem problem(const Shape& shape) const { return GemmProblem{shape, settings_.kind}; }
  const DeviceDescription& device() const override { return device_; }

  ShapeReference prepare_shape(const Shape& shape) override {
    auto c = store_.find_latest_cublas(device_.name, problem(shape));
    if (!c)
      throw Error(fmt::format("{} has no cuBLAS timing for {} on {}: nothing to replay for this shape",
                              store_.path().string(), problem(shape).str(), device_.name));
    ShapeReference ref{c->timing, c->sm_clock_mhz, std::nullopt};
    // cuBLASLt when the recording has it (recordings made before schema 3, or with --no-cublaslt, do not).
    if (auto lt = store_.find_latest_cublaslt(device_.name, problem(shape))) ref.cublaslt = lt->reference;
    return ref;
  }

  // Looked up by the arch the config is compiled for (`compiled.arch`, set also when nothing was compiled), which
  // is not the device's for an arch-specific family: wgmma configs are recorded as sm_90a on an sm_90 device.
  std::optional<Measurement> measure(const Candidate& candidate, const CompileResult& compiled,
                                     const Shape& shape) override {
    if (delay_.count() > 0) std::this_thread::sleep_for(delay_);
    auto m = store_.find_measurement_by_config(candidate.name, compiled.arch.str(), problem(shape));
    if (!m) return std::nullopt;
    return judged(m->measurement, settings_);
  }

  BackendCapabilities capabilities() const override {
    return BackendCapabilities{.needs_cubins = false, .interleaved = true};
  }

  // The recording's own samples where its latest re-rank of the shape has the kernel (by config name and arch),
  // else one sample per round at the kernel's recorded median (cuBLAS's and cuBLASLt's likewise), placed as the
  // worker would place it. A kernel without a recorded ok outcome has no samples.
  std::optional<InterleavedReply> time_interleaved(const std::vector<RerankKernel>& kernels, const Shape& shape,
                                                   const RerankProtocol& protocol) override {
    const auto recorded = store_.find_latest_rerank(device_.name, problem(shape));
    const auto recorded_entry = [&](const RerankKernel& k) -> const RerankEntryRecord* {
      if (!recorded) return nullptr;
      for (const auto& e : recorded->entries) {
        const auto c = store_.find_config(e.config_id);
        if (c && c->candidate.name == k.candidate.name && e.arch == k.compiled.arch && !e.samples.empty()) return &e;
      }
      return nullptr;
    };
    const auto n = kernels.size();
    InterleavedReply out;
    out.kernels.resize(n);
    std::vector<std::optional<double>> median(n + 2);  // synthesized entries' one value; n: cuBLAS, n + 1: cuBLASLt
    for (std::size_t i = 0; i < n; ++i) {
      auto& k = out.kernels[i];
      if (const auto* e = recorded_entry(kernels[i])) {
        k.status = e->status;
        k.message = e->message;
        k.samples = e->samples;
        continue;
      }
      const auto m =
          store_.find_measurement_by_config(kernels[i].candidate.name, kernels[i].compiled.arch.str(), problem(shape));
      if (!m || m->measurement.status != Status::ok || !m->measurement.timing) {
        k.message = "no recorded ok outcome of this config on this shape: not timed";
        continue;
      }
      k.error = m->measurement.error;
      median[i] = m->measurement.timing->median_ms;
    }
    if (recorded) out.settled_ms = recorded->settled_ms;  // as the recording settled (its count is not stored)
    if (recorded && !recorded->cublas_samples.empty()) {
      out.cublas = recorded->cublas_samples;
    } else if (auto c = store_.find_latest_cublas(device_.name, problem(shape))) {
      median[n] = c->timing.median_ms;
    }
    // cuBLASLt likewise, when asked for: the recorded re-rank's samples, else its recorded best-of-heuristics.
    if (!settings_.cublaslt) {
      out.cublaslt_message = "not asked for";
    } else if (recorded && !recorded->cublaslt_samples.empty()) {
      out.cublaslt = recorded->cublaslt_samples;
    } else if (auto lt = store_.find_latest_cublaslt(device_.name, problem(shape)); lt && lt->reference.timing) {
      median[n + 1] = lt->reference.timing->median_ms;
    } else {
      out.cublaslt_message = "the recording has no cuBLASLt timing of this shape";
    }
    std::vector<bool> active(median[n + 1] ? n + 2 : n + 1);
    for (std::size_t i = 0; i < active.size(); ++i) active[i] = median[i].has_value();
    for (int r = 0; r < protocol.rounds; ++r) {
      int position = 0;
      for (const int e : interleaved_order(r, active)) {
        const auto i = static_cast<std::size_t>(e);
        auto& samples = i == n ? out.cublas : i == n + 1 ? out.cublaslt : out.kernels[i].samples;
        samples.push_back({r, position++, *median[i]});
      }
    }
    return out;
  }

 private:
  Store store_;
  MeasureSettings settings_;
  std::chrono::milliseconds delay_;
  DeviceDescription device_;
};

}  // namespace

std::unique_ptr<MeasureBackend> make_replay_backend(const std::filesystem::path& db_path,
                                                    const MeasureSettings& settings, std::chrono::milliseconds delay,
                                                    const std::vector<Shape>& shapes) {
  auto backend = std::make_unique<ReplayBackend>(db_path, settings, delay);
  backend->require_recorded(shapes);
  return backend;
}

}  // namespace mpgemm
