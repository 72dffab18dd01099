#include "lib/cublas_path.hpp"

#include <fmt/format.h>

#include "device/cuda_check.hpp"
#include "device/problem.hpp"

namespace mpgemm::lib {

std::optional<std::string> vendor_gap(const ProblemKind& kind) {
  if (auto gap = kind.reference_gap()) return gap;
  if (kind.has_bias())
    return fmt::format("{} fuses the {} epilogue, which the library's vendor path (cublasGemmEx) does not compute",
                       kind.name(), to_string(kind.epilogue));
  return std::nullopt;
}

void cublas_gemm(cublasHandle_t handle, cudaStream_t stream, const GemmProblem& problem, const void* a, const void* b,
                 void* d, const void* c, float alpha, float beta) {
  const ProblemKind& kind = problem.kind;
  if (!kind.beta) beta = 0.0f;  // a kind without C reads none
  if (beta != 0.0f && c != d) {
    const auto bytes = static_cast<std::size_t>(problem.shape.m) * static_cast<std::size_t>(problem.shape.n) *
                       static_cast<std::size_t>(bytes_of(kind.out));
    MPGEMM_CUDA(cudaMemcpyAsync(d, c, bytes, cudaMemcpyDeviceToDevice, stream));
  }
  cublas_gemm_ex(handle, problem, a, b, d, kind.out, alpha, beta);
}

}  // namespace mpgemm::lib
