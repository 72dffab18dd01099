#include "device/session.hpp"

#include <cstdio>

#include <fmt/format.h>

#include "device/cuda_check.hpp"
#include "device/device_compare.hpp"
#include "device/query.hpp"
#include "device/timing.hpp"

namespace mpgemm {

DeviceSession::DeviceSession(int ordinal) : info_(query_device(ordinal)) {
  try {
    MPGEMM_CUDA(cudaSetDevice(ordinal));
    MPGEMM_CUDA(cudaFree(nullptr));  // creates the primary context now, and makes it current for the driver API
    driver_ = &driver_api();
    MPGEMM_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    MPGEMM_CUBLAS(cublasCreate(&cublas_));
    MPGEMM_CUBLAS(cublasSetStream(cublas_, stream_));
  } catch (...) {
    release();
    throw;
  }
}

DeviceSession::~DeviceSession() {
  release();
}

const L2Flusher& DeviceSession::l2_flusher() {
  if (!l2_flusher_) l2_flusher_ = std::make_unique<L2Flusher>(info_.l2_bytes);
  return *l2_flusher_;
}

DeviceCompare* DeviceSession::device_compare() {
  if (device_compare_tried_) return device_compare_.get();
  device_compare_tried_ = true;
  try {
    device_compare_ = std::make_unique<DeviceCompare>(*driver_, info_.arch, info_.sm_count);
  } catch (const CudaError&) {
    throw;  // the device itself failed: not a reason to fall back
  } catch (const Error& e) {
    compare_fallback_reason_ = e.what();
    fmt::print(stderr, "comparing on the host: the comparison kernel is not available: {}\n", e.what());
  }
  return device_compare_.get();
}

void DeviceSession::release() noexcept {
  device_compare_.reset();
  l2_flusher_.reset();
  // Teardown after a sticky fault fails; nothing can be done about it, and process exit frees it all.
  if (cublas_) (void)cublasDestroy(cublas_);
  if (stream_) (void)cudaStreamDestroy(stream_);
  cublas_ = nullptr;
  stream_ = nullptr;
}

}  // namespace mpgemm
