#include "device/problem.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <utility>

#include <fmt/format.h>

#include "common/error.hpp"
#include "device/cuda_check.hpp"
#include "device/device_compare.hpp"
#include "device/epilogue_reference.hpp"
#include "device/timing.hpp"
#include "measure/fp16.hpp"
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

void upload_random_16bit(const DeviceBuffer& dst, std::size_t count, std::uint64_t seed, ElementType type,
                         cudaStream_t stream) {
  std::vector<std::uint16_t> host(count);
  fill_random_16bit(host, seed, type == ElementType::bf16);
  copy_and_wait(dst.get(), host.data(), count * sizeof(std::uint16_t), cudaMemcpyHostToDevice, stream);
}

// 16-bit values of `type` (FP16 or BF16 bit patterns) widened exactly to float.
std::vector<float> widen_16bit(std::span<const std::uint16_t> bits, ElementType type) {
  std::vector<float> wide(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i)
    wide[i] = type == ElementType::bf16 ? bf16_bits_to_float(bits[i]) : half_bits_to_float(bits[i]);
  return wide;
}

// Values of `type` (uniform in [-1, 1], none zero: FP32 by fill_random_floats, 16-bit by fill_random_16bit) uploaded
// into `dst`; returns them widened exactly to float, for a reference computed from the very same values.
std::vector<float> upload_random_out(const DeviceBuffer& dst, std::size_t count, std::uint64_t seed, ElementType type,
                                     cudaStream_t stream) {
  if (type == ElementType::fp32) {
    std::vector<float> values(count);
    fill_random_floats(values, seed);
    copy_and_wait(dst.get(), values.data(), count * 4, cudaMemcpyHostToDevice, stream);
    return values;
  }
  std::vector<std::uint16_t> bits(count);
  fill_random_16bit(bits, seed, type == ElementType::bf16);
  copy_and_wait(dst.get(), bits.data(), count * 2, cudaMemcpyHostToDevice, stream);
  return widen_16bit(bits, type);
}

cudaDataType_t cuda_type(ElementType t) {
  switch (t) {
    case ElementType::fp16:
      return CUDA_R_16F;
    case ElementType::bf16:
      return CUDA_R_16BF;
    case ElementType::fp32:
      return CUDA_R_32F;
  }
  return CUDA_R_32F;
}

std::string element_name(ElementType t) {
  return t == ElementType::fp32 ? "floats" : std::string(to_string(t)) + " values";
}

}  // namespace

void cublas_gemm_ex(cublasHandle_t handle, const GemmProblem& problem, const void* a, const void* b, void* d,
                    ElementType out, float alpha, float beta) {
  const ProblemKind& kind = problem.kind;
  const int m = static_cast<int>(problem.shape.m);
  const int n = static_cast<int>(problem.shape.n);
  const int k = static_cast<int>(problem.shape.k);
  const cublasOperation_t op_b = kind.b == BLayout::kn ? CUBLAS_OP_N : CUBLAS_OP_T;
  const cublasOperation_t op_a = kind.a == ALayout::mk ? CUBLAS_OP_N : CUBLAS_OP_T;
  const cudaDataType_t in = cuda_type(kind.in);
  MPGEMM_CUBLAS(cublasGemmEx(handle, op_b, op_a, n, m, k, &alpha, b, in, static_cast<int>(problem.ldb()), a, in,
                             static_cast<int>(problem.lda()), &beta, d, cuda_type(out), n, CUBLAS_COMPUTE_32F,
                             CUBLAS_GEMM_DEFAULT_TENSOR_OP));
}

