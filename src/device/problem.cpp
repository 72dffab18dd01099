#include "device/problem.hpp"

#include <chrono>
#include <climits>
#include <utility>

#include <fmt/format.h>

#include "common/error.hpp"
#include "device/cuda_check.hpp"
#include "device/device_compare.hpp"
#include "device/timing.hpp"
#include "measure/random_fill.hpp"
#include "measure/stats.hpp"

namespace mpgemm {

DeviceBuffer::DeviceBuffer(std::size_t bytes, const std::string& what) : bytes_(bytes) {
  const cudaError_t error = cudaMalloc(&ptr_, bytes);
  if (error == cudaSuccess) return;
  ptr_ = nullptr;
  (void)cudaGetLastError();
  const std::optional<DeviceMemory> memory = device_memory();
  throw CudaError(
      "cudaMalloc", static_cast<int>(error),
      fmt::format("{} bytes for {}: {}{}", bytes, what, describe(error),
                  memory ? fmt::format(" ({} of {} bytes free)", memory->free_bytes, memory->total_bytes) : ""));
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) (void)cudaFree(ptr_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (ptr_) (void)cudaFree(ptr_);
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

namespace {

void check_dimension(std::int64_t value, const char* name, const Shape& shape) {
  if (value < 1 || value > INT_MAX)
    throw Error(fmt::format("shape {}: {} = {} is outside 1..{}", shape.str(), name, value, INT_MAX));
}

// Every copy goes through the session's stream and is waited for: the stream is non-blocking, so copies on the
// legacy default stream would not be ordered with it.
void copy_and_wait(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t stream) {
  MPGEMM_CUDA(cudaMemcpyAsync(dst, src, bytes, kind, stream));
  MPGEMM_CUDA(cudaStreamSynchronize(stream));
}

void upload_random_halves(const DeviceBuffer& dst, std::size_t count, std::uint64_t seed, cudaStream_t stream) {
  std::vector<std::uint16_t> host(count);
  fill_random_halves(host, seed);
  copy_and_wait(dst.get(), host.data(), count * sizeof(std::uint16_t), cudaMemcpyHostToDevice, stream);
}

}  // namespace

ProblemContext::ProblemContext(DeviceSession& session, const Shape& shape, std::uint64_t seed)
    : session_(session), shape_(shape), seed_(seed) {
  check_dimension(shape.m, "M", shape);
  check_dimension(shape.n, "N", shape);
  check_dimension(shape.k, "K", shape);
  const auto m = static_cast<std::size_t>(shape.m);
  const auto n = static_cast<std::size_t>(shape.n);
  const auto k = static_cast<std::size_t>(shape.k);
  const std::size_t total = (m * k + k * n) * 2 + m * n * 4 * 3;
  const auto what = [&](const char* name, const char* layout) {
    return fmt::format("{} ({}) of shape {}, {} bytes for the whole problem", name, layout, shape.str(), total);
  };
  a_ = DeviceBuffer(m * k * 2, what("A", "M x K halves"));
  b_ = DeviceBuffer(k * n * 2, what("B", "K x N halves"));
  c_ = DeviceBuffer(m * n * 4, what("C", "M x N floats"));
  c_ref_ = DeviceBuffer(m * n * 4, what("the cuBLAS reference", "M x N floats"));
  reference_device_ = DeviceBuffer(m * n * 4, what("the reference kept for comparisons", "M x N floats"));
  workspace_ = DeviceBuffer(kWorkspaceBytes, "the kernels' workspace (" + std::to_string(kWorkspaceBytes) + " bytes)");
  MPGEMM_CUDA(cudaMemsetAsync(workspace_.get(), 0, workspace_.bytes(), session_.stream()));

  upload_random_halves(a_, m * k, derive_seed(seed, 0), session_.stream());
  upload_random_halves(b_, k * n, derive_seed(seed, 1), session_.stream());

  run_cublas();
  copy_and_wait(reference_device_.get(), c_ref_.get(), m * n * 4, cudaMemcpyDeviceToDevice, session_.stream());
}

std::span<const float> ProblemContext::reference() {
  if (reference_.empty()) {
    // Into a local first: a failed copy must not leave a reference of zeros behind.
    std::vector<float> host(output_elements());
    copy_and_wait(host.data(), reference_device_.get(), reference_device_.bytes(), cudaMemcpyDeviceToHost,
                  session_.stream());
    reference_ = std::move(host);
  }
  return reference_;
}

ProblemBuffers ProblemContext::buffers() const {
  return {a_.get(), b_.get(), c_.get(), shape_, workspace_.get()};
}

void ProblemContext::run_cublas() {
  // Row-major C = A * B is column-major C^T = B^T * A^T: cuBLAS sees B as an n x k matrix with leading dimension n
  // and A as k x m with leading dimension k, and writes C^T (n x m, leading dimension n), which is C row-major.
  const float alpha = 1.0f;
  const float beta = 0.0f;
  const int m = static_cast<int>(shape_.m);
  const int n = static_cast<int>(shape_.n);
  const int k = static_cast<int>(shape_.k);
  MPGEMM_CUBLAS(cublasGemmEx(session_.cublas(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b_.get(), CUDA_R_16F, n,
                             a_.get(), CUDA_R_16F, k, &beta, c_ref_.get(), CUDA_R_32F, n, CUBLAS_COMPUTE_32F,
                             CUBLAS_GEMM_DEFAULT_TENSOR_OP));
}

TimingStats ProblemContext::time_cublas(int warmup, int runs, int iters) {
  return time_cublas(warmup, runs, iters, L2Mode::warm);
}

double ProblemContext::settle_with_cublas(int ms) {
  if (ms <= 0) return 0;
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed_ms = [&] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  };
  // Batches of launches with a wait after each, so the loop never runs far ahead of the GPU.
  do {
    run_cublas_untimed(8);
  } while (elapsed_ms() < ms);
  return elapsed_ms();
}

void ProblemContext::run_cublas_untimed(int launches) {
  for (int i = 0; i < launches; ++i) run_cublas();
  MPGEMM_CUDA(cudaStreamSynchronize(session_.stream()));
}

TimingStats ProblemContext::time_cublas(int warmup, int runs, int iters, L2Mode l2, BatchEnqueue batches) {
  const L2Flusher* flusher = l2 == L2Mode::cold ? &session_.l2_flusher() : nullptr;
  return time_launches(session_.stream(), TimingPlan{warmup, runs, iters, l2, std::nullopt, batches}, flusher,
                       [this] { run_cublas(); });
}

void ProblemContext::poison_output() {
  MPGEMM_CUDA(cudaMemsetAsync(c_.get(), 0xFF, c_.bytes(), session_.stream()));
  // A kernel that faulted or was wrong may have left its flags set: every verification starts from zero.
  MPGEMM_CUDA(cudaMemsetAsync(workspace_.get(), 0, workspace_.bytes(), session_.stream()));
}

std::vector<float> ProblemContext::download_output() {
  std::vector<float> out(c_.bytes() / sizeof(float));
  copy_and_wait(out.data(), c_.get(), c_.bytes(), cudaMemcpyDeviceToHost, session_.stream());
  return out;
}

ErrorStats ProblemContext::compare_output(double atol, double rtol) {
  if (DeviceCompare* gpu = session_.device_compare())
    return gpu->compare(static_cast<const float*>(c_.get()), static_cast<const float*>(reference_device_.get()),
                        output_elements(), atol, rtol, session_.stream());
  const std::vector<float> result = download_output();
  return compare(result, reference(), atol, rtol);
}

}  // namespace mpgemm
