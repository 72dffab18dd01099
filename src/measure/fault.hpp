#pragma once
// What a CUDA error code means for a candidate and for the worker that ran it. Decided from codes only, never from
// message text. Plain ints so this stays CPU-only and unit-tested; src/device static_asserts that the numbers
// below match cuda.h and driver_types.h.
#include <array>

#include "common/types.hpp"

namespace mpgemm {

enum class FaultClass {
  none,            // success
  launch_refused,  // the module or the launch was refused (bad image, bad configuration, out of resources at
                   // launch): nothing ran, the context is intact -> launch_failed
  context_lost,    // a sticky fault (illegal address, trap, illegal instruction, ...): the context is unusable ->
                   // runtime_fault, and the worker must exit after reporting
  unknown,         // any other code: the context cannot be vouched for, so it is treated like context_lost
};

// CUresult values (cuda.h) classified by classify_driver_result.
namespace cu_result {
inline constexpr int success = 0;
inline constexpr std::array launch_refused{
    1,    // CUDA_ERROR_INVALID_VALUE
    2,    // CUDA_ERROR_OUT_OF_MEMORY
    200,  // CUDA_ERROR_INVALID_IMAGE
    209,  // CUDA_ERROR_NO_BINARY_FOR_GPU
    218,  // CUDA_ERROR_INVALID_PTX
    221,  // CUDA_ERROR_JIT_COMPILER_NOT_FOUND
    222,  // CUDA_ERROR_UNSUPPORTED_PTX_VERSION
    223,  // CUDA_ERROR_JIT_COMPILATION_DISABLED
    400,  // CUDA_ERROR_INVALID_HANDLE
    500,  // CUDA_ERROR_NOT_FOUND
    701,  // CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES
    720,  // CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE
    801,  // CUDA_ERROR_NOT_SUPPORTED
    912,  // CUDA_ERROR_INVALID_CLUSTER_SIZE
    913,  // CUDA_ERROR_FUNCTION_NOT_LOADED
};
inline constexpr std::array context_lost{
    214,  // CUDA_ERROR_ECC_UNCORRECTABLE
    220,  // CUDA_ERROR_NVLINK_UNCORRECTABLE
    226,  // CUDA_ERROR_CONTAINED
    700,  // CUDA_ERROR_ILLEGAL_ADDRESS
    702,  // CUDA_ERROR_LAUNCH_TIMEOUT
    709,  // CUDA_ERROR_CONTEXT_IS_DESTROYED
    710,  // CUDA_ERROR_ASSERT (a device-side trap or assert)
    714,  // CUDA_ERROR_HARDWARE_STACK_ERROR
    715,  // CUDA_ERROR_ILLEGAL_INSTRUCTION
    716,  // CUDA_ERROR_MISALIGNED_ADDRESS
    717,  // CUDA_ERROR_INVALID_ADDRESS_SPACE
    718,  // CUDA_ERROR_INVALID_PC
    719,  // CUDA_ERROR_LAUNCH_FAILED
    721,  // CUDA_ERROR_TENSOR_MEMORY_LEAK
};
}  // namespace cu_result

// cudaError_t values (driver_types.h) classified by classify_runtime_error.
namespace cuda_error {
inline constexpr int success = 0;
inline constexpr std::array launch_refused{
    1,    // cudaErrorInvalidValue
    2,    // cudaErrorMemoryAllocation
    9,    // cudaErrorInvalidConfiguration
    98,   // cudaErrorInvalidDeviceFunction
    200,  // cudaErrorInvalidKernelImage
    209,  // cudaErrorNoKernelImageForDevice
    218,  // cudaErrorInvalidPtx
    221,  // cudaErrorJitCompilerNotFound
    222,  // cudaErrorUnsupportedPtxVersion
    400,  // cudaErrorInvalidResourceHandle
    500,  // cudaErrorSymbolNotFound
    701,  // cudaErrorLaunchOutOfResources
    720,  // cudaErrorCooperativeLaunchTooLarge
    801,  // cudaErrorNotSupported
    912,  // cudaErrorInvalidClusterSize
    913,  // cudaErrorFunctionNotLoaded
};
inline constexpr std::array context_lost{
    214,  // cudaErrorECCUncorrectable
    220,  // cudaErrorNvlinkUncorrectable
    226,  // cudaErrorContained
    700,  // cudaErrorIllegalAddress
    702,  // cudaErrorLaunchTimeout
    709,  // cudaErrorContextIsDestroyed
    710,  // cudaErrorAssert
    714,  // cudaErrorHardwareStackError
    715,  // cudaErrorIllegalInstruction
    716,  // cudaErrorMisalignedAddress
    717,  // cudaErrorInvalidAddressSpace
    718,  // cudaErrorInvalidPc
    719,  // cudaErrorLaunchFailure
    721,  // cudaErrorTensorMemoryLeak
};
}  // namespace cuda_error

FaultClass classify_driver_result(int cu_result);
FaultClass classify_runtime_error(int cuda_error);

// ok for none, launch_failed for launch_refused, runtime_fault for context_lost and unknown.
Status status_for(FaultClass fault);

// True when the worker must exit after reporting (context_lost or unknown).
bool context_unusable(FaultClass fault);

}  // namespace mpgemm
