#pragma once
// A kernel family: one CUDA C++ template in kernels/, a search space in configs/, and this description of how a
// point of the space becomes a compiled, launchable kernel. Everything here is pure and runs without a GPU, except
// append_problem_args, which the worker calls with device pointers (the Hopper family builds TMA tensor maps there).
// The device a family is asked about is a DeviceDescription: in compile-only mode only its arch (the target) is
// known; a field that is 0 or empty is unknown and must not reject anything.
//
// Adding a family: kernels/<family>.cuh, configs/<space>.json, and one registration line in registry.cpp.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000: types only, codegen links no CUDA library

#include "common/device.hpp"
#include "common/params.hpp"
#include "common/problem_kind.hpp"
#include "common/types.hpp"

namespace mpgemm {

// The largest dynamic shared memory a block of any GPU may opt in to (bytes, sm_90): what a family can rule out
// before it knows the device.
constexpr std::uint64_t kMaxSmemAnyGpu = 232448;

struct Dim3 {
  std::uint32_t x = 1, y = 1, z = 1;
  std::uint64_t count() const { return std::uint64_t{x} * y * z; }
};

// What NVRTC needs to build one config: a pure function of (config, target arch).
struct KernelSpec {
  std::string program_name;          // NVRTC program name, e.g. "wmma_cp_async_bm128_bn64_bk32_s2_w32x32.cu"
  std::string source;                // the translation unit: includes the family's .cuh and instantiates nothing
  std::string name_expression;       // e.g. "mpgemm::wmma_gemm<128, 64, 32, 32, 32, 2, 2, 8, 8>"
  std::vector<std::string> options;  // NVRTC options besides the arch and include dirs (-D..., -std=c++17, ...)
  Arch arch;                         // the arch to compile for (a Hopper family turns sm_90 into sm_90a)
  // Extra include directories for NVRTC, searched after the toolkit's, in order. A relative path is relative to
  // the toolkit include directory (resolve_cuda_include_dir()), e.g. "cccl" for CUDA 13's CCCL headers. Headers
  // found through them are part of the compile key.
  std::vector<std::string> include_dirs;
};

// How to launch one config on one problem shape.
struct LaunchGeometry {
  Dim3 grid;
  Dim3 block;
  Dim3 cluster;                          // {1,1,1}: no cluster launch
  std::uint32_t dynamic_smem_bytes = 0;  // bytes; above 48 KiB the launcher raises the function's opt-in limit
  // The kernel loops over its work with a stride of gridDim.x (grid.y = grid.z = 1), so it is correct with any
  // grid.x >= 1: the launcher may LOWER grid.x to what can be co-resident (lower_persistent_grid), never raise it.
  bool persistent = false;
  // Persistent kernels whose work is `balanced_units` units (tiles, or cluster tiles) dealt round-robin to the
  // clusters: when > 0, grid.x is kept to the fewest clusters that need as many rounds as the grid asked for
  // (balance_persistent_grid), so every cluster gets the same number of units, give or take the last round.
  std::uint64_t balanced_units = 0;
  // Launched with programmatic stream serialization: the kernel may start while the previous kernel of the stream
  // finishes, and waits for that kernel's memory itself (griddepcontrol.wait) before it touches global memory.
  bool dependent_launch = false;
};

// A persistent geometry with balanced_units > 0: grid.x lowered from c clusters to ceil(units / rounds) clusters,
// rounds = ceil(units / c) (e.g. 512 tiles on 132 SMs: 4 rounds either way, 128 clusters). Unchanged otherwise.
LaunchGeometry balance_persistent_grid(const LaunchGeometry& geometry);

// The geometry a persistent kernel is launched with when `co_resident_blocks` blocks fit on the device at once
// (cuOccupancyMaxActiveClusters * cluster size, or cuOccupancyMaxActiveBlocksPerMultiprocessor * SMs): grid.x
// lowered to at most that, rounded down to a multiple of the cluster size, then balanced (balance_persistent_grid).
// Unchanged when not persistent or when grid.x already fits; grid.x 0 when not even one cluster (one block) fits,
// which the caller reports.
LaunchGeometry lower_persistent_grid(const LaunchGeometry& geometry, std::uint64_t co_resident_blocks);

// Bytes of the scratch every problem offers its kernels (ProblemBuffers::workspace): zero when a kernel starts,
// and a kernel that uses it leaves it zero when it ends (split-K's flags), so one allocation serves every launch.
// A kernel may ask for more (Family::workspace_bytes: split-K's FP32 partial sums when D is 16-bit, after these
// bytes, which need no zeroing and are left as the kernel wrote them); the holder grows it to what the kernel asks
// and keeps the smaller ones alive for the launches made with them.
constexpr std::size_t kWorkspaceBytes = std::size_t{1} << 20;

// Device buffers of one problem, as the worker holds them. Pointers are device addresses.
struct ProblemBuffers {
  const void* a = nullptr;  // A as the kind stores it: M x K (mk) or K x M (km) row-major, of kind.in
  const void* b = nullptr;  // B as the kind stores it: K x N (kn) or N x K (nk) row-major, of kind.in
  void* c = nullptr;        // D: M x N row-major, of kind.out (FP32 for the default kind)
  Shape shape;
  void* workspace = nullptr;        // zeroed scratch (see above); null where the caller has none
  std::size_t workspace_bytes = 0;  // its size: at least kWorkspaceBytes where there is one
  ProblemKind kind;                 // what a, b, c hold and what the kernel computes
  float alpha = 1;                  // D = alpha * A.B + beta * C
  float beta = 0;                   // read only when kind.beta
  const void* c_in = nullptr;       // C: M x N row-major, of kind.out, read when kind.beta; may be c itself
  const void* bias = nullptr;       // the bias: N values of kind.out, 16-byte aligned, read when kind.has_bias()
};

// Kernel parameters, packed in order with their alignment, for cuLaunchKernel's kernelParams.
class KernelArgs {
 public:
  template <class T>
  void push(const T& value) {
    push_bytes(&value, sizeof(T), alignof(T));
  }
  void push_bytes(const void* data, std::size_t size, std::size_t align);
  // Pointers to each argument, valid while this object lives and is not modified.
  std::vector<void*> pointers();

