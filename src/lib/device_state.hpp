#pragma once
// What the library keeps per CUDA device: the device's description, each (kind, shape)'s dispatch (decided, compiled
// and loaded once: a ShapeSlot), the loaded modules (one per cubin, shared by the shapes whose winner it is) and per
// stream a zeroed split-K workspace and a cuBLAS handle. Slots and stream states are never removed or moved while
// the DeviceState lives, so the per-call path may keep pointers to them.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "codegen/family.hpp"
#include "common/device.hpp"
#include "compile/cubin_cache.hpp"
#include "device/device_info.hpp"
#include "device/driver_api.hpp"
#include "device/kernel.hpp"
#include "device/problem.hpp"
#include "lib/winner_table.hpp"
#include "mpgemm/gemm.hpp"

namespace mpgemm::lib {

// One problem (kind and shape) on one device, ready to launch.
struct ShapeSlot {
  GemmProblem problem;
  Dispatch dispatch;
  const LoadedKernel* kernel = nullptr;  // null: the cuBLAS path
  LaunchGeometry geometry;               // fitted to the device (a persistent grid lowered)
  const Family* family = nullptr;        // the winner's family (with `params`, builds the kernel's arguments)
  const ShapeWinner* winner = nullptr;   // in the Library's WinnerTable
  std::size_t workspace_bytes = 0;       // zeroed workspace its launch needs (Family::workspace_bytes), 0: none
};

// Per (device, stream): split-K's workspace (kWorkspaceBytes of flags, zeroed on that stream before its first use;
// each kernel leaves them zero), grown when a kernel needs more (a 16-bit D's split-K partial sums after the flags,
// which need no zeroing: a new buffer of at least twice the size, its flags zeroed on the stream; the smaller ones
// stay alive, since calls prepared earlier keep their pointers), and a cuBLAS handle bound to the stream, made at its
// first cuBLAS call.
struct StreamState {
  cudaStream_t stream = nullptr;
  // A workspace of at least `bytes` for a launch on this stream, its flags zeroed (made as above): its address and
  // size, read under the lock. Throws CudaError.
  struct Workspace {
    void* data = nullptr;
    std::size_t bytes = 0;
  };
  Workspace workspace_for(std::size_t bytes);
  DeviceBuffer workspace;
  std::vector<DeviceBuffer> smaller_workspaces;
  std::mutex workspace_mutex;
  std::once_flag cublas_once;
  cublasHandle_t cublas = nullptr;
  ~StreamState();
};

struct LibraryOptions {
  double min_ratio = 1.0;
  bool allow_cublas = true;
  bool allow_compile = true;
};

class DeviceState {
 public:
  // Queries the device, makes its primary context current on this thread and resolves the driver entry points.
  // Throws NoDeviceError, CudaError.
  DeviceState(int ordinal, const WinnerTable& table, const CubinCache& cache, const LibraryOptions& options);
  DeviceState(const DeviceState&) = delete;
  DeviceState& operator=(const DeviceState&) = delete;

  int ordinal() const { return info_.ordinal; }
  const DeviceDescription& description() const { return description_; }
  const DriverApi& driver() const { return *driver_; }

  // The policy's decision for `problem` (lib/plan.hpp plan_call with this device's description), without compiling
  // or loading (Dispatch::compiled false).
  Dispatch plan(const GemmProblem& problem) const;

  // The problem's slot: decided, compiled and loaded at the first call (one at a time per device), shared by every
  // later one. Throws GemmError (no_tuned_config, compile_failed, load_failed).
  const ShapeSlot& slot(const GemmProblem& problem);

  // The vendor path for `problem`, for a call whose pointers its tuned kernel cannot take (`why`: one not 16-byte
  // aligned, as TMA and the kernels' vector accesses need), made at its first use. Throws GemmError(launch_failed)
  // saying `why` when the vendor path cannot compute the kind or Options::allow_cublas is false.
  const ShapeSlot& vendor_slot(const GemmProblem& problem, const std::string& why);

  // The stream's state, made at its first use (the workspace zeroed with cudaMemsetAsync on the stream). Throws
  // GemmError(cuda_failed).
  StreamState& stream_state(cudaStream_t stream);
  // The stream's cuBLAS handle, made at the first call. Throws GemmError(cublas_failed).
  cublasHandle_t cublas(StreamState& state);

 private:
  std::unique_ptr<ShapeSlot> build_slot(const GemmProblem& problem);
  LoadedKernel& module_for(const ShapeWinner& winner, bool* compiled);

  struct ProblemHash {
    std::size_t operator()(const GemmProblem& p) const;
  };

  DeviceInfo info_;
  DeviceDescription description_;
  const DriverApi* driver_ = nullptr;
  const WinnerTable& table_;
  const CubinCache& cache_;
  LibraryOptions options_;

  std::shared_mutex slots_mutex_;  // guards slots_ (lookups shared, inserts exclusive)
  std::unordered_map<GemmProblem, std::unique_ptr<ShapeSlot>, ProblemHash> slots_;
  std::unordered_map<GemmProblem, std::unique_ptr<ShapeSlot>, ProblemHash> vendor_slots_;  // also slots_mutex_
  std::mutex build_mutex_;  // one slot built at a time; guards modules_ and configured_smem_
  std::map<std::string, std::unique_ptr<LoadedKernel>> modules_;  // by compile key
  std::map<const LoadedKernel*, std::uint32_t> configured_smem_;  // the dynamic shared memory opted in (bytes)

  std::mutex streams_mutex_;
  std::unordered_map<cudaStream_t, std::unique_ptr<StreamState>> streams_;
};

}  // namespace mpgemm::lib
