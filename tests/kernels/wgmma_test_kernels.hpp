#pragma once
// Small sm_90a kernels for the nvrtc tests: one wgmma kernel that compiles cleanly (its SASS must hold
// HGMMA), and one per ptxas performance diagnostic, each written to provoke it. None computes anything
// meaningful: they only have to compile. tests/data/ptxas/ holds the logs NVRTC 13.0 wrote for them. Kept as
// C++ strings, not kernels/*.cuh, so they are not embedded into the production binaries.
#include <string>
#include <vector>

#include "codegen/family.hpp"
#include "common/records.hpp"

namespace mpgemm::test {

// Helpers every kernel below uses: a shared-memory matrix descriptor, one wgmma m64n64k16 (FP32 += FP16 x
// FP16, both operands from shared memory, 32 accumulator registers per thread), and the fence / commit / wait
// steps.
inline constexpr const char* kWgmmaPrelude = R"cuda(
__device__ __forceinline__ unsigned long long smem_desc(const void* p) {
  const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(p));
  return (unsigned long long)((addr & 0x3FFFF) >> 4)   // start address (16-byte units)
         | (1ull << 16)                                // leading byte offset 16 bytes
         | (64ull << 32)                               // stride byte offset 1024 bytes
         | (1ull << 62);                               // 128-byte swizzle
}

#define WG_ACC "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}"
#define WG_OUT(d)                                                                                  \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),        \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),  \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]),             \
  "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),             \
  "+f"(d[30]), "+f"(d[31])

__device__ __forceinline__ void wgmma_m64n64k16(float (&d)[32], unsigned long long a, unsigned long long b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 " WG_ACC ", %32, %33, 1, 1, 1, 0, 1;\n"
               : WG_OUT(d) : "l"(a), "l"(b));
}
__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wg_wait0() {
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
}

#define TILES                                        \
  __shared__ alignas(1024) unsigned short a[64 * 16]; \
  __shared__ alignas(1024) unsigned short b[64 * 16];
#define STORE for (int i = 0; i < 32; ++i) out[threadIdx.x * 32 + i] = d[i];
)cuda";

// One test kernel: what to compile and which diagnostic kinds ptxas must give, in log order, duplicates
// removed.
struct WgmmaTestKernel {
  std::string name;                     // the extern "C" kernel's name, also the test's label
  std::string body;                     // appended to kWgmmaPrelude
  std::vector<std::string> options;     // NVRTC options besides the arch
  std::vector<PtxasWarningKind> kinds;  // expected distinct kinds, in order of first appearance
  std::vector<std::string> codes;       // the codes NVRTC 13.0 printed, in order of first appearance

  KernelSpec spec() const {
    return KernelSpec{name + ".cu", std::string(kWgmmaPrelude) + body, name, options, Arch{9, 0, true}, {}};
  }
};

inline std::vector<WgmmaTestKernel> wgmma_test_kernels() {
  using K = PtxasWarningKind;
  return {
      // Fence, issue, commit, wait, in that order: nothing to say.
      {"wgmma_clean",
       R"cuda(
extern "C" __global__ void __launch_bounds__(128) wgmma_clean(float* out, int k_tiles) {
  TILES float d[32] = {};
  for (int k = 0; k < k_tiles; ++k) {
    wg_fence(); wgmma_m64n64k16(d, smem_desc(a), smem_desc(b)); wg_commit(); wg_wait0();
  }
  STORE
})cuda",
       {},
       {},
       {}},
      // The accumulator is read between commit and wait: ptxas waits there itself and serializes.
      {"wgmma_accumulator_read",
       R"cuda(
extern "C" __global__ void __launch_bounds__(128) wgmma_accumulator_read(float* out, int k_tiles) {
  TILES float d[32] = {};
  float s = 0;
  for (int k = 0; k < k_tiles; ++k) {
    wg_fence(); wgmma_m64n64k16(d, smem_desc(a), smem_desc(b)); wg_commit();
    s += d[k & 31];
    wg_wait0();
  }
  for (int i = 0; i < 32; ++i) out[threadIdx.x * 32 + i] = d[i] + s;
})cuda",
       {},
       {K::wgmma_wait_injected, K::wgmma_serialized},
       {"C7517", "C7514"}},
      // Four live accumulators (128 registers) under a 64-register cap: serialized, and it spills.
      {"wgmma_tight_registers",
       R"cuda(
extern "C" __global__ void wgmma_tight_registers(float* out, int k_tiles) {
  TILES float d[32] = {}; float e[32] = {}; float f[32] = {}; float g[32] = {};
  for (int k = 0; k < k_tiles; ++k) {
    wg_fence();
    wgmma_m64n64k16(d, smem_desc(a), smem_desc(b)); wgmma_m64n64k16(e, smem_desc(a + 16), smem_desc(b));
    wgmma_m64n64k16(f, smem_desc(a + 32), smem_desc(b)); wgmma_m64n64k16(g, smem_desc(a + 48), smem_desc(b));
    wg_commit(); wg_wait0();
  }
  for (int i = 0; i < 32; ++i) out[threadIdx.x * 32 + i] = d[i] + e[i] * f[i] - g[i];
})cuda",
       {"--maxrregcount=64"},
       {K::wgmma_serialized},
       {"C7511"}},
      // No wgmma.fence after the accumulator is zeroed: ptxas adds warpgroup.arrives and serializes.
      {"wgmma_no_fence",
       R"cuda(
extern "C" __global__ void __launch_bounds__(128) wgmma_no_fence(float* out, int k_tiles) {
  TILES float d[32] = {};
  for (int k = 0; k < k_tiles; ++k) { wgmma_m64n64k16(d, smem_desc(a), smem_desc(b)); wg_commit(); }
  wg_wait0();
  STORE
})cuda",
       {},
       {K::wgmma_arrive_injected, K::wgmma_serialized},
       {"C7519", "C7515"}},
      // setmaxnreg in a kernel without __launch_bounds__(N, 1): ptxas cannot know the count at entry.
      {"setmaxnreg_no_launch_bounds",
       R"cuda(
extern "C" __global__ void setmaxnreg_no_launch_bounds(float* out, int k_tiles) {
  TILES float d[32] = {};
  if (threadIdx.x >= 128) { asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n"); out[0] = 1; return; }
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
  for (int k = 0; k < k_tiles; ++k) {
    wg_fence(); wgmma_m64n64k16(d, smem_desc(a), smem_desc(b)); wg_commit(); wg_wait0();
  }
  STORE
})cuda",
       {},
       {K::setmaxnreg_ignored},
       {"C7508"}},
      // The same with __launch_bounds__(256, 1): the split happens (232 registers), nothing to say.
      {"setmaxnreg_launch_bounds",
       R"cuda(
extern "C" __global__ void __launch_bounds__(256, 1) setmaxnreg_launch_bounds(float* out, int k_tiles) {
  TILES float d[32] = {};
  if (threadIdx.x >= 128) { asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n"); out[0] = 1; return; }
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
  for (int k = 0; k < k_tiles; ++k) {
    wg_fence(); wgmma_m64n64k16(d, smem_desc(a), smem_desc(b)); wg_commit(); wg_wait0();
  }
  STORE
})cuda",
       {},
       {},
       {}},
  };
}

}  // namespace mpgemm::test
