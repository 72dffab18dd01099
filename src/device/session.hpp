#pragma once
// One process's hold on one GPU: the device made current, a stream every launch and copy goes through, a cuBLAS
// handle bound to it, and the driver entry points. The worker creates one at hello and keeps it until it exits.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "device/device_info.hpp"
#include "device/driver_api.hpp"

namespace mpgemm {

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

 private:
  void release() noexcept;

  DeviceInfo info_;
  const DriverApi* driver_ = nullptr;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
};

}  // namespace mpgemm