 private:
  std::vector<std::vector<std::uint8_t>> storage_;  // one buffer per argument, over-allocated by 64 bytes
  std::vector<std::size_t> offsets_;                // where each argument starts in its buffer (64-byte aligned)
};

// Pushes the arguments every plain GEMM kernel takes: (const __half* A, const __half* B, float* C, int M, int N,
// int K). Family::append_problem_args's default, and what the worker passes to a kernel of no family.
void push_standard_gemm_args(const ProblemBuffers& buffers, KernelArgs& args);

// Driver entry points a family may need to build per-problem arguments. The worker fills this in (resolved
// through the runtime, never by linking libcuda); families that need nothing ignore it.
struct DriverFunctions {
  PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encode_tiled = nullptr;  // null where the driver lacks it
};

class Family {
 public:
  virtual ~Family() = default;

  virtual std::string_view name() const = 0;  // "wmma"; the "family" key of a space file
  // A family for tests only (tests/families): never offered to users as a kernel.
  virtual bool test_only() const { return false; }

  // The kernel file in kernels/ this family compiles.
  virtual std::string_view kernel_file() const = 0;

  // Problems with the params, beyond the space's own constraints (e.g. "BM must be a multiple of WM");
  // empty when the config is buildable. Pure.
  virtual std::vector<std::string> check_config(const Params& params) const = 0;

  // Deterministic procedural name built from every parameter, e.g. "wmma_cp_async_bm128_bn64_bk32_s2_w32x32_p8x8".
  virtual std::string config_name(const Params& params) const = 0;

