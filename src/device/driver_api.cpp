#include "device/driver_api.hpp"

#include <mutex>
#include <optional>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "common/error.hpp"
#include "device/cuda_check.hpp"

namespace mpgemm {

std::string DriverApi::describe(CUresult result) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (get_error_name == nullptr || get_error_name(result, &name) != CUDA_SUCCESS || name == nullptr)
    return fmt::format("CUresult {}", static_cast<int>(result));
  if (get_error_string == nullptr || get_error_string(result, &text) != CUDA_SUCCESS || text == nullptr) return name;
  return fmt::format("{}: {}", name, text);
}

namespace {

template <class Fn>
void resolve(const char* symbol, Fn& out, bool required) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult query = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t error = cudaGetDriverEntryPointByVersion(symbol, &fn, kDriverApiVersion, cudaEnableDefault, &query);
  if (error == cudaErrorInsufficientDriver || error == cudaErrorNoDevice || error == cudaErrorStubLibrary) {
    (void)cudaGetLastError();
    throw NoDeviceError(
        fmt::format("no CUDA driver: cudaGetDriverEntryPointByVersion({}) returned {}", symbol, describe(error)));
  }
  check_cuda(error, "cudaGetDriverEntryPointByVersion", fmt::format(" for {}", symbol));
  if (query != cudaDriverEntryPointSuccess || fn == nullptr) {
    if (!required) return;
    throw CudaError("cudaGetDriverEntryPointByVersion", static_cast<int>(error),
                    fmt::format("the driver has no {} for CUDA {} (query result {}): update the driver", symbol,
                                kDriverApiVersion, static_cast<int>(query)));
  }
  out = reinterpret_cast<Fn>(fn);
}

DriverApi load() {
  DriverApi api;
  resolve("cuGetErrorName", api.get_error_name, true);
  resolve("cuGetErrorString", api.get_error_string, true);
  resolve("cuModuleLoadData", api.module_load_data, true);
  resolve("cuModuleUnload", api.module_unload, true);
  resolve("cuModuleGetFunction", api.module_get_function, true);
  resolve("cuFuncGetAttribute", api.func_get_attribute, true);
  resolve("cuFuncSetAttribute", api.func_set_attribute, true);
  resolve("cuLaunchKernelEx", api.launch_kernel_ex, true);
  resolve("cuOccupancyMaxActiveClusters", api.occupancy_max_active_clusters, true);
  resolve("cuOccupancyMaxActiveBlocksPerMultiprocessor", api.occupancy_max_active_blocks_per_sm, true);
  resolve("cuTensorMapEncodeTiled", api.tensor_map_encode_tiled, false);
  return api;
}

}  // namespace

const DriverApi& driver_api() {
  static std::mutex mutex;
  static std::optional<DriverApi> api;
  std::lock_guard lock(mutex);
  if (!api) api = load();  // throws, leaving api empty for a later retry
  return *api;
}

}  // namespace mpgemm
