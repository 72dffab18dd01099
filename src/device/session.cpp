#include "device/session.hpp"

#include "device/cuda_check.hpp"
#include "device/query.hpp"

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

DeviceSession::~DeviceSession() { release(); }

void DeviceSession::release() noexcept {
  // Teardown after a sticky fault fails; nothing can be done about it, and process exit frees it all.
  if (cublas_) (void)cublasDestroy(cublas_);
  if (stream_) (void)cudaStreamDestroy(stream_);
  cublas_ = nullptr;
  stream_ = nullptr;
}

}  // namespace mpgemm
