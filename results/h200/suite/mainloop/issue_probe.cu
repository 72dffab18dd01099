// What holds a main loop of m64nNk16 wgmmas below the tensor pipe's rate (results/h200/suite/NOTES.md, "The main
// loop's rate by tile shape")? Two readings fit the suite's data: shared-memory bandwidth (TMA writes plus wgmma
// operand reads) and how fast one warpgroup issues wgmmas back to back. Here no operand changes: every wgmma reads
// the same A and B tiles of shared memory (pseudo-random FP16), so there are no TMA writes unless LOADS adds a warp
// that bulk-copies 24 KiB per step (a 64 x 128 GEMM tile's A and B per k-block) from an L2-resident buffer into a
// ring nobody reads, for as long as the wgmmas run.
//
// One CTA per SM. WGS warpgroups each run k_blocks steps of CHAINS x 4 wgmmas m64nNk16 (CHAINS independent
// accumulator sets, each a dependent chain, as the kernel's m-blocks are), committed as one group per step and
// waited for one step behind (wgmma_wait<1>), as kernels/wgmma_gemm.cuh does. Each warpgroup's thread 0 reads
// clock64 around its loop: cycles per step against the tensor pipe's full rate (4096 FLOP per clock per SM, so
// CHAINS x 4 x N / 2 clocks per step, times WGS when WGS warpgroups share the SM) give a ratio that the SM clock's
// changes under the power cap do not move.
//
//   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I../../../../kernels issue_probe.cu -o issue_probe
//   ./issue_probe [K_BLOCKS]
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../../ceilings/graph_timing.cuh"
#include "hopper_ptx.cuh"
#include "wgmma_ops.cuh"

using namespace mpgemm;
using namespace mpgemm::hopper;

constexpr int kABytes = 2 * 64 * 128;   // two m64 blocks of A (64 rows x 64 halves, 128-byte rows)
constexpr int kBBytes = 4 * 64 * 128;   // four 64-column chunks of B (64 K rows x 128 bytes)
constexpr int kRingStages = 4, kStepBytes = 24576;
constexpr int kRingOffset = kABytes + kBBytes;
constexpr int kBarrierOffset = kRingOffset + kRingStages * kStepBytes;
constexpr int kFlagOffset = kBarrierOffset + 8 * kRingStages;
constexpr int kSmemBytes = 1024 + kFlagOffset + 16;
constexpr size_t kLoadSourceBytes = size_t(4) << 20;

__device__ __forceinline__ void bulk_load(unsigned dst, const void* src, unsigned bytes, unsigned bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
               "l"(src), "r"(bytes), "r"(bar)
               : "memory");
}

template <int N, int CHAINS>
__device__ __forceinline__ long long wgmma_steps(unsigned base, int k_blocks, float* sink) {
  float acc[CHAINS][N / 2];
#pragma unroll
  for (int c = 0; c < CHAINS; ++c)
#pragma unroll
    for (int r = 0; r < N / 2; ++r) acc[c][r] = 0.f;
  const unsigned long long a0 = smem_descriptor(base, 16, 1024);             // K-major A, 8-row groups 1 KiB apart
  const unsigned long long b0 = smem_descriptor(base + kABytes, 8192, 1024);  // N-major B, chunks 8 KiB apart
  const long long t0 = clock64();
  for (int kb = 0; kb < k_blocks; ++kb) {
#pragma unroll
    for (int c = 0; c < CHAINS; ++c)
#pragma unroll
      for (int r = 0; r < N / 2; ++r) fence_operand(acc[c][r]);
    wgmma_fence();
#pragma unroll
    for (int c = 0; c < CHAINS; ++c)
#pragma unroll
      for (int k = 0; k < 4; ++k)
        wgmma_detail::Wgmma<N>::mma(acc[c], a0 + ((c * 64 * 128 + k * 32) >> 4), b0 + ((k * 16 * 128) >> 4), 1);
    wgmma_commit();
#pragma unroll
    for (int c = 0; c < CHAINS; ++c)
#pragma unroll
      for (int r = 0; r < N / 2; ++r) fence_operand(acc[c][r]);
    wgmma_wait<1>();
  }
  wgmma_wait<0>();
  const long long t1 = clock64();
  float s = 0.f;
#pragma unroll
  for (int c = 0; c < CHAINS; ++c)
#pragma unroll
    for (int r = 0; r < N / 2; ++r) s += acc[c][r];
  if (s == -1.f) sink[threadIdx.x] = s;  // never: keeps the wgmmas
  return t1 - t0;
}

// 24 KiB per step (16 + 8, as a 64 x 128 tile's B and A boxes) into a 4-stage ring, until every warpgroup is done.
__device__ __forceinline__ void loads(const unsigned char* src, unsigned ring, unsigned barriers, volatile int* done,
                                      int wgs) {
  size_t from = (size_t(blockIdx.x) * 98304) % kLoadSourceBytes;
  long long n = 0;
  for (long long i = 0; *done < wgs; ++i) {
    const int stage = int(i % kRingStages);
    const unsigned bar = barriers + 8 * stage;
    if (i >= kRingStages) mbarrier_wait(bar, unsigned((i / kRingStages - 1) & 1));
    mbarrier_arrive_expect_tx(bar, kStepBytes);
    bulk_load(ring + stage * kStepBytes, src + from, 16384, bar);
    bulk_load(ring + stage * kStepBytes + 16384, src + (from + 16384) % kLoadSourceBytes, 8192, bar);
    from = (from + kStepBytes) % (kLoadSourceBytes - kStepBytes);
    n = i + 1;
  }
  for (long long j = n > kRingStages ? n - kRingStages : 0; j < n; ++j)  // no copy may land after the block exits
    mbarrier_wait(barriers + 8 * int(j % kRingStages), unsigned((j / kRingStages) & 1));
}

