#pragma once
// The library's cuBLAS path: mpgemm's problem (row-major, FP16 in, FP32 out) as cublasGemmEx computes it for the
// references (device/problem.cpp): C^T = B^T * A^T in column-major, CUBLAS_COMPUTE_32F, tensor-op default.
#include <cublas_v2.h>

#include "common/types.hpp"

namespace mpgemm::lib {

// Enqueues C = A * B with `handle` on the stream the handle is bound to. Throws CublasError.
void cublas_gemm(cublasHandle_t handle, const void* a, const void* b, float* c, const Shape& shape);

}  // namespace mpgemm::lib
