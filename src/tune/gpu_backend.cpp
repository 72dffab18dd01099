#include "tune/gpu_backend.hpp"

#include <random>

#include "codegen/family.hpp"
#include "common/error.hpp"
#include "worker/client.hpp"

namespace mpgemm {

namespace {

class GpuBackend final : public MeasureBackend {
 public:
  GpuBackend(WorkerOptions options, const MeasureSettings& settings)
      : client_(std::move(options)), settings_(settings) {
    DeviceInfo info = client_.hello();
    device_.name = info.name;
    device_.arch = info.arch;
    device_.sm_count = info.sm_count;
    device_.smem_per_block_optin = info.smem_per_block_optin;
    device_.driver_version = cuda_version_string(info.driver_version);
    device_.runtime_version = cuda_version_string(info.runtime_version);
    device_.cublas_version = cublas_version_string(info.cublas_version);
  }

  std::string mode() const override { return "gpu"; }
  const DeviceDescription& device() const override { return device_; }

  ShapeReference prepare_shape(const Shape& shape) override {
    // Fresh random inputs for every shape of every run: a kernel must compute the same function on any input.
    PrepareShapeRequest req{shape,
                            std::random_device{}() | (std::uint64_t{std::random_device{}()} << 32),
                            settings_.warmup,
                            settings_.runs,
                            settings_.iters,
                            settings_.cublaslt,
                            settings_.atol,
                            settings_.rtol,
                            settings_.l2};
    PrepareShapeReply reply = client_.prepare_shape(req);
    return {reply.reference.timing, reply.reference.sm_clock_mhz, std::move(reply.cublaslt)};
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
    req.noise_stop = settings_.noise_stop;
    req.screen = settings_.screen;
    if (settings_.screen) req.screen_against_ms = screen_against_ms;
    return client_.measure(req);
  }

  BackendCapabilities capabilities() const override { return BackendCapabilities{.needs_cubins = true, .interleaved = true}; }

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
    return client_.time_interleaved(req);
  }

 private:
  WorkerClient client_;
  MeasureSettings settings_;
  DeviceDescription device_;
};

}  // namespace

std::unique_ptr<MeasureBackend> make_gpu_backend(const std::optional<std::filesystem::path>& worker_path,
                                                 const MeasureSettings& settings, std::string* why) {
  WorkerOptions options;
  if (worker_path) options.executable = worker_path->string();
  try {
    return std::make_unique<GpuBackend>(std::move(options), settings);
  } catch (const NoDeviceError& e) {
    if (why) *why = e.what();
    return nullptr;
  }
}

}  // namespace mpgemm
