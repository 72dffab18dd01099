#pragma once
// One problem shape on the device: A and B filled from the seed, the candidate's C, cuBLAS's reference result
// (kept on the device and on the host for comparisons) and cuBLAS's time on it.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

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

class ProblemContext {
 public:
  // Allocates A, B, C and cuBLAS's output, fills A (stream 0 of `seed`) and B (stream 1) on the host with values
  // uniform in [-1, 1] (on all its cores: fill_random_halves), uploads them and computes the reference with
  // cublasGemmEx. Throws mpgemm::Error for a shape outside 1..INT_MAX, CudaError naming the sizes when the device
  // memory is short, CublasError.
  ProblemContext(DeviceSession& session, const Shape& shape, std::uint64_t seed);

  const Shape& shape() const { return shape_; }
  std::uint64_t seed() const { return seed_; }
  ProblemBuffers buffers() const;                                  // device pointers, for the kernels' arguments
  // cuBLAS's C, M x N row-major, downloaded at the first call (a tuner compares on the GPU and never needs it).
  std::span<const float> reference();

  // cuBLAS under the timing protocol (it writes its own output buffer, never C).
  TimingStats time_cublas(int warmup, int runs, int iters);
  // The same in an L2 mode (cold: the session's flusher between launches), with warm batches enqueued as asked
  // (a graph that cannot be captured: from the host; the timing says which).
  TimingStats time_cublas(int warmup, int runs, int iters, L2Mode l2, BatchEnqueue batches = BatchEnqueue::stream);
  // One cublasGemmEx on the problem into cuBLAS's own output buffer, enqueued on the session's stream.
  void run_cublas();
  // Untimed cuBLAS launches until `ms` of wall time have passed (none for 0), so what is timed next meets the
  // clock that sustained load holds; returns the wall time they took (ms).
  double settle_with_cublas(int ms);
  // `launches` untimed cuBLAS launches, then a wait for them.
  void run_cublas_untimed(int launches);

  // Fills C with 0xFF bytes (a NaN in every float) on the session's stream.
  void poison_output();
  // Waits for the stream and copies C to the host.
  std::vector<float> download_output();
  // C compared with cuBLAS's reference (measure/stats.hpp compare()): on the GPU with the session's comparison
  // kernel, or, where it is not available, downloaded and compared on the host. Waits for the stream.
  ErrorStats compare_output(double atol, double rtol);
  std::size_t output_elements() const { return c_.bytes() / sizeof(float); }
  // The device memory it holds (bytes): inputs, outputs, the reference's copy and the workspace.
  std::size_t device_bytes() const {
    return a_.bytes() + b_.bytes() + c_.bytes() + c_ref_.bytes() + reference_device_.bytes() + workspace_.bytes();
  }

 private:
  DeviceSession& session_;
  Shape shape_;
  std::uint64_t seed_;
  DeviceBuffer a_, b_, c_, c_ref_;
  DeviceBuffer reference_device_;  // a copy of cuBLAS's C taken at construction: run_cublas() rewrites c_ref_
  DeviceBuffer workspace_;         // kWorkspaceBytes, zeroed (ProblemBuffers::workspace)
  std::vector<float> reference_;   // reference_device_ on the host, once reference() asked for it
};

}  // namespace mpgemm