  // Config -> (source, name expression, options, arch) for problems of `kind`, a kind check_kind accepts. The
  // default kind's spec is what it was before kinds existed, so no existing key changes. Pure.
  virtual KernelSpec kernel_spec(const Params& params, const Arch& target, const ProblemKind& kind) const = 0;
  // The default kind's spec (a derived family brings it into scope: `using Family::kernel_spec;`).
  KernelSpec kernel_spec(const Params& params, const Arch& target) const {
    return kernel_spec(params, target, ProblemKind{});
  }

  // Why this config cannot run this shape (e.g. "M=1000 is not a multiple of 16"), or nullopt. Pure.
  virtual std::optional<std::string> check_shape(const Params& params, const Shape& shape) const = 0;

  // Why this config cannot run on this device or target (e.g. "wgmma needs sm_90 (Hopper); the device is sm_86"),
  // or nullopt. Asked before compiling: a config rejected here is never compiled, and each of its shapes is
  // recorded as constraint_rejected with this reason. Fields of `device` that are 0 or empty are unknown and must
  // not reject anything; in compile-only mode only `arch` (the target) is set. Pure. The default accepts all.
  virtual std::optional<std::string> check_device(const Params& params, const DeviceDescription& device) const;

  // Why the family cannot compute problems of `kind` (e.g. "wmma computes mk_kn_fp16_fp32 only"), or nullopt: its
  // answer to "supports(kind)?", asked before any config of a kind is compiled. Pure. The default: today's kind
  // only, which every family computes until its kernels take the others (issue 58).
  virtual std::optional<std::string> check_kind(const ProblemKind& kind) const;

  // Why this config cannot compute problems of `kind` at any shape (e.g. swap-AB with A stored K x M), or nullopt.
  // Asked before compiling, like check_device: a config refused here is never compiled for the kind, and each of its
  // shapes is recorded as constraint_rejected with this reason. Pure. The default: check_kind.
  virtual std::optional<std::string> check_config_kind(const Params& params, const ProblemKind& kind) const;

  // Why this config cannot compute `problem` (its kind and shape together: e.g. a layout the config's epilogue
  // cannot store, or a row stride TMA cannot take), or nullopt. Pure. The default: check_kind, then check_shape.
  virtual std::optional<std::string> check_problem(const Params& params, const GemmProblem& problem) const;

  // How to launch the config on `shape` on `device`. device.sm_count 0 means unknown: size as if unlimited
  // (the launcher lowers a persistent kernel's grid to what is co-resident anyway). Pure.
  virtual LaunchGeometry launch_geometry(const Params& params, const Shape& shape,
                                         const DeviceDescription& device) const = 0;

  // Bytes of zeroed workspace (ProblemBuffers::workspace) the config needs for `problem` launched with `geometry`
  // (after lower_persistent_grid; a grid lowered further at launch needs no more), 0 for none. Pure. The default: 0.
  virtual std::size_t workspace_bytes(const Params& params, const GemmProblem& problem,
                                      const LaunchGeometry& geometry) const;

  // Appends the kernel's arguments for one problem. The default pushes (A, B, C, M, N, K) as
  // (const __half*, const __half*, float*, int, int, int). Throws mpgemm::Error when the buffers are unusable
  // (e.g. a cp.async source not 16-byte aligned).
  virtual void append_problem_args(const Params& params, const ProblemBuffers& buffers, const DriverFunctions& driver,
                                   KernelArgs& args) const;
};

// The registered families, looked up by name. Throws mpgemm::Error listing the known names when there is none.
const Family& family(std::string_view name);
std::vector<std::string_view> family_names();

// Adds a family from outside registry.cpp, for test-only families (tests/families, linked into the tools when the
// CMake option MPGEMM_TEST_FAMILIES is on): they call it from a static initializer. Production families are listed
// in registry.cpp instead. Throws mpgemm::Error when a family of that name is already registered (from a static
// initializer that ends the program: two families with one name is a build mistake).
void register_family(std::unique_ptr<const Family> family);

}  // namespace mpgemm
