#pragma once
// The library's vendor path: a problem of any kind cuBLAS computes, with the kind's transposes and types, FP32
// compute, alpha and beta, through the very call the references make (device/problem.hpp cublas_gemm_ex).
#include <optional>
#include <string>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "common/problem_kind.hpp"

namespace mpgemm::lib {

// Enqueues D = alpha * A.B + beta * C with `handle` on `stream` (the stream the handle is bound to). cuBLAS reads C
// from D: when the kind reads C and C is not D, C is first copied into D on the stream. Throws CublasError,
// CudaError.
void cublas_gemm(cublasHandle_t handle, cudaStream_t stream, const GemmProblem& problem, const void* a, const void* b,
                 void* d, const void* c, float alpha, float beta);

// Why the vendor path cannot take `kind`: ProblemKind::reference_gap, or a fused epilogue (cublasGemmEx has none,
// and the library does not yet call cuBLASLt's); nullopt when it can.
std::optional<std::string> vendor_gap(const ProblemKind& kind);

// The default kind, alpha 1, beta 0: C = A * B.
inline void cublas_gemm(cublasHandle_t handle, const void* a, const void* b, float* c, const Shape& shape) {
  cublas_gemm(handle, nullptr, GemmProblem{shape, ProblemKind{}}, a, b, c, nullptr, 1.0f, 0.0f);
}

}  // namespace mpgemm::lib
