#pragma once
// Checked CUDA calls. Every runtime, driver and cuBLAS return code goes through one of these; a failure throws the
// layer's typed error carrying the code (for classification) and the call site (for people).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "common/error.hpp"

namespace mpgemm {

// A driver-API call failed. code() is the CUresult, so it can be told apart from runtime (cudaError_t) failures,
// which throw plain CudaError.
class DriverError : public CudaError {
 public:
  DriverError(std::string call, CUresult code, std::string detail)
      : CudaError(std::move(call), static_cast<int>(code), std::move(detail)) {}
  CUresult result() const { return static_cast<CUresult>(code()); }
};

// "cudaErrorMemoryAllocation: out of memory".
std::string describe(cudaError_t error);

// Throws CudaError(call, error, describe(error) + context) unless error is cudaSuccess. Clears the runtime's last
// error first, so a refused call does not resurface at the next cudaGetLastError.
void check_cuda(cudaError_t error, std::string_view call, std::string_view context = {});

// Throws DriverError unless result is CUDA_SUCCESS; the detail names the CUresult (e.g. CUDA_ERROR_INVALID_IMAGE).
void check_cu(CUresult result, std::string_view call, std::string_view context = {});

// Throws CublasError unless status is CUBLAS_STATUS_SUCCESS.
void check_cublas(cublasStatus_t status, std::string_view call);

// The current device's memory (cudaMemGetInfo); nullopt when it cannot be read, its error not left pending.
struct DeviceMemory {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
};
std::optional<DeviceMemory> device_memory();

}  // namespace mpgemm

// Checked calls that name the failing expression and its source line.
#define MPGEMM_CUDA(expr) ::mpgemm::check_cuda((expr), #expr, ::mpgemm::detail_site(__FILE__, __LINE__))
#define MPGEMM_CU(expr) ::mpgemm::check_cu((expr), #expr, ::mpgemm::detail_site(__FILE__, __LINE__))
#define MPGEMM_CUBLAS(expr) ::mpgemm::check_cublas((expr), #expr)

namespace mpgemm {
std::string detail_site(const char* file, int line);  // " (at problem.cpp:42)"
}  // namespace mpgemm
