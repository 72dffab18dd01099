#pragma once
// What the device layer reports to the coordinator. Plain records, no CUDA headers, so the worker protocol and the
// coordinator can use them without the toolkit.
#include <cstdint>
#include <string>

#include "common/records.hpp"
#include "common/types.hpp"
#include "measure/resources.hpp"

namespace mpgemm {

// One GPU as the CUDA runtime sees it, plus the versions of the software that drives it.
struct DeviceInfo {
  int ordinal = 0;                      // CUDA device ordinal (after CUDA_VISIBLE_DEVICES)
  std::string name;                     // e.g. "NVIDIA H200"
  Arch arch;                            // compute capability (arch_specific is false: that is a compile choice)
  std::string pci_bus_id;               // e.g. "0000:41:00.0"
  std::string uuid;                     // cudaDeviceProp::uuid, "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
  int device_count = 0;                 // CUDA devices visible to the process
  int sm_count = 0;                     // multiprocessors
  int max_threads_per_block = 0;        // threads
  int regs_per_block = 0;               // 32-bit registers a block may use
  int regs_per_sm = 0;                  // 32-bit registers per multiprocessor
  int smem_per_block_optin = 0;         // bytes of shared memory a block may opt in to
  int smem_per_sm = 0;                  // bytes of shared memory per multiprocessor
  std::int64_t l2_bytes = 0;            // bytes
  std::int64_t total_memory_bytes = 0;  // bytes of device memory
  int max_sm_clock_mhz = 0;             // peak SM clock (MHz)
  int driver_version = 0;               // CUDA version the driver supports, e.g. 13000
  int runtime_version = 0;              // CUDA runtime linked in, e.g. 13000
  int cublas_version = 0;               // major * 10000 + minor * 100 + patch, e.g. 130100

  DeviceLimits limits() const { return {max_threads_per_block, regs_per_block, smem_per_block_optin}; }
};

// "13.0" for 13000 (the encoding of cudaDriverGetVersion and cudaRuntimeGetVersion).
std::string cuda_version_string(int version);
// "13.1.0" for 130100 (cuBLAS's encoding).
std::string cublas_version_string(int version);

// cuBLAS on one problem: the reference the candidates are compared with, and its time under the same protocol.
struct CublasReference {
  Shape shape;
  std::uint64_t seed = 0;   // the inputs' seed
  TimingStats timing;       // cublasGemmEx, CUBLAS_COMPUTE_32F, tensor-op default algorithm (ms)
  double sm_clock_mhz = 0;  // SM clock read right after timing (MHz); 0 when unknown
};

}  // namespace mpgemm