ProblemContext::ProblemContext(DeviceSession& session, const GemmProblem& problem, std::uint64_t seed, float alpha,
                               float beta)
    : session_(session), problem_(problem), seed_(seed), alpha_(alpha), beta_(problem.kind.beta ? beta : 0.0f) {
  const Shape& shape = problem.shape;
  check_dimension(shape.m, "M", shape);
  check_dimension(shape.n, "N", shape);
  check_dimension(shape.k, "K", shape);
  if (auto gap = problem.kind.reference_gap()) throw Error(*gap);
  const ProblemKind& kind = problem.kind;
  const auto m = static_cast<std::size_t>(shape.m);
  const auto n = static_cast<std::size_t>(shape.n);
  const auto k = static_cast<std::size_t>(shape.k);
  const auto in_bytes = static_cast<std::size_t>(bytes_of(kind.in));
  const auto out_bytes = static_cast<std::size_t>(bytes_of(kind.out));
  const bool c_fp32_copy = kind.beta && kind.out != ElementType::fp32;
  const std::size_t total = (m * k + k * n) * in_bytes + m * n * (out_bytes * (kind.beta ? 3 : 2) + 4) +
                            (c_fp32_copy ? m * n * 4 : 0) + (kind.has_bias() ? n * out_bytes : 0);
  const auto what = [&](const char* name, const std::string& layout) {
    return fmt::format("{} ({}) of {}, {} bytes for the whole problem", name, layout, problem.str(), total);
  };
  const std::string a_layout = kind.a == ALayout::mk ? "M x K " : "K x M ";
  const std::string b_layout = kind.b == BLayout::kn ? "K x N " : "N x K ";
  a_ = DeviceBuffer(m * k * in_bytes, what("A", a_layout + element_name(kind.in)));
  b_ = DeviceBuffer(k * n * in_bytes, what("B", b_layout + element_name(kind.in)));
  c_ = DeviceBuffer(m * n * out_bytes, what(kind.beta ? "D" : "C", "M x N " + element_name(kind.out)));
  c_ref_ = DeviceBuffer(m * n * out_bytes, what("cuBLAS's output", "M x N " + element_name(kind.out)));
  reference_device_ = DeviceBuffer(m * n * 4, what("the reference kept for comparisons", "M x N floats"));
  if (kind.beta) c_in_ = DeviceBuffer(m * n * out_bytes, what("C", "M x N " + element_name(kind.out)));
  if (c_fp32_copy) c_in_fp32_ = DeviceBuffer(m * n * 4, what("C for the reference", "M x N floats"));
  workspace_ = DeviceBuffer(kWorkspaceBytes, "the kernels' workspace (" + std::to_string(kWorkspaceBytes) + " bytes)");
  MPGEMM_CUDA(cudaMemsetAsync(workspace_.get(), 0, workspace_.bytes(), session_.stream()));

  upload_random_16bit(a_, m * k, derive_seed(seed, 0), kind.in, session_.stream());
  upload_random_16bit(b_, k * n, derive_seed(seed, 1), kind.in, session_.stream());
  if (kind.beta) {
    // C in the output type, and the very same values in FP32 for the reference.
    const std::vector<float> wide = upload_random_out(c_in_, m * n, derive_seed(seed, 2), kind.out, session_.stream());
    if (c_fp32_copy) copy_and_wait(c_in_fp32_.get(), wide.data(), m * n * 4, cudaMemcpyHostToDevice, session_.stream());
    // cuBLAS's timed calls read C in place from their own output: it starts as C.
    copy_and_wait(c_ref_.get(), c_in_.get(), c_ref_.bytes(), cudaMemcpyDeviceToDevice, session_.stream());
  }
  if (kind.has_bias()) {
    // The bias in the output type, and the same values widened for the reference.
    bias_ = DeviceBuffer(n * out_bytes, what("the bias", "N " + element_name(kind.out)));
    bias_values_ = upload_random_out(bias_, n, derive_seed(seed, 3), kind.out, session_.stream());
  }
  compute_reference();
}