template <int N, int CHAINS, int WGS, bool LOADS>
__global__ void __launch_bounds__((WGS + 1) * 128, 1)
    probe(int k_blocks, long long* cycles, float* sink, const unsigned char* __restrict__ load_source) {
  extern __shared__ unsigned char raw[];
  unsigned char* smem = raw + ((1024 - (smem_address(raw) & 1023)) & 1023);
  const unsigned base = smem_address(smem);
  __half* operands = reinterpret_cast<__half*>(smem);
  for (int i = threadIdx.x; i < (kABytes + kBBytes) / 2; i += blockDim.x)
    operands[i] = __float2half(float((i * 2654435761u) >> 16) / 32768.f - 1.f);
  volatile int* done = reinterpret_cast<volatile int*>(smem + kFlagOffset);
  if (threadIdx.x == 0) {
    *done = 0;
    for (int s = 0; s < kRingStages; ++s) mbarrier_init(base + kBarrierOffset + 8 * s, 1);
    fence_barrier_init();
  }
  __syncthreads();
  const int warpgroup = threadIdx.x / 128, t = threadIdx.x % 128;
  if (warpgroup < WGS) {
    const long long c = wgmma_steps<N, CHAINS>(base, k_blocks, sink);
    if (t == 0) {
      cycles[blockIdx.x * WGS + warpgroup] = c;
      atomicAdd(const_cast<int*>(done), 1);
    }
  } else if (LOADS && t == 0) {
    loads(load_source, base + kRingOffset, base + kBarrierOffset, done, WGS);
  }
}

template <int N, int CHAINS, int WGS, bool LOADS>
void run(int sms, int k_blocks, long long* cycles, float* sink, const unsigned char* load_source) {
  auto kernel = probe<N, CHAINS, WGS, LOADS>;
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  for (int warm = 0; warm < 3; ++warm)
    kernel<<<sms, (WGS + 1) * 128, kSmemBytes>>>(k_blocks, cycles, sink, load_source);
  CHECK(cudaDeviceSynchronize());
  std::vector<long long> c(size_t(sms) * WGS);
  CHECK(cudaMemcpy(c.data(), cycles, c.size() * sizeof(long long), cudaMemcpyDeviceToHost));
  std::sort(c.begin(), c.end());
  const double per_step = double(c[c.size() / 2]) / k_blocks, full = double(CHAINS) * 4 * N / 2 * WGS;
  std::printf("m64n%-3d chains %d warpgroups %d %-11s %8.1f clocks per step (full rate %6.0f): %.3fx  [min %.3f max %.3f]\n",
              N, CHAINS, WGS, LOADS ? "+ 24 KiB" : "", per_step, full, per_step / full,
              double(c.front()) / k_blocks / full, double(c.back()) / k_blocks / full);
}

int main(int argc, char** argv) {
  const int k_blocks = argc > 1 ? std::atoi(argv[1]) : 512;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  std::printf("device %s, %d SMs, one CTA per SM, %d steps; median over the SMs' warpgroups of clock64 cycles\n",
              prop.name, sms, k_blocks);
  long long* cycles;
  float* sink;
  unsigned char* load_source;
  CHECK(cudaMalloc(&cycles, size_t(sms) * 2 * sizeof(long long)));
  CHECK(cudaMalloc(&sink, 4096));
  CHECK(cudaMalloc(&load_source, kLoadSourceBytes));
  CHECK(cudaMemset(load_source, 0x3c, kLoadSourceBytes));
  run<64, 1, 1, false>(sms, k_blocks, cycles, sink, load_source);
  run<64, 2, 1, false>(sms, k_blocks, cycles, sink, load_source);
  run<64, 1, 2, false>(sms, k_blocks, cycles, sink, load_source);
  run<128, 1, 1, false>(sms, k_blocks, cycles, sink, load_source);
  run<128, 2, 1, false>(sms, k_blocks, cycles, sink, load_source);
  run<128, 1, 2, false>(sms, k_blocks, cycles, sink, load_source);
  run<256, 1, 1, false>(sms, k_blocks, cycles, sink, load_source);
  run<256, 1, 2, false>(sms, k_blocks, cycles, sink, load_source);
  run<64, 1, 2, true>(sms, k_blocks, cycles, sink, load_source);
  run<128, 1, 1, true>(sms, k_blocks, cycles, sink, load_source);
  run<128, 2, 1, true>(sms, k_blocks, cycles, sink, load_source);
  run<128, 1, 2, true>(sms, k_blocks, cycles, sink, load_source);
  run<256, 1, 1, true>(sms, k_blocks, cycles, sink, load_source);
  CHECK(cudaDeviceSynchronize());
  return 0;
}
