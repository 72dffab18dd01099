#pragma once
// The comparison with cuBLAS on the GPU: the same element-wise rule as measure/stats.cpp compare() (the unit-tested
// reference, which this must equal exactly), run by a small kernel that NVRTC compiles once per process, so a
// verification costs a kernel and a 32-byte copy instead of downloading C (256 MB at 8192^2) and a CPU loop.
// The kernel computes in double like compare(), with FMA contraction off, so every element's verdict and the
// maxima are bit-identical to the host's.
#include <cstddef>
#include <memory>

#include <cuda_runtime_api.h>

#include "codegen/family.hpp"
#include "common/records.hpp"
#include "common/types.hpp"
#include "device/driver_api.hpp"
#include "device/kernel.hpp"

namespace mpgemm {

// What NVRTC is given for the comparison kernel on `arch` (its generic variant: no arch-specific features).
KernelSpec device_compare_spec(const Arch& arch);

class DeviceCompare {
 public:
  // Compiles the kernel for `arch` with NVRTC and loads it. Throws NvrtcError / mpgemm::Error when it does not
  // compile (the caller then compares on the host), DriverError when it cannot be loaded, CudaError.
  DeviceCompare(const DriverApi& api, const Arch& arch, int sm_count);
  ~DeviceCompare();
  DeviceCompare(const DeviceCompare&) = delete;
  DeviceCompare& operator=(const DeviceCompare&) = delete;

  // compare(out, ref, atol, rtol) over `count` floats at device addresses `out` and `ref`, on `stream`; waits for
  // the stream. Throws mpgemm::Error for negative tolerances, CudaError / DriverError when the GPU fails.
  ErrorStats compare(const float* out, const float* ref, std::size_t count, double atol, double rtol,
                     cudaStream_t stream);
  // The same over `count` elements of `out_type` (FP32, FP16 or BF16), each widened exactly to float.
  ErrorStats compare(const void* out, ElementType out_type, const float* ref, std::size_t count, double atol,
                     double rtol, cudaStream_t stream);

 private:
  std::vector<char> cubin_;
  std::unique_ptr<LoadedKernel> kernel_;
  int sm_count_ = 0;
  void* result_ = nullptr;  // 4 x uint64 on the device: max_abs bits, max_rel bits, bad_count, nan_count
};

}  // namespace mpgemm
