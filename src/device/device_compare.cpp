#include "device/device_compare.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

#include <fmt/format.h>

#include "common/error.hpp"
#include "compile/nvrtc_compile.hpp"
#include "device/cuda_check.hpp"

namespace mpgemm {

namespace {

// measure/stats.cpp compare(), element by element, in double. Finite tests read the float's exponent bits, so no
// header is needed. The maxima are non-negative doubles, whose bit patterns order like their values: atomicMax on
// the bits is a max on the values.
constexpr const char* kSource = R"cuda(
namespace mpgemm_verify {

__device__ bool finite_float(float v) { return (__float_as_uint(v) & 0x7f800000u) != 0x7f800000u; }

// Element i of the output, widened exactly to float: out_type 0 FP32, 1 FP16, 2 BF16.
__device__ float output_at(const void* out, int out_type, unsigned long long i) {
  if (out_type == 0) return static_cast<const float*>(out)[i];
  const unsigned short bits = static_cast<const unsigned short*>(out)[i];
  if (out_type == 2) return __uint_as_float(static_cast<unsigned>(bits) << 16);
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(bits));
  return f;
}

__global__ void compare(const void* __restrict__ out, int out_type, const float* __restrict__ ref,
                        unsigned long long n, double atol, double rtol, unsigned long long* result) {
  double max_abs = 0, max_rel = 0;
  unsigned long long bad = 0, nan = 0;
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float cf = output_at(out, out_type, i);
    const float rf = ref[i];
    if (!finite_float(cf)) {
      ++nan;
      ++bad;
      continue;
    }
    if (!finite_float(rf)) {
      ++bad;
      continue;
    }
    const double c = cf;
    const double r = rf;
    const double diff = fabs(c - r);
    max_abs = diff > max_abs ? diff : max_abs;
    if (r != 0) {
      const double rel = diff / fabs(r);
      max_rel = rel > max_rel ? rel : max_rel;
    }
    if (!(diff <= atol + rtol * fabs(r))) ++bad;
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    const double a = __shfl_down_sync(0xffffffffu, max_abs, offset);
    const double b = __shfl_down_sync(0xffffffffu, max_rel, offset);
    max_abs = a > max_abs ? a : max_abs;
    max_rel = b > max_rel ? b : max_rel;
    bad += __shfl_down_sync(0xffffffffu, bad, offset);
    nan += __shfl_down_sync(0xffffffffu, nan, offset);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicMax(&result[0], (unsigned long long)__double_as_longlong(max_abs));
    atomicMax(&result[1], (unsigned long long)__double_as_longlong(max_rel));
    if (bad) atomicAdd(&result[2], bad);
    if (nan) atomicAdd(&result[3], nan);
  }
}

}  // namespace mpgemm_verify
)cuda";

constexpr unsigned kBlock = 256;  // threads, a multiple of the warp
constexpr std::size_t kResultBytes = 4 * sizeof(std::uint64_t);

}  // namespace

KernelSpec device_compare_spec(const Arch& arch) {
  KernelSpec spec;
  spec.program_name = "mpgemm_verify_compare.cu";
  spec.source = kSource;
  spec.name_expression = "mpgemm_verify::compare";
  spec.options = {"--fmad=false", "-std=c++17"};  // no contraction: atol + rtol * |r| rounds as on the host
  spec.arch = Arch{arch.major, arch.minor, false};
  return spec;
}

DeviceCompare::DeviceCompare(const DriverApi& api, const Arch& arch, int sm_count) : sm_count_(sm_count) {
  const KernelSpec spec = device_compare_spec(arch);
  CompileResult compiled = compile(spec);
  if (compiled.status != Status::ok)
    throw Error(fmt::format("the comparison kernel does not compile for {}: {}", spec.arch.str(), compiled.log));
  cubin_ = std::move(compiled.cubin);
  kernel_ = std::make_unique<LoadedKernel>(api, cubin_, compiled.lowered_name);
  MPGEMM_CUDA(cudaMalloc(&result_, kResultBytes));
}

DeviceCompare::~DeviceCompare() {
  if (result_) (void)cudaFree(result_);
}

ErrorStats DeviceCompare::compare(const float* out, const float* ref, std::size_t count, double atol, double rtol,
                                  cudaStream_t stream) {
  return compare(out, ElementType::fp32, ref, count, atol, rtol, stream);
}

ErrorStats DeviceCompare::compare(const void* out, ElementType out_type, const float* ref, std::size_t count,
                                  double atol, double rtol, cudaStream_t stream) {
  if (!(atol >= 0) || !(rtol >= 0)) throw Error(fmt::format("compare: bad tolerances atol {} rtol {}", atol, rtol));
  MPGEMM_CUDA(cudaMemsetAsync(result_, 0, kResultBytes, stream));
  LaunchGeometry g;
  const std::size_t blocks_needed = (count + kBlock - 1) / kBlock;
  const std::size_t blocks = std::max<std::size_t>(1, std::min<std::size_t>(blocks_needed, std::size_t(sm_count_) * 8));
  g.grid = {static_cast<std::uint32_t>(blocks), 1, 1};
  g.block = {kBlock, 1, 1};
  unsigned long long n = count;
  int type = out_type == ElementType::fp32 ? 0 : out_type == ElementType::fp16 ? 1 : 2;  // output_at's numbers
  void* args[] = {&out, &type, &ref, &n, &atol, &rtol, &result_};
  kernel_->launch(g, stream, args);
  MPGEMM_CUDA(cudaPeekAtLastError());
  std::array<std::uint64_t, 4> host{};
  MPGEMM_CUDA(cudaMemcpyAsync(host.data(), result_, kResultBytes, cudaMemcpyDeviceToHost, stream));
  MPGEMM_CUDA(cudaStreamSynchronize(stream));
  ErrorStats s;
  s.atol = atol;
  s.rtol = rtol;
  s.max_abs = std::bit_cast<double>(host[0]);
  s.max_rel = std::bit_cast<double>(host[1]);
  s.bad_count = static_cast<std::int64_t>(host[2]);
  s.nan_count = static_cast<std::int64_t>(host[3]);
  return s;
}

}  // namespace mpgemm
