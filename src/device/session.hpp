#pragma once
// One process's hold on one GPU: the device made current, a stream every launch and copy goes through, a cuBLAS
// handle bound to it, and the driver entry points. The worker creates one at hello and keeps it until it exits.
#include <memory>
#include <string>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "device/device_info.hpp"
#include "device/driver_api.hpp"

namespace mpgemm {

class DeviceCompare;
class L2Flusher;

class DeviceSession {
 public:
  // Throws NoDeviceError without a usable device, CudaError / CublasError when setting it up fails.
  explicit DeviceSession(int ordinal = 0);
  ~DeviceSession();
  DeviceSession(const DeviceSession&) = delete;
  DeviceSession& operator=(const DeviceSession&) = delete;

  const DeviceInfo& info() const { return info_; }
  const DriverApi& driver() const { return *driver_; }
  cudaStream_t stream() const { return stream_; }
  cublasHandle_t cublas() const { return cublas_; }

  // The buffer that cold-L2 timing writes between launches (twice the L2 size), allocated at the first call.
  // Throws CudaError when the allocation fails.
  const L2Flusher& l2_flusher();
  // The comparison kernel (device/device_compare.hpp), compiled at the first call; nullptr when NVRTC cannot build
  // it here (then compare on the host: compare_fallback_reason() says why, once logged by the caller).
  DeviceCompare* device_compare();
  const std::string& compare_fallback_reason() const { return compare_fallback_reason_; }

 private:
  void release() noexcept;

  DeviceInfo info_;
  const DriverApi* driver_ = nullptr;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  std::unique_ptr<L2Flusher> l2_flusher_;
  std::unique_ptr<DeviceCompare> device_compare_;
  bool device_compare_tried_ = false;
  std::string compare_fallback_reason_;
};

}  // namespace mpgemm
