#include "lib/cublas_path.hpp"

#include "device/cuda_check.hpp"

namespace mpgemm::lib {

void cublas_gemm(cublasHandle_t handle, const void* a, const void* b, float* c, const Shape& shape) {
  const float alpha = 1.0f, beta = 0.0f;
  const int m = static_cast<int>(shape.m);
  const int n = static_cast<int>(shape.n);
  const int k = static_cast<int>(shape.k);
  const cublasStatus_t status =
      cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b, CUDA_R_16F, n, a, CUDA_R_16F, k, &beta, c,
                   CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP);
  if (status != CUBLAS_STATUS_SUCCESS) check_cublas(status, "cublasGemmEx");
}

}  // namespace mpgemm::lib
