#pragma once
// The WMMA family: kernels/wmma_gemm.cuh, one template whose points include the writeup's wmma_naive,
// wmma_shared and wmma_cp_async. WmmaConfig is the typed view of a point; WmmaFamily maps it to NVRTC and launch.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "codegen/family.hpp"
#include "common/params.hpp"
#include "wmma_choices.cuh"

namespace mpgemm {

// How operand tiles reach the tensor cores; the value is the kernel's LOAD template argument.
enum class WmmaLoad {
  direct = kLoadDirect,     // fragments loaded straight from global memory, no shared memory
  sync = kLoadSync,         // global -> registers -> shared memory, one buffer, __syncthreads between
  cp_async = kLoadCpAsync,  // cp.async.cg 16-byte copies global -> shared into a STAGES-deep ring
};
std::string_view to_string(WmmaLoad load);  // "direct", "sync", "cp_async"
std::optional<WmmaLoad> wmma_load_from_string(std::string_view text);

// One point of the family. Defaults are the writeup's wmma_cp_async.
struct WmmaConfig {
  int bm = 128;                        // block tile rows (of A and C)
  int bn = 64;                         // block tile columns (of B and C)
  int bk = 32;                         // block tile depth: the K slice per main-loop step
  int wm = 32;                         // warp tile rows, a multiple of 16
  int wn = 32;                         // warp tile columns, a multiple of 16
  int stages = 2;                      // shared-memory ring depth: 1 for direct and sync, >= 2 for cp_async
  WmmaLoad load = WmmaLoad::cp_async;  // operand path
  int pad_a = 8;                       // padding of the A tile's rows in shared memory (halves)
  int pad_b = 8;                       // padding of the B tile's rows in shared memory (halves)

  // Reads BM, BN, BK, WM, WN, STAGES, PAD_A, PAD_B (integers) and LOAD ("direct" | "sync" | "cp_async").
  // Throws mpgemm::Error naming a missing or ill-typed parameter. Other keys are ignored. Does not validate.
  static WmmaConfig from_params(const Params& params);
  Params to_params() const;

  // "wmma_cp_async_bm128_bn64_bk32_s2_w32x32_p8x8": every parameter, in a fixed order.
  std::string name() const;
  // "mpgemm::wmma_gemm<128, 64, 32, 32, 32, 2, 2, 8, 8>"
  std::string name_expression() const;
  // Human-readable reasons the kernel template would reject this config; empty when it is buildable.
  std::vector<std::string> problems() const;

  int warps() const { return (bm / wm) * (bn / wn); }  // per block; only meaningful when problems() is empty
  int threads() const { return warps() * 32; }
  // Dynamic shared memory per block (bytes): 0 for direct, else
  // max(STAGES * (BM * (BK + PAD_A) + BK * (BN + PAD_B)) * 2, warps * 16 * 16 * 4). The second term is the
  // epilogue's per-warp float staging tile, which reuses the operand ring.
  std::uint64_t smem_bytes() const;

  friend bool operator==(const WmmaConfig&, const WmmaConfig&) = default;
};

void to_json(nlohmann::json& j, const WmmaConfig& c);    // the Params object: {"BK": 32, "LOAD": "cp_async", ...}
void from_json(const nlohmann::json& j, WmmaConfig& c);  // throws mpgemm::Error like from_params

// Every method but check_config throws mpgemm::Error when the params lack a parameter or hold a bad LOAD.
class WmmaFamily final : public Family {
 public:
  std::string_view name() const override { return "wmma"; }
  std::string_view kernel_file() const override { return "wmma_gemm.cuh"; }
  std::vector<std::string> check_config(const Params& params) const override;
  std::string config_name(const Params& params) const override;
  // Throws mpgemm::Error when check_config finds problems.
  using Family::kernel_spec;
  KernelSpec kernel_spec(const Params& params, const Arch& target, const ProblemKind& kind) const override;
  std::optional<std::string> check_shape(const Params& params, const Shape& shape) const override;
  // WMMA fragments need sm_70 and cp.async sm_80; the device's limits are the worker's to check
  // (resources_exceeded), since the same config may fit another device.
  std::optional<std::string> check_device(const Params& params, const DeviceDescription& device) const override;
  // grid (ceil(N/BN), ceil(M/BM)), block (BM/WM)*(BN/WN)*32, dynamic smem WmmaConfig::smem_bytes(), whatever the
  // device. Throws mpgemm::Error when check_config finds problems.
  LaunchGeometry launch_geometry(const Params& params, const Shape& shape,
                                 const DeviceDescription& device) const override;
  // Checks the alignment the kernel's memory operations need (cp.async and uint4 sources 16 bytes, WMMA global
  // loads and stores 32 bytes), then pushes (A, B, C, M, N, K).
  void append_problem_args(const Params& params, const ProblemBuffers& buffers, const DriverFunctions& driver,
                           KernelArgs& args) const override;
};

}  // namespace mpgemm
