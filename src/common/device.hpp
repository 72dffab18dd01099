#pragma once
// The device a run measures on (or, in compile-only mode, the target it compiles for), as the coordinator, the
// result keys and the kernel families see it. Plain data: no CUDA headers.
#include <optional>
#include <string>

#include "common/types.hpp"

namespace mpgemm {

// Which GPU of a host: what a measurement records of where it ran. Not in result keys: two GPUs of one model give
// the same results, so a pair measured on either is measured.
struct GpuIdentity {
  std::string uuid;  // cudaDeviceProp::uuid as "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
  int ordinal = 0;   // CUDA ordinal in the measuring process (after CUDA_VISIBLE_DEVICES)
};

// What identifies the measuring device in the database and in result keys, and what a family may ask of it
// (Family::check_device, Family::launch_geometry). A field that is 0 or empty is unknown.
struct DeviceDescription {
  std::string name;                // "NVIDIA H200"
  Arch arch;                       // compute capability as an arch (sm_90)
  int sm_count = 0;                // multiprocessors
  int smem_per_block_optin = 0;    // bytes of shared memory a block may opt in to; 0 when unknown. Not in result keys:
                                   // it follows from the device's name and arch
  std::string driver_version;      // "13.0" (cudaDriverGetVersion), for keys and provenance
  std::string runtime_version;     // CUDA runtime the binaries were built with
  std::string cublas_version;      // e.g. "13.1.0"
  std::optional<GpuIdentity> gpu;  // the GPU itself; none in compile-only runs and replays. Not in result keys
};

}  // namespace mpgemm
