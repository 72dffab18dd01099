#pragma once
// cuBLASLt, the second reference next to cublasGemmEx: the fastest of its heuristic's top algorithms for the
// problem, each checked against cuBLAS first and timed with the candidates' protocol. cuBLAS picks one kernel
// per call; cuBLASLt shows what the library has when it may choose among several (and split K, and use a
// workspace).
#include <cublasLt.h>

#include "common/records.hpp"
#include "device/problem.hpp"
#include "device/session.hpp"

namespace mpgemm {

// Workspace offered to cuBLASLt's algorithms (bytes), allocated once per session.
inline constexpr std::size_t kCublasLtWorkspaceBytes = std::size_t{64} << 20;

class CublasLtSession {
 public:
  // Creates the cuBLASLt handle and the workspace. Throws CublasError, CudaError (the workspace's
  // allocation).
  explicit CublasLtSession(DeviceSession& session);
  ~CublasLtSession();
  CublasLtSession(const CublasLtSession&) = delete;
  CublasLtSession& operator=(const CublasLtSession&) = delete;

  // Asks the heuristic for up to kCublasLtHeuristics algorithms for `problem` (the same row-major layout as
  // the cuBLAS reference: C^T = B^T A^T in column-major terms), runs each once into the problem's C (poisoned
  // first) and compares it with the cuBLAS reference (|c - ref| <= atol + rtol*|ref|), times each that agrees
  // with time_launches, and keeps the fastest median. An algorithm that fails or disagrees is left out and
  // named in the message. Throws CublasError when the descriptors cannot be made, CudaError when the device
  // fails (the caller decides whether the context survived).
  CublasLtReference best_of_heuristics(ProblemContext& problem, int warmup, int runs, int iters, double atol,
                                       double rtol);

 private:
  DeviceSession& session_;
  cublasLtHandle_t handle_ = nullptr;
  DeviceBuffer workspace_;
};

}  // namespace mpgemm
