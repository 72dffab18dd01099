#include "lib/device_state.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "device/cuda_check.hpp"
#include "device/device_description.hpp"
#include "device/fit_geometry.hpp"
#include "device/query.hpp"
#include "lib/cublas_path.hpp"
#include "lib/dispatch_policy.hpp"
#include "lib/errors.hpp"
#include "lib/kernel_source.hpp"
#include "lib/plan.hpp"
#include "measure/resources.hpp"

namespace mpgemm::lib {

StreamState::Workspace StreamState::workspace_for(std::size_t bytes) {
  std::lock_guard lock(workspace_mutex);
  if (bytes > workspace.bytes()) {
    const std::size_t size = std::max(bytes, 2 * workspace.bytes());
    DeviceBuffer grown(size, "the split-K workspace (flags and a 16-bit D's FP32 partial sums)");
    MPGEMM_CUDA(cudaMemsetAsync(grown.get(), 0, std::min(size, kWorkspaceBytes), stream));  // the flags
    smaller_workspaces.push_back(std::move(workspace));
    workspace = std::move(grown);
  }
  return {workspace.get(), workspace.bytes()};
}

StreamState::~StreamState() {
  if (cublas) (void)cublasDestroy(cublas);  // fails only after a sticky fault; nothing to do then
}

std::size_t DeviceState::ProblemHash::operator()(const GemmProblem& p) const {
  std::size_t h = std::hash<std::int64_t>{}(p.shape.m);
  h = h * 1000003u ^ std::hash<std::int64_t>{}(p.shape.n);
  h = h * 1000003u ^ std::hash<std::int64_t>{}(p.shape.k);
  return h * 1000003u ^ std::hash<std::string>{}(p.kind.name());
}

DeviceState::DeviceState(int ordinal, const WinnerTable& table, const CubinCache& cache, const LibraryOptions& options)
    : info_(query_device(ordinal)), table_(table), cache_(cache), options_(options) {
  MPGEMM_CUDA(cudaSetDevice(ordinal));
  MPGEMM_CUDA(cudaFree(nullptr));  // creates the primary context now and makes it current for the driver API
  driver_ = &driver_api();
  description_ = describe_device(info_);
}

Dispatch DeviceState::plan(const GemmProblem& problem) const {
  return plan_call(table_, description_, problem, PolicyOptions{options_.min_ratio}).dispatch;
}

LoadedKernel& DeviceState::module_for(const ShapeWinner& winner, bool* compiled) {
  WinnerCubin cubin = winner_cubin(winner, cache_, options_.allow_compile);
  *compiled = cubin.compiled;
  auto& slot = modules_[cubin.result.compile_key];
  if (!slot) {
    try {
      slot = std::make_unique<LoadedKernel>(*driver_, cubin.result.cubin, cubin.result.lowered_name);
    } catch (...) {
      modules_.erase(cubin.result.compile_key);
      rethrow_as(GemmError::Kind::load_failed,
                 fmt::format("loading {} ({}) on {}", winner.config_name, winner.arch.str(), info_.name));
    }
  }
  return *slot;
}

std::unique_ptr<ShapeSlot> DeviceState::build_slot(const GemmProblem& problem) {
  Planned decided = plan_call(table_, description_, problem, PolicyOptions{options_.min_ratio});
  const Shape& shape = problem.shape;
  auto slot = std::make_unique<ShapeSlot>();
  slot->problem = problem;
  slot->dispatch = std::move(decided.dispatch);
  if (!decided.winner) {
    if (decided.no_vendor)  // the reason says why cuBLAS cannot
      throw GemmError(GemmError::Kind::no_tuned_config,
                      fmt::format("{} on {}: {}", problem.str(), info_.name, slot->dispatch.reason));
    if (!options_.allow_cublas)
      throw GemmError(GemmError::Kind::no_tuned_config, fmt::format("{} on {}: {} (and Options::allow_cublas is false)",
                                                                    problem.str(), info_.name, slot->dispatch.reason));
    return slot;
  }
  const ShapeWinner& w = *decided.winner;
  const std::string doing = fmt::format("preparing {} for {} on {}", w.config_name, problem.str(), info_.name);
  LoadedKernel& kernel = module_for(w, &slot->dispatch.compiled);
  try {
    const Family& fam = family(w.family);
    const LaunchGeometry asked = fam.launch_geometry(w.params, shape, description_);
    if (auto why = check_resources(kernel.resources(), info_.limits(), {asked.block.count(), asked.dynamic_smem_bytes}))
      throw GemmError(GemmError::Kind::load_failed, fmt::format("{}: {}", doing, *why));
    // The opt-in is per function and shared by its shapes: only ever raised.
    std::uint32_t& opted = configured_smem_[&kernel];
    if (asked.dynamic_smem_bytes > opted || asked.cluster.count() > 8) {
      kernel.configure(asked);
      opted = std::max(opted, asked.dynamic_smem_bytes);
    }
    const FittedGeometry fitted = fit_geometry(kernel, asked, info_.sm_count);
    if (fitted.reason) throw GemmError(GemmError::Kind::load_failed, fmt::format("{}: {}", doing, *fitted.reason));
    slot->kernel = &kernel;
    slot->geometry = fitted.geometry;
    slot->family = &fam;
    slot->winner = &w;
    slot->workspace_bytes = fam.workspace_bytes(w.params, problem, fitted.geometry);
  } catch (...) {
    rethrow_as(GemmError::Kind::load_failed, doing);
  }
  return slot;
}

const ShapeSlot& DeviceState::slot(const GemmProblem& problem) {
  {
    std::shared_lock lock(slots_mutex_);
    if (auto it = slots_.find(problem); it != slots_.end()) return *it->second;
  }
  std::lock_guard build(build_mutex_);
  {
    std::shared_lock lock(slots_mutex_);
    if (auto it = slots_.find(problem); it != slots_.end()) return *it->second;
  }
  std::unique_ptr<ShapeSlot> built = build_slot(problem);  // a failure is not kept: the next call tries again
  std::unique_lock lock(slots_mutex_);
  return *(slots_[problem] = std::move(built));
}

const ShapeSlot& DeviceState::vendor_slot(const GemmProblem& problem, const std::string& why) {
  {
    std::shared_lock lock(slots_mutex_);
    if (auto it = vendor_slots_.find(problem); it != vendor_slots_.end()) return *it->second;
  }
  if (auto gap = vendor_gap(problem.kind))
    throw GemmError(GemmError::Kind::launch_failed,
                    fmt::format("{} on {}: {}, and the vendor path cannot take the call: {}", problem.str(), info_.name,
                                why, *gap));
  if (!options_.allow_cublas)
    throw GemmError(GemmError::Kind::launch_failed,
                    fmt::format("{} on {}: {}, and Options::allow_cublas is false", problem.str(), info_.name, why));
  auto slot = std::make_unique<ShapeSlot>();
  slot->problem = problem;
  slot->dispatch.path = Path::cublas;
  slot->dispatch.problem = problem.kind.name();
  slot->dispatch.config = kVendorConfig;
  slot->dispatch.reason = fmt::format("{}: {}: the tuned kernel needs 16-byte-aligned pointers; {} runs it",
                                      problem.kind.name(), why, kVendorConfig);
  std::unique_lock lock(slots_mutex_);
  auto& kept = vendor_slots_[problem];
  if (!kept) kept = std::move(slot);
  return *kept;
}

StreamState& DeviceState::stream_state(cudaStream_t stream) {
  std::lock_guard lock(streams_mutex_);
  auto& state = streams_[stream];
  if (state) return *state;
  try {
    auto made = std::make_unique<StreamState>();
    made->stream = stream;
    made->workspace = DeviceBuffer(kWorkspaceBytes, "the split-K workspace");
    MPGEMM_CUDA(cudaMemsetAsync(made->workspace.get(), 0, kWorkspaceBytes, stream));
    state = std::move(made);
  } catch (...) {
    streams_.erase(stream);
    rethrow_as(GemmError::Kind::cuda_failed, fmt::format("preparing a stream on {}", info_.name));
  }
  return *state;
}

cublasHandle_t DeviceState::cublas(StreamState& state) {
  std::call_once(state.cublas_once, [&] {
    try {
      MPGEMM_CUBLAS(cublasCreate(&state.cublas));
      MPGEMM_CUBLAS(cublasSetStream(state.cublas, state.stream));
    } catch (...) {
      if (state.cublas) (void)cublasDestroy(state.cublas);
      state.cublas = nullptr;
      rethrow_as(GemmError::Kind::cublas_failed, fmt::format("creating a cuBLAS handle on {}", info_.name));
    }
  });
  return state.cublas;
}

}  // namespace mpgemm::lib
