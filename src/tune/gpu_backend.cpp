#include "tune/gpu_backend.hpp"

#include <algorithm>
#include <random>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "codegen/family.hpp"
#include "common/error.hpp"
#include "common/whole_number.hpp"
#include "device/device_description.hpp"
#include "worker/client.hpp"

namespace mpgemm {

namespace {

class GpuBackend final : public MeasureBackend {
 public:
  GpuBackend(WorkerOptions options, const MeasureSettings& settings)
      : client_(std::move(options)), settings_(settings) {
    DeviceInfo info = client_.hello();
    device_ = describe_device(info);
    device_count_ = info.device_count;
  }

  std::string mode() const override { return "gpu"; }
  const DeviceDescription& device() const override { return device_; }

  ShapeReference prepare_shape(const Shape& shape) override {
    PrepareShapeRequest req{shape,
                            seed_of(shape),
                            settings_.warmup,
                            settings_.runs,
                            settings_.iters,
                            settings_.cublaslt,
                            settings_.atol,
                            settings_.rtol,
                            settings_.l2,
                            settings_.batches,
                            settings_.settle_ms,
                            settings_.hold,
                            settings_.kind,
                            settings_.alpha,
                            settings_.kind.beta ? settings_.beta : 0.0f};
    PrepareShapeReply reply = client_.prepare_shape(req);
    return {reply.reference.timing, reply.reference.sm_clock_mhz, std::move(reply.cublaslt), reply.inputs_kept};
  }

  std::optional<Measurement> measure(const Candidate& candidate, const CompileResult& compiled,
                                     const Shape& shape) override {
    return measure_screened(candidate, compiled, shape, std::nullopt);
  }

  std::optional<Measurement> measure_screened(const Candidate& candidate, const CompileResult& compiled,
                                              const Shape& shape, std::optional<double> screen_against_ms) override {
    const Family& fam = family(candidate.family);
    MeasureRequest req;
    req.family = candidate.family;
    req.params = candidate.params;
    req.cubin = compiled.cubin;
    req.lowered_name = compiled.lowered_name;
    req.geometry = fam.launch_geometry(candidate.params, shape, device_);
    req.atol = settings_.atol;
    req.rtol = settings_.rtol;
    req.warmup = settings_.warmup;
    req.runs = settings_.runs;
    req.iters = settings_.iters;
    req.pair_with_cublas = settings_.paired;
    req.l2 = settings_.l2;
    req.batches = settings_.batches;
    req.noise_stop = settings_.noise_stop;
    req.screen = settings_.screen;
    if (settings_.screen) req.screen_against_ms = screen_against_ms;
    return client_.measure(req);
  }

  BackendCapabilities capabilities() const override {
    return BackendCapabilities{.needs_cubins = true, .interleaved = true};
  }

  std::optional<InterleavedReply> time_interleaved(const std::vector<RerankKernel>& kernels, const Shape& shape,
                                                   const RerankProtocol& protocol) override {
    TimeInterleavedRequest req;
    for (const auto& k : kernels) {
      const Family& fam = family(k.candidate.family);
      req.kernels.push_back({k.candidate.family, k.candidate.params, k.compiled.cubin, k.compiled.lowered_name,
                             fam.launch_geometry(k.candidate.params, shape, device_), k.expected_ms});
    }
    req.atol = settings_.atol;
    req.rtol = settings_.rtol;
    req.warmup = protocol.warmup;
    req.rounds = protocol.rounds;
    req.iters = protocol.iters;
    req.cublaslt = settings_.cublaslt;
    req.graphs = protocol.graphs;
    req.settle_ms = protocol.settle_ms;
    return client_.time_interleaved(req);
  }

  std::optional<WorkerPhases> worker_account() override { return client_.account(); }

  int device_count() const { return device_count_; }

 private:
  // Fresh random inputs for every shape of every run: a kernel must compute the same function on any input. A
  // shape prepared again in the run (its re-rank) keeps its seed, so the worker can keep its inputs.
  std::uint64_t seed_of(const Shape& shape) {
    for (const auto& [s, seed] : seeds_)
      if (s == shape) return seed;
    const std::uint64_t seed = std::random_device{}() | (std::uint64_t{std::random_device{}()} << 32);
    seeds_.emplace_back(shape, seed);
    return seed;
  }

