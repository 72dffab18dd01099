#pragma once
// cuBLASLt, the second reference next to cublasGemmEx: the fastest of its heuristic's top algorithms for the
// problem, each checked against cuBLAS first and timed with the candidates' protocol. cuBLAS picks one kernel
// per call; cuBLASLt shows what the library has when it may choose among several (and split K, and use a
// workspace).
#include <cublasLt.h>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/records.hpp"
#include "device/problem.hpp"
#include "device/session.hpp"

namespace mpgemm {

// Workspace offered to cuBLASLt's algorithms (bytes), allocated once per session.
inline constexpr std::size_t kCublasLtWorkspaceBytes = std::size_t{64} << 20;
// An algorithm whose screen (one batch) is over this multiple of the fastest screen is not timed in full, unless
// it is among the kCublasLtTimedAtLeast fastest screens.
inline constexpr double kCublasLtScreenBand = 1.1;
inline constexpr std::size_t kCublasLtTimedAtLeast = 3;

// Why cuBLASLt cannot compute `kind` as the kernels do, so that it is not timed for it (a fused epilogue it does not
// have: GELU's erf form); nullopt when it can. A kind with an epilogue it has runs with that epilogue (BIAS,
// RELU_BIAS, GELU_BIAS), its bias in the output type, and is verified like any candidate.
std::optional<std::string> cublaslt_gap(const ProblemKind& kind);

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
  // first) and compares it with the cuBLAS reference (|c - ref| <= atol + rtol*|ref|), screens each that agrees
  // (one untimed launch, one batch of `iters`, enqueued as `batches` asks), times with time_launches the
  // kCublasLtTimedAtLeast fastest screens and any other within kCublasLtScreenBand of the fastest, and keeps the
  // fastest median; the message says how many were timed in full. An algorithm that fails or disagrees is left
  // out and named in the message. The fastest is also kept, with its descriptors, for run_best on any problem of
  // the shape (until the shape is searched again or forgotten). Throws CublasError when the descriptors cannot be
  // made, CudaError when the device fails (the caller decides whether the context survived).
  CublasLtReference best_of_heuristics(ProblemContext& problem, int warmup, int runs, int iters, double atol,
                                       double rtol, BatchEnqueue batches = BatchEnqueue::stream);

  // Whether an algorithm is kept for `problem` (its last best_of_heuristics verified one).
  bool has_best(const GemmProblem& problem) const;
  // Launches the algorithm kept for the problem's shape on `problem`'s buffers, on the session's stream
  // (asynchronous, as ProblemContext::run_cublas): the same call it timed. Throws Error when no algorithm is
  // kept for the problem's shape, CublasError when the launch fails.
  void run_best(ProblemContext& problem);
  // Drops the algorithm kept for `problem`, if any.
  void forget(const GemmProblem& problem);

 private:
  struct Plan;  // the descriptors of one shape, and the algorithm chosen for it
  struct Screened;
  struct Screening;
  // The heuristic's answer: up to kCublasLtHeuristics algorithms, or why there are none.
  struct Heuristics {
    std::array<cublasLtMatmulHeuristicResult_t, kCublasLtHeuristics> results{};
    int returned = 0;
    std::string failure;  // empty: results[0, returned) hold the algorithms
  };

  // The phases of best_of_heuristics: the problem's descriptors; the heuristic's algorithms; each verified and
  // screened; the fastest screens timed in full (the best goes into `out` and the plan); the message.
  std::unique_ptr<Plan> make_plan(const ProblemContext& problem) const;
  Heuristics heuristics(const Plan& plan) const;
  Screening screen(ProblemContext& problem, const Plan& plan, const Heuristics& h, int iters, double atol, double rtol,
                   BatchEnqueue batches);
  int time_screened(const ProblemContext& problem, Plan& plan, const Heuristics& h, Screening& screening, int warmup,
                    int runs, int iters, BatchEnqueue batches, CublasLtReference& out);
  static std::string summary(const CublasLtReference& out, int returned, const Screening& screening, int timed);

  void launch(const Plan& plan, const cublasLtMatmulAlgo_t& algo, std::size_t algo_workspace_bytes,
              const ProblemBuffers& buffers);

  DeviceSession& session_;
  cublasLtHandle_t handle_ = nullptr;
  DeviceBuffer workspace_;
  const Plan* kept(const GemmProblem& problem) const;

  std::vector<std::unique_ptr<Plan>> best_;  // one per shape whose best_of_heuristics verified an algorithm
};

}  // namespace mpgemm
