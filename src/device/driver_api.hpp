#pragma once
// The driver entry points mpgemm uses, reached through the runtime (cudaGetDriverEntryPointByVersion) so that no
// binary links libcuda: everything starts on a machine without a driver and reports "no device" there.
#include <string>

#include <cuda.h>
#include <cudaTypedefs.h>

namespace mpgemm {

struct DriverApi {
  PFN_cuGetErrorName_v6000 get_error_name = nullptr;
  PFN_cuGetErrorString_v6000 get_error_string = nullptr;
  PFN_cuModuleLoadData_v2000 module_load_data = nullptr;
  PFN_cuModuleUnload_v2000 module_unload = nullptr;
  PFN_cuModuleGetFunction_v2000 module_get_function = nullptr;
  PFN_cuFuncGetAttribute_v2020 func_get_attribute = nullptr;
  PFN_cuFuncSetAttribute_v9000 func_set_attribute = nullptr;
  PFN_cuLaunchKernelEx_v11060 launch_kernel_ex = nullptr;
  PFN_cuOccupancyMaxActiveClusters_v11070 occupancy_max_active_clusters = nullptr;
  PFN_cuOccupancyMaxActiveBlocksPerMultiprocessor_v6050 occupancy_max_active_blocks_per_sm = nullptr;
  PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encode_tiled = nullptr;  // null where the driver lacks it

  // "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered"; "CUresult 12345" for unknown codes.
  std::string describe(CUresult result) const;
};

// The entry points, resolved once per process. Throws NoDeviceError when there is no driver, CudaError when the
// driver lacks a required entry point (too old). A failed attempt is retried at the next call.
const DriverApi& driver_api();

// The CUDA version whose ABI of each entry point mpgemm was written against (the PFN_*_v* types above).
constexpr unsigned kDriverApiVersion = 12000;

}  // namespace mpgemm
