// measure/fault.hpp lists error codes as plain ints so it can stay CPU-only; this checks them against the
// toolkit's enums at compile time.
#include <algorithm>

#include <cuda.h>
#include <driver_types.h>

#include "measure/fault.hpp"

namespace mpgemm {
namespace {

template <std::size_t N>
constexpr bool has(const std::array<int, N>& codes, int code) {
  return std::find(codes.begin(), codes.end(), code) != codes.end();
}

static_assert(cu_result::success == CUDA_SUCCESS && cuda_error::success == cudaSuccess);

static_assert(has(cu_result::launch_refused, CUDA_ERROR_INVALID_VALUE));
static_assert(has(cu_result::launch_refused, CUDA_ERROR_OUT_OF_MEMORY));
static_assert(has(cu_result::launch_refused, CUDA_ERROR_INVALID_IMAGE));
static_assert(has(cu_result::launch_refused, CUDA_ERROR_NO_BINARY_FOR_GPU));
static_assert(has(cu_result::launch_refused, CUDA_ERROR_INVALID_PTX));
static_assert(has(cu_result::launch_refused, CUDA_ERROR_JIT_COMPILER_NOT_FOUND));
static_assert(has(cu_result::launch_refused, CUDA_ERROR_UNSUPPORTED_PTX_VERSION));
static_assert(has(cu_result::launch_refused, CUDA_ERROR_JIT_COMPILATION_DISABLED));
static_assert(has(cu_result::launch_refused, CUDA_ERROR_INVALID_HANDLE));
static_assert(has(cu_result::launch_refused, CUDA_ERROR_NOT_FOUND));
static_assert(has(cu_result::launch_refused, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES));
static_assert(has(cu_result::launch_refused, CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE));
static_assert(has(cu_result::launch_refused, CUDA_ERROR_NOT_SUPPORTED));
static_assert(has(cu_result::launch_refused, CUDA_ERROR_INVALID_CLUSTER_SIZE));
static_assert(has(cu_result::launch_refused, CUDA_ERROR_FUNCTION_NOT_LOADED));
static_assert(cu_result::launch_refused.size() == 15);

static_assert(has(cu_result::context_lost, CUDA_ERROR_ECC_UNCORRECTABLE));
static_assert(has(cu_result::context_lost, CUDA_ERROR_NVLINK_UNCORRECTABLE));
static_assert(has(cu_result::context_lost, CUDA_ERROR_CONTAINED));
static_assert(has(cu_result::context_lost, CUDA_ERROR_ILLEGAL_ADDRESS));
static_assert(has(cu_result::context_lost, CUDA_ERROR_LAUNCH_TIMEOUT));
static_assert(has(cu_result::context_lost, CUDA_ERROR_CONTEXT_IS_DESTROYED));
static_assert(has(cu_result::context_lost, CUDA_ERROR_ASSERT));
static_assert(has(cu_result::context_lost, CUDA_ERROR_HARDWARE_STACK_ERROR));
static_assert(has(cu_result::context_lost, CUDA_ERROR_ILLEGAL_INSTRUCTION));
static_assert(has(cu_result::context_lost, CUDA_ERROR_MISALIGNED_ADDRESS));
static_assert(has(cu_result::context_lost, CUDA_ERROR_INVALID_ADDRESS_SPACE));
static_assert(has(cu_result::context_lost, CUDA_ERROR_INVALID_PC));
static_assert(has(cu_result::context_lost, CUDA_ERROR_LAUNCH_FAILED));
static_assert(has(cu_result::context_lost, CUDA_ERROR_TENSOR_MEMORY_LEAK));
static_assert(cu_result::context_lost.size() == 14);

static_assert(has(cuda_error::launch_refused, cudaErrorInvalidValue));
static_assert(has(cuda_error::launch_refused, cudaErrorMemoryAllocation));
static_assert(has(cuda_error::launch_refused, cudaErrorInvalidConfiguration));
static_assert(has(cuda_error::launch_refused, cudaErrorInvalidDeviceFunction));
static_assert(has(cuda_error::launch_refused, cudaErrorInvalidKernelImage));
static_assert(has(cuda_error::launch_refused, cudaErrorNoKernelImageForDevice));
static_assert(has(cuda_error::launch_refused, cudaErrorInvalidPtx));
static_assert(has(cuda_error::launch_refused, cudaErrorJitCompilerNotFound));
static_assert(has(cuda_error::launch_refused, cudaErrorUnsupportedPtxVersion));
static_assert(has(cuda_error::launch_refused, cudaErrorInvalidResourceHandle));
static_assert(has(cuda_error::launch_refused, cudaErrorSymbolNotFound));
static_assert(has(cuda_error::launch_refused, cudaErrorLaunchOutOfResources));
static_assert(has(cuda_error::launch_refused, cudaErrorCooperativeLaunchTooLarge));
static_assert(has(cuda_error::launch_refused, cudaErrorNotSupported));
static_assert(has(cuda_error::launch_refused, cudaErrorInvalidClusterSize));
static_assert(has(cuda_error::launch_refused, cudaErrorFunctionNotLoaded));
static_assert(cuda_error::launch_refused.size() == 16);

static_assert(has(cuda_error::context_lost, cudaErrorECCUncorrectable));
static_assert(has(cuda_error::context_lost, cudaErrorNvlinkUncorrectable));
static_assert(has(cuda_error::context_lost, cudaErrorContained));
static_assert(has(cuda_error::context_lost, cudaErrorIllegalAddress));
static_assert(has(cuda_error::context_lost, cudaErrorLaunchTimeout));
static_assert(has(cuda_error::context_lost, cudaErrorContextIsDestroyed));
static_assert(has(cuda_error::context_lost, cudaErrorAssert));
static_assert(has(cuda_error::context_lost, cudaErrorHardwareStackError));
static_assert(has(cuda_error::context_lost, cudaErrorIllegalInstruction));
static_assert(has(cuda_error::context_lost, cudaErrorMisalignedAddress));
static_assert(has(cuda_error::context_lost, cudaErrorInvalidAddressSpace));
static_assert(has(cuda_error::context_lost, cudaErrorInvalidPc));
static_assert(has(cuda_error::context_lost, cudaErrorLaunchFailure));
static_assert(has(cuda_error::context_lost, cudaErrorTensorMemoryLeak));
static_assert(cuda_error::context_lost.size() == 14);

}  // namespace
}  // namespace mpgemm
