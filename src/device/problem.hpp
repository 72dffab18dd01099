#pragma once
// One problem on the device: A and B (and C when the kind reads it) filled from the seed, the candidate's output D,
// the reference result (FP32, kept on the device and on the host for comparisons) and cuBLAS's time on it.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <cublas_v2.h>

#include "codegen/family.hpp"
#include "common/records.hpp"
#include "common/types.hpp"
#include "device/session.hpp"

namespace mpgemm {

// cudaMalloc'd bytes, freed on destruction.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // Throws CudaError naming `what` and `bytes` (and the device's free memory) when the allocation fails.
  DeviceBuffer(std::size_t bytes, const std::string& what);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// One cublasGemmEx of `problem` into `d` of type `out` on the handle's stream, reading C from `d` itself when beta
// != 0: FP32 compute, the kind's types and layouts. Row-major D = A * B is column-major D^T = B^T * A^T: cuBLAS's
// first operand is our B, its second our A; a kn B (column-major N x K) is op N with leading dimension N, an nk B
// (column-major K x N) op T with K; an mk A (column-major K x M) op N with K, a km A op T with M; D^T is N x M,
// leading dimension N. The reference of every kind (ProblemContext) and the library's vendor path (src/lib) both
// call it. Throws CublasError.
void cublas_gemm_ex(cublasHandle_t handle, const GemmProblem& problem, const void* a, const void* b, void* d,
                    ElementType out, float alpha, float beta);

class ProblemContext {
 public:
  // Allocates A, B, D and cuBLAS's output (and C when the kind reads it, the bias when it has an epilogue), fills A
  // (stream 0 of `seed`) and B (stream 1) on the host with values uniform in [-1, 1] of the kind's input type (on
  // all its cores: fill_random_16bit), C (stream 2) and the bias (stream 3) likewise in the output type, uploads
  // them and computes the reference with cublasGemmEx in FP32 (alpha * A.B + beta * C from the same values: what
  // the kernel computes before its one rounding to the output type), then the epilogue on the host
  // (apply_epilogue_reference). The default kind's values and reference are what they were before kinds. Throws
  // mpgemm::Error for a shape outside 1..INT_MAX or a kind without a reference (ProblemKind::reference_gap),
  // CudaError naming the sizes when the device memory is short, CublasError.
  ProblemContext(DeviceSession& session, const GemmProblem& problem, std::uint64_t seed, float alpha = 1,
                 float beta = 0);
  ProblemContext(DeviceSession& session, const Shape& shape, std::uint64_t seed)
      : ProblemContext(session, GemmProblem{shape, ProblemKind{}}, seed) {}

  const Shape& shape() const { return problem_.shape; }
  const GemmProblem& problem() const { return problem_; }
  const ProblemKind& kind() const { return problem_.kind; }
  float alpha() const { return alpha_; }
  float beta() const { return beta_; }
  std::uint64_t seed() const { return seed_; }
  ProblemBuffers buffers() const;  // device pointers, for the kernels' arguments
  // The reference D, M x N row-major FP32, downloaded at the first call (a tuner compares on the GPU and never
  // needs it).
  std::span<const float> reference();

  // cuBLAS under the timing protocol (it writes its own output buffer, never C).
  TimingStats time_cublas(int warmup, int runs, int iters);
  // The same in an L2 mode (cold: the session's flusher between launches), with warm batches enqueued as asked
  // (a graph that cannot be captured: from the host; the timing says which).
  TimingStats time_cublas(int warmup, int runs, int iters, L2Mode l2, BatchEnqueue batches = BatchEnqueue::stream);
  // One cublasGemmEx on the problem (the kind's types, layouts, alpha and beta) into cuBLAS's own output buffer,
  // enqueued on the session's stream.
  void run_cublas();
  // Untimed cuBLAS launches until `ms` of wall time have passed (none for 0), so what is timed next meets the
  // clock that sustained load holds; returns the wall time they took (ms).
  double settle_with_cublas(int ms);
  // `launches` untimed cuBLAS launches, then a wait for them.
  void run_cublas_untimed(int launches);

  // Makes the workspace (ProblemBuffers::workspace) at least `bytes` long: one of at least twice the size, its flags
  // zeroed, from now on; the smaller ones stay alive (poison_output zeroes their flags too), since kernels prepared
  // earlier keep their pointers. Waits for the stream.
  void reserve_workspace(std::size_t bytes);
  // Fills D with 0xFF bytes (a NaN in every FP32, FP16 and BF16 element) on the session's stream.
  void poison_output();
  // Waits for the stream and copies D to the host, each element widened exactly to float.
  std::vector<float> download_output();
  // D compared with the reference (measure/stats.hpp compare()) with the tolerance widened by D's one rounding
  // (output_tolerance): on the GPU with the session's comparison kernel, or, where it is not available, downloaded
  // and compared on the host. Waits for the stream.
  ErrorStats compare_output(double atol, double rtol);
  std::size_t output_elements() const {
    return static_cast<std::size_t>(shape().m) * static_cast<std::size_t>(shape().n);
  }
  // The device memory it holds (bytes): inputs, outputs, the reference's copy and the workspace.
  std::size_t device_bytes() const {
    return a_.bytes() + b_.bytes() + c_.bytes() + c_in_.bytes() + c_in_fp32_.bytes() + c_ref_.bytes() +
           reference_device_.bytes() + workspace_.bytes() + retired_workspace_bytes_ + bias_.bytes();
  }

 private:
  void compute_reference();

  DeviceSession& session_;
  GemmProblem problem_;
  std::uint64_t seed_;
  float alpha_ = 1, beta_ = 0;
  DeviceBuffer a_, b_, c_, c_ref_;
  DeviceBuffer c_in_;               // C as the kernels read it (the output type), when the kind reads C
  DeviceBuffer c_in_fp32_;          // the same values in FP32, for the reference, when C is read and D is 16-bit
  DeviceBuffer reference_device_;   // the FP32 reference, computed at construction: run_cublas() rewrites c_ref_
  DeviceBuffer workspace_;          // kWorkspaceBytes or more, zeroed (ProblemBuffers::workspace)
  DeviceBuffer bias_;               // the bias (N values of the output type), when the kind has an epilogue
  std::vector<float> bias_values_;  // the same values widened, for the reference
  std::vector<DeviceBuffer> retired_workspaces_;  // smaller ones that earlier kernels' arguments still point to
  std::size_t retired_workspace_bytes_ = 0;
  std::vector<float> reference_;  // reference_device_ on the host, once reference() asked for it
};

}  // namespace mpgemm
