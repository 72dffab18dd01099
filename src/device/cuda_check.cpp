#include "device/cuda_check.hpp"

#include <cstring>

#include <fmt/format.h>

#include "device/driver_api.hpp"

namespace mpgemm {

std::string describe(cudaError_t error) {
  return fmt::format("{}: {}", cudaGetErrorName(error), cudaGetErrorString(error));
}

std::string detail_site(const char* file, int line) {
  const char* slash = std::strrchr(file, '/');
  return fmt::format(" (at {}:{})", slash ? slash + 1 : file, line);
}

std::optional<DeviceMemory> device_memory() {
  DeviceMemory m;
  if (cudaMemGetInfo(&m.free_bytes, &m.total_bytes) == cudaSuccess) return m;
  (void)cudaGetLastError();  // not left pending for the next call that checks for errors
  return std::nullopt;
}

void check_cuda(cudaError_t error, std::string_view call, std::string_view context) {
  if (error == cudaSuccess) return;
  (void)cudaGetLastError();  // a non-sticky error must not be reported again by the next check of the last error
  throw CudaError(std::string(call), static_cast<int>(error), fmt::format("{}{}", describe(error), context));
}

void check_cu(CUresult result, std::string_view call, std::string_view context) {
  if (result == CUDA_SUCCESS) return;
  std::string name = fmt::format("CUresult {}", static_cast<int>(result));
  try {
    name = driver_api().describe(result);
  } catch (const Error&) {
    // Without the driver's names the number is all there is.
  }
  throw DriverError(std::string(call), result, fmt::format("{}{}", name, context));
}

void check_cublas(cublasStatus_t status, std::string_view call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw CublasError(fmt::format("{} ({})", call, cublasGetStatusName(status)), static_cast<int>(status));
}

}  // namespace mpgemm
