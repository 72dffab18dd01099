// The public API (include/mpgemm/gemm.hpp) over Library::Impl.
#include <algorithm>
#include <climits>
#include <cmath>
#include <mutex>
#include <optional>
#include <unordered_set>

#include <cuda.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/error.hpp"
#include "device/cuda_check.hpp"
#include "lib/cublas_path.hpp"
#include "lib/errors.hpp"
#include "lib/library_impl.hpp"
#include "lib/plan.hpp"
#include "lib/public_problem.hpp"

namespace mpgemm {

namespace {

std::atomic<std::uint64_t> next_library_id{1};
// The calling thread's last successful call: its Dispatch (in that Library's slots) and the Library's id, so that
// last_dispatch() answers nullptr once that Library is gone instead of a pointer into freed memory.
thread_local const Dispatch* last = nullptr;
thread_local std::uint64_t last_owner = 0;

// The ids of the Libraries alive now (never destroyed: Libraries may outlive static destruction's order).
struct LiveLibraries {
  std::mutex mutex;
  std::unordered_set<std::uint64_t> ids;
};
LiveLibraries& live_libraries() {
  static auto* live = new LiveLibraries;
  return *live;
}

Shape checked_shape(std::int64_t m, std::int64_t n, std::int64_t k) {
  for (auto [name, v] : {std::pair{"M", m}, {"N", n}, {"K", k}})
    if (v < 1 || v > INT_MAX)
      throw GemmError(GemmError::Kind::bad_argument, fmt::format("{} = {} is outside 1..{}", name, v, INT_MAX));
  return {m, n, k};
}

}  // namespace

const char* to_string(Path path) {
  switch (path) {
    case Path::tuned:
      return "tuned";
    case Path::nearest:
      return "nearest";
    case Path::cublas:
      return "cublas";
  }
  return "?";
}

Library::Impl::Impl(std::string p, lib::WinnerTable t, CubinCache c, lib::LibraryOptions o)
    : id(next_library_id.fetch_add(1)), path(std::move(p)), table(std::move(t)), cache(std::move(c)), options(o) {}

int Library::Impl::current_device() {
  int ordinal = -1;
  const cudaError_t error = cudaGetDevice(&ordinal);
  if (error == cudaSuccess) return ordinal;
  (void)cudaGetLastError();
  const auto kind = error == cudaErrorNoDevice || error == cudaErrorInsufficientDriver || error == cudaErrorStubLibrary
                        ? GemmError::Kind::no_device
                        : GemmError::Kind::cuda_failed;
  throw GemmError(kind, fmt::format("libmpgemm: no current CUDA device: cudaGetDevice returned {}", describe(error)),
                  static_cast<int>(error));
}

lib::DeviceState& Library::Impl::device(int ordinal) {
  if (ordinal < 0 || ordinal >= kMaxDevices)
    throw GemmError(GemmError::Kind::cuda_failed, fmt::format("libmpgemm: device ordinal {} is out of range", ordinal));
  if (lib::DeviceState* d = devices_[ordinal].load(std::memory_order_acquire)) return *d;
  std::lock_guard lock(devices_mutex_);
  if (lib::DeviceState* d = devices_[ordinal].load(std::memory_order_acquire)) return *d;
  try {
    owned_.push_back(std::make_unique<lib::DeviceState>(ordinal, table, cache, options));
  } catch (...) {
    lib::rethrow_as(GemmError::Kind::cuda_failed, fmt::format("libmpgemm: setting up device {}", ordinal));
  }
  devices_[ordinal].store(owned_.back().get(), std::memory_order_release);
  return *owned_.back();
}

namespace {

// The first of the call's pointers that is not 16-byte aligned, named; nullopt when all are. The tuned kernels' TMA
// descriptors and vector accesses need 16-byte alignment, a sliced tensor's pointer may not have it; cuBLAS takes
// any pointer the element type allows.
std::optional<std::string> misaligned_pointer(const lib::CallKey& key) {
  for (auto [name, p] : {std::pair{"A", key.a}, {"B", key.b}, {"D", key.c}, {"C", key.c_in}})
    if (p != nullptr && reinterpret_cast<std::uintptr_t>(p) % 16 != 0)
      return fmt::format("{}'s pointer {} is not 16-byte aligned", name, p);
  return std::nullopt;
}

}  // namespace

lib::CallEntry& Library::Impl::entry(const lib::CallKey& key) {
  lib::CallCache& calls = lib::CallCache::local();
  if (lib::CallEntry* hit = calls.find(key)) return *hit;
  // This thread's first call like this: bind the device's primary context to the thread for the driver API.
  try {
    MPGEMM_CUDA(cudaSetDevice(key.device));
  } catch (...) {
    lib::rethrow_as(GemmError::Kind::cuda_failed, fmt::format("libmpgemm: making device {} current", key.device));
  }
  lib::DeviceState& dev = device(key.device);
  const lib::ShapeSlot* chosen = &dev.slot(key.problem);
  if (chosen->kernel)
    if (auto why = misaligned_pointer(key)) chosen = &dev.vendor_slot(key.problem, *why);
  const lib::ShapeSlot& slot = *chosen;
  lib::StreamState& stream = dev.stream_state(key.stream);
  KernelArgs args;
  if (slot.kernel) {
    try {
      // The family builds the tensor maps for the kind's layouts and types (as the worker's do), D typed by `out`.
      ProblemBuffers buffers;
      buffers.a = key.a;
      buffers.b = key.b;
      buffers.c = const_cast<void*>(key.c);
      buffers.shape = key.problem.shape;
      const lib::StreamState::Workspace workspace = stream.workspace_for(slot.workspace_bytes);
      buffers.workspace = workspace.data;
      buffers.workspace_bytes = workspace.bytes;
      buffers.kind = key.problem.kind;
      buffers.alpha = key.alpha;
      buffers.beta = key.beta;
      buffers.c_in = key.c_in;
      slot.family->append_problem_args(slot.winner->params, buffers,
                                       DriverFunctions{dev.driver().tensor_map_encode_tiled}, args);
    } catch (...) {
      lib::rethrow_as(GemmError::Kind::launch_failed,
                      fmt::format("building the arguments of {} for {}", slot.dispatch.config, key.problem.str()));
    }
  } else {
    dev.cublas(stream);
  }
  lib::CallEntry& e = calls.insert(key);
  e.slot = &slot;
  e.stream = &stream;
  e.args = std::move(args);
  e.pointers = e.args.pointers();
  return e;
}

Library Library::open(const std::string& path) {
  return open(path, Options{});
}

Library Library::open(const std::string& path, const Options& options) {
  // A NaN threshold compares false with every ratio and a negative one reads as "always the winner" by accident:
  // 0 says that on purpose.
  if (!(options.min_ratio >= 0) || std::isinf(options.min_ratio))
    throw GemmError(
        GemmError::Kind::bad_argument,
        fmt::format("libmpgemm: min_ratio is {}; it must be a finite number >= 0 (0: any tuned winner runs)",
                    options.min_ratio));
  try {
    lib::WinnerTable table = lib::WinnerTable::load(path);
    CubinCache cache(options.cubin_cache.empty() ? CubinCache::beside(path)
                                                 : std::filesystem::path(options.cubin_cache));
    return Library(
        std::make_unique<Impl>(path, std::move(table), std::move(cache),
                               lib::LibraryOptions{options.min_ratio, options.allow_cublas, options.allow_compile}));
  } catch (...) {
    lib::rethrow_as(GemmError::Kind::open_failed, "libmpgemm");  // every reason names the file
  }
}

Library::Library(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {
  LiveLibraries& live = live_libraries();
  std::lock_guard lock(live.mutex);
  live.ids.insert(impl_->id);
}
Library::Library(Library&&) noexcept = default;
Library& Library::operator=(Library&& other) noexcept {
  if (this != &other && impl_) {
    LiveLibraries& live = live_libraries();
    std::lock_guard lock(live.mutex);
    live.ids.erase(impl_->id);  // the library this one held is destroyed below
  }
  impl_ = std::move(other.impl_);
  return *this;
}
Library::~Library() {
  if (!impl_) return;  // moved from
  LiveLibraries& live = live_libraries();
  std::lock_guard lock(live.mutex);
  live.ids.erase(impl_->id);
}

namespace {

// The call's key: its pointers checked against its kind.
lib::CallKey call_key(std::uint64_t library, const ProblemKind& kind, const void* A, const void* B, void* D,
                      std::int64_t M, std::int64_t N, std::int64_t K, void* stream, float alpha, float beta,
                      const void* C) {
  if (A == nullptr || B == nullptr || D == nullptr)
    throw GemmError(GemmError::Kind::bad_argument, "libmpgemm: gemm() needs device pointers for A, B and D");
  if (!kind.beta && beta != 0.0f)
    throw GemmError(
        GemmError::Kind::bad_argument,
        fmt::format("libmpgemm: beta = {} for {}, a kind that reads no C: use its _beta kind", beta, kind.name()));
  if (kind.beta && C == nullptr)
    throw GemmError(
        GemmError::Kind::bad_argument,
        fmt::format("libmpgemm: {} reads C: gemm() needs a device pointer for C (it may be D)", kind.name()));
  return lib::CallKey{library,
                      Library::Impl::current_device(),
                      static_cast<cudaStream_t>(stream),
                      GemmProblem{checked_shape(M, N, K), kind},
                      A,
                      B,
                      D,
                      kind.beta ? C : nullptr,
                      alpha,
                      kind.beta ? beta : 0.0f};
}

// Enqueues the call on the path its slot holds.
const Dispatch& run_call(Library::Impl& impl, const lib::CallKey& key) {
  lib::CallEntry& e = impl.entry(key);
  const lib::ShapeSlot& slot = *e.slot;
  try {
    if (slot.kernel)
      slot.kernel->launch(slot.geometry, static_cast<CUstream>(key.stream), e.pointers.data());
    else
      lib::cublas_gemm(e.stream->cublas, key.stream, key.problem, key.a, key.b, const_cast<void*>(key.c), key.c_in,
                       key.alpha, key.beta);
  } catch (...) {
    lib::rethrow_as(slot.kernel ? GemmError::Kind::launch_failed : GemmError::Kind::cublas_failed,
                    fmt::format("libmpgemm: {} for {}", slot.dispatch.config, key.problem.str()));
  }
  last = &slot.dispatch;
  last_owner = impl.id;
  return slot.dispatch;
}

}  // namespace

const Dispatch& Library::gemm(const void* A, const void* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
                              void* stream) {
  if (A == nullptr || B == nullptr || C == nullptr)
    throw GemmError(GemmError::Kind::bad_argument, "libmpgemm: gemm() needs device pointers for A, B and C");
  return run_call(*impl_, call_key(impl_->id, ProblemKind{}, A, B, C, M, N, K, stream, 1.0f, 0.0f, nullptr));
}

const Dispatch& Library::gemm(const Problem& problem, const void* A, const void* B, void* D, std::int64_t M,
                              std::int64_t N, std::int64_t K, void* stream, float alpha, float beta, const void* C) {
  return run_call(*impl_, call_key(impl_->id, lib::to_kind(problem), A, B, D, M, N, K, stream, alpha, beta, C));
}

Dispatch Library::plan(std::int64_t M, std::int64_t N, std::int64_t K) const {
  return plan(Problem{}, M, N, K);
}

Dispatch Library::plan(const Problem& problem, std::int64_t M, std::int64_t N, std::int64_t K) const {
  const GemmProblem p{checked_shape(M, N, K), lib::to_kind(problem)};
  return impl_->device(Impl::current_device()).plan(p);
}

Dispatch Library::plan_for(const std::string& device, const Problem& problem, std::int64_t M, std::int64_t N,
                           std::int64_t K) const {
  const GemmProblem p{checked_shape(M, N, K), lib::to_kind(problem)};
  std::vector<std::string> known;
  for (const ShapeWinner& w : impl_->table.winners()) {
    if (w.device_name != device) {
      if (std::find(known.begin(), known.end(), w.device_name) == known.end()) known.push_back(w.device_name);
      continue;
    }
    DeviceDescription described;
    described.name = device;
    described.arch = Arch::parse(w.device_cc).value_or(w.arch);
    described.arch.arch_specific = false;
    return lib::plan_call(impl_->table, described, p, lib::PolicyOptions{impl_->options.min_ratio}).dispatch;
  }
  throw GemmError(
      GemmError::Kind::bad_argument,
      fmt::format("libmpgemm: {} has no winner tuned on a device named \"{}\"; its devices: {}", impl_->path, device,
                  known.empty() ? "none" : fmt::format("\"{}\"", fmt::join(known, "\", \""))));
}

const Dispatch& Library::preload(const Problem& problem, std::int64_t M, std::int64_t N, std::int64_t K, void* stream) {
  const GemmProblem p{checked_shape(M, N, K), lib::to_kind(problem)};
  const int ordinal = Impl::current_device();
  try {
    MPGEMM_CUDA(cudaSetDevice(ordinal));  // binds the primary context to this thread for the driver API
  } catch (...) {
    lib::rethrow_as(GemmError::Kind::cuda_failed, fmt::format("libmpgemm: making device {} current", ordinal));
  }
  lib::DeviceState& dev = impl_->device(ordinal);
  const lib::ShapeSlot& slot = dev.slot(p);
  lib::StreamState& state = dev.stream_state(static_cast<cudaStream_t>(stream));
  if (!slot.kernel) dev.cublas(state);
  // A 16-bit D's split-K partial sums: the stream's workspace grown now, not inside a capture.
  try {
    if (slot.kernel) state.workspace_for(slot.workspace_bytes);
  } catch (...) {
    lib::rethrow_as(GemmError::Kind::cuda_failed, fmt::format("libmpgemm: the workspace of {}", p.str()));
  }
  return slot.dispatch;
}

std::vector<Library::Tuned> Library::tuned() const {
  std::vector<Tuned> out;
  for (const ShapeWinner& w : impl_->table.winners()) {
    Tuned t;
    t.device = w.device_name;
    t.problem = w.kind.name();
    t.m = w.shape.m;
    t.n = w.shape.n;
    t.k = w.shape.k;
    t.family = w.family;
    t.config = w.config_name;
    t.arch = w.arch.str();
    t.ratio_cublas = w.ratio_to_cublas.value_or(0);
    t.from_rerank = w.from_rerank;
    out.push_back(std::move(t));
  }
  return out;
}

const Dispatch* Library::last_dispatch() {
  if (last == nullptr) return nullptr;
  LiveLibraries& live = live_libraries();
  std::lock_guard lock(live.mutex);
  return live.ids.count(last_owner) > 0 ? last : nullptr;
}

std::size_t Library::tuned_shapes() const {
  return impl_->table.winners().size();
}

const std::string& Library::path() const {
  return impl_->path;
}

}  // namespace mpgemm