  std::vector<std::pair<Shape, std::uint64_t>> seeds_;
  WorkerClient client_;
  int device_count_ = 1;
  MeasureSettings settings_;
  DeviceDescription device_;
};

std::unique_ptr<GpuBackend> start_backend(const std::optional<std::filesystem::path>& worker_path,
                                          const MeasureSettings& settings, int ordinal) {
  WorkerOptions options;
  if (worker_path) options.executable = worker_path->string();
  options.device_ordinal = ordinal;
  return std::make_unique<GpuBackend>(std::move(options), settings);
}

}  // namespace

GpuSelection GpuSelection::parse(std::string_view text) {
  GpuSelection g;
  if (text == "all") {
    g.all = true;
    g.ordinals.clear();
    return g;
  }
  g.ordinals.clear();
  std::string_view rest = text;
  while (true) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const std::optional<int> parsed = parse_whole_number<int>(item);
    if (!parsed)
      throw UsageError(
          fmt::format("--gpus '{}': expected 'all' or CUDA ordinals like 0,1 ('{}' is not one)", text, item));
    const int value = *parsed;
    if (std::find(g.ordinals.begin(), g.ordinals.end(), value) != g.ordinals.end())
      throw UsageError(fmt::format("--gpus '{}': GPU {} is named twice", text, value));
    g.ordinals.push_back(value);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return g;
}

std::string GpuSelection::str() const {
  if (all) return "all";
  return fmt::format("{}", fmt::join(ordinals, ","));
}

std::unique_ptr<MeasureBackend> make_gpu_backend(const std::optional<std::filesystem::path>& worker_path,
                                                 const MeasureSettings& settings, std::string* why, int ordinal) {
  try {
    return start_backend(worker_path, settings, ordinal);
  } catch (const NoDeviceError& e) {
    if (why) *why = e.what();
    return nullptr;
  }
}

std::vector<std::unique_ptr<MeasureBackend>> make_gpu_backends(const std::optional<std::filesystem::path>& worker_path,
                                                               const MeasureSettings& settings,
                                                               const GpuSelection& gpus, std::string* why) {
  std::vector<std::unique_ptr<MeasureBackend>> out;
  const int first_ordinal = gpus.all ? 0 : gpus.ordinals.front();
  std::unique_ptr<GpuBackend> first;
  try {
    first = start_backend(worker_path, settings, first_ordinal);
  } catch (const NoDeviceError& e) {
    // A GPU asked for by number that is not there is an error, not a reason to fall back to compiling only.
    if (first_ordinal > 0) throw UsageError(fmt::format("--gpus {}: {}", gpus.str(), e.what()));
    if (why) *why = e.what();
    return out;
  }
  const int count = std::max(1, first->device_count());
  std::vector<int> rest;
  if (gpus.all) {
    for (int o = 1; o < count; ++o) rest.push_back(o);
  } else {
    rest.assign(gpus.ordinals.begin() + 1, gpus.ordinals.end());
    for (int o : rest)
      if (o >= count)
        throw UsageError(fmt::format("--gpus {}: there is no GPU {}; this host shows {} (ordinals 0 to {})", gpus.str(),
                                     o, count, count - 1));
  }
  // One after the other, on this thread: a worker is killed when the thread that started it ends (PR_SET_PDEATHSIG,
  // worker/process.cpp), so workers started from short-lived threads would die as soon as they had said hello.
  std::vector<std::unique_ptr<GpuBackend>> started;
  for (int o : rest) started.push_back(start_backend(worker_path, settings, o));
  out.push_back(std::move(first));
  for (auto& b : started) {
    const DeviceDescription& a = out.front()->device();
    const DeviceDescription& d = b->device();
    if (d.name != a.name || d.arch.cc() != a.arch.cc())
      throw UsageError(
          fmt::format("--gpus {}: GPU {} is {} ({}) but GPU {} is {} ({}); results of different models "
                      "are different devices, so tune each in its own run (--gpus {} and --gpus {}, "
                      "one database is fine)",
                      gpus.str(), a.gpu ? a.gpu->ordinal : 0, a.name, a.arch.str(), d.gpu ? d.gpu->ordinal : 0, d.name,
                      d.arch.str(), a.gpu ? a.gpu->ordinal : 0, d.gpu ? d.gpu->ordinal : 0));
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace mpgemm