void ProblemContext::compute_reference() {
  const ProblemKind& kind = problem_.kind;
  if (kind.beta) {
    const DeviceBuffer& c = kind.out == ElementType::fp32 ? c_in_ : c_in_fp32_;
    copy_and_wait(reference_device_.get(), c.get(), reference_device_.bytes(), cudaMemcpyDeviceToDevice,
                  session_.stream());
  }
  cublas_gemm_ex(session_.cublas(), problem_, a_.get(), b_.get(), reference_device_.get(), ElementType::fp32, alpha_,
                 beta_);
  MPGEMM_CUDA(cudaStreamSynchronize(session_.stream()));
  if (kind.has_bias()) {
    // The epilogue on the host, from the vendor's FP32 GEMM: downloaded once, kept as reference(), uploaded back.
    std::vector<float> host(output_elements());
    copy_and_wait(host.data(), reference_device_.get(), reference_device_.bytes(), cudaMemcpyDeviceToHost,
                  session_.stream());
    apply_epilogue_reference(host, bias_values_, problem_.shape.m, problem_.shape.n, kind.epilogue);
    copy_and_wait(reference_device_.get(), host.data(), reference_device_.bytes(), cudaMemcpyHostToDevice,
                  session_.stream());
    reference_ = std::move(host);
  }
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
  ProblemBuffers b;
  b.a = a_.get();
  b.b = b_.get();
  b.c = c_.get();
  b.shape = problem_.shape;
  b.workspace = workspace_.get();
  b.workspace_bytes = workspace_.bytes();
  b.kind = problem_.kind;
  b.alpha = alpha_;
  b.beta = beta_;
  b.c_in = problem_.kind.beta ? c_in_.get() : nullptr;
  b.bias = problem_.kind.has_bias() ? bias_.get() : nullptr;
  return b;
}

void ProblemContext::run_cublas() {
  cublas_gemm_ex(session_.cublas(), problem_, a_.get(), b_.get(), c_ref_.get(), problem_.kind.out, alpha_, beta_);
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

void ProblemContext::reserve_workspace(std::size_t bytes) {
  if (bytes <= workspace_.bytes()) return;
  const std::size_t size = std::max(bytes, 2 * workspace_.bytes());
  DeviceBuffer grown(size, fmt::format("the kernels' workspace ({} bytes: split-K's flags and a 16-bit D's FP32 "
                                       "partial sums) for {}",
                                       size, problem_.str()));
  MPGEMM_CUDA(cudaMemsetAsync(grown.get(), 0, std::min(size, kWorkspaceBytes), session_.stream()));
  MPGEMM_CUDA(cudaStreamSynchronize(session_.stream()));
  retired_workspace_bytes_ += workspace_.bytes();
  retired_workspaces_.push_back(std::move(workspace_));
  workspace_ = std::move(grown);
}

void ProblemContext::poison_output() {
  MPGEMM_CUDA(cudaMemsetAsync(c_.get(), 0xFF, c_.bytes(), session_.stream()));
  // A kernel that faulted or was wrong may have left its flags set: every verification starts from zero, in every
  // workspace a kernel prepared earlier still points to. The partial sums after the flags need no zeroing.
  MPGEMM_CUDA(cudaMemsetAsync(workspace_.get(), 0, std::min(workspace_.bytes(), kWorkspaceBytes), session_.stream()));
  for (const DeviceBuffer& w : retired_workspaces_)
    MPGEMM_CUDA(cudaMemsetAsync(w.get(), 0, std::min(w.bytes(), kWorkspaceBytes), session_.stream()));
}

std::vector<float> ProblemContext::download_output() {
  const ElementType out = problem_.kind.out;
  if (out == ElementType::fp32) {
    std::vector<float> values(output_elements());
    copy_and_wait(values.data(), c_.get(), c_.bytes(), cudaMemcpyDeviceToHost, session_.stream());
    return values;
  }
  std::vector<std::uint16_t> bits(output_elements());
  copy_and_wait(bits.data(), c_.get(), c_.bytes(), cudaMemcpyDeviceToHost, session_.stream());
  return widen_16bit(bits, out);
}

ErrorStats ProblemContext::compare_output(double atol, double rtol) {
  const Tolerance t = output_tolerance(problem_.kind.out, atol, rtol);
  if (DeviceCompare* gpu = session_.device_compare())
    return gpu->compare(c_.get(), problem_.kind.out, static_cast<const float*>(reference_device_.get()),
                        output_elements(), t.atol, t.rtol, session_.stream());
  const std::vector<float> result = download_output();
  return compare(result, reference(), t.atol, t.rtol);
}

}  // namespace mpgemm
