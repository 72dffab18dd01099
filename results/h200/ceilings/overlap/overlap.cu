// Can one SM write C while its tensor cores run at full rate? (results/h200/suite/NOTES.md: at 4096x4096xK the
// suite's best configs take about the C write's 16.4 us plus the tensor time, as if the two did not overlap.)
//
// One CTA per SM, three warpgroups, each with one job or idle:
//   tensor  warpgroup 0 issues the main loop of a 128 x 128 pingpong tile from shared memory alone: per k-block
//           8 wgmma m64n128k16 (2 m-blocks x 4 k-steps of BK = 64), committed as a group, then waits for the group
//           before (wgmma_wait<1>), as kernels/wgmma_gemm.cuh does; KB k-blocks per CTA in all. The operands are
//           32 KiB of FP16 values in [-1, 1) (what the tensor cores draw power on is not zeros).
//   loads   warpgroup 2 (one thread) brings in what those k-blocks would read, 32 KiB per k-block in three bulk
//           copies (16 + 8 + 8 KiB, as the TMA boxes of A and B) from a 4 MiB buffer (L2-resident, like
//           4096x4096x256's A and B) into a 5-stage ring that nobody reads:
//           the shared-memory writes and L2 reads of a GEMM's producer, without its waits on the consumers
//   C       warpgroup 1 writes its CTA's share of a 4096 x 4096 FP32 C, 128 x 128 tiles in turn (tile b, b + grid,
//           ...), one of six ways:
//     direct    16-byte stores from registers, each thread a quarter row per step (the best a register store does)
//     fragment  from registers in the accumulators' layout, as the suite's direct epilogue (EPILOGUE direct) writes
//               it: per m64 block and 8 columns, two 8-byte stores per thread (rows 16w + l/4 and + 8)
//     pairs     the accumulators after one exchange between lane pairs (each lane then holds 4 consecutive columns
//               of one row): 16-byte stores, still 16 rows x 32 bytes per warp instruction
//     lines     16-byte stores, 4 rows x 128 bytes per warp instruction (8 lanes per 128-byte line): what a full
//               transpose of the accumulators across the warp's lanes would store
//     staged    through shared memory without TMA: the accumulators written to a staging buffer as tma does, then
//               read back a row segment per thread (16-byte loads) and stored as lines (4 rows x 128 bytes per
//               warp instruction)
//     tma       through shared memory, as the suite's TMA epilogue (EPILOGUE tma, C_BUFFERS 2) does: per tile 8
//               sub-tiles of 64 x 32 floats, each written to one of 2 staging buffers (128B-swizzled rows), then
//               stored by one thread with one TMA tensor store; a buffer is rewritten only after its store read it
// If an SM can do the jobs at once at full rate, a combination takes about the slowest job's time alone; if they
// exclude each other, the sum. KB = 16 is 4096x4096x128's share per SM (1024 tiles x 16 of K / 64 on 132 SMs),
// 31 4096x4096x256's, 62 K = 512's, 124 K = 1024's.
//
//   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I../../../../kernels overlap.cu -o overlap && ./overlap
//   [ROUNDS ITERS]
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "../graph_timing.cuh"
#include "hopper_ptx.cuh"
#include "wgmma_ops.cuh"

using namespace mpgemm;
using namespace mpgemm::hopper;

constexpr int kTensor = 1, kDirect = 2, kTma = 4, kFragment = 8, kLoads = 16, kPairs = 32, kLines = 64, kStaged = 128;
constexpr int kOperandBytes = 32768;                  // A 128 x 64 halves + B 64 x 128 halves, 128B-swizzled rows
constexpr int kStageBytes = 64 * 32 * 4;              // one 64 x 32 FP32 sub-tile of C (one m64 block, 128-byte rows)
constexpr int kRingStages = 5, kKBlockBytes = 32768;  // the loads' ring: 5 k-blocks of A and B
constexpr int kRingOffset = kOperandBytes + 2 * kStageBytes;
constexpr int kBarrierOffset = kRingOffset + kRingStages * kKBlockBytes;
constexpr int kSmemBytes = 1024 + kBarrierOffset + 8 * kRingStages;
constexpr size_t kLoadSourceBytes = size_t(4) << 20;

__device__ __forceinline__ void tensor_loop(unsigned base, int k_blocks, float* sink) {
  float acc[2][64];
#pragma unroll
  for (int mb = 0; mb < 2; ++mb)
#pragma unroll
    for (int r = 0; r < 64; ++r) acc[mb][r] = 0.f;
  const unsigned long long a0 = smem_descriptor(base, 16, 1024);            // K-major A, 8-row groups 1 KiB apart
  const unsigned long long b0 = smem_descriptor(base + 16384, 8192, 1024);  // N-major B, 64-column chunks 8 KiB apart
  for (int kb = 0; kb < k_blocks; ++kb) {
#pragma unroll
    for (int mb = 0; mb < 2; ++mb)
#pragma unroll
      for (int r = 0; r < 64; ++r) fence_operand(acc[mb][r]);
    wgmma_fence();
#pragma unroll
    for (int mb = 0; mb < 2; ++mb)
#pragma unroll
      for (int k = 0; k < 4; ++k)
        wgmma_detail::Wgmma<128>::mma(acc[mb], a0 + ((mb * 64 * 128 + k * 32) >> 4), b0 + ((k * 16 * 128) >> 4), 1);
    wgmma_commit();
#pragma unroll
    for (int mb = 0; mb < 2; ++mb)
#pragma unroll
      for (int r = 0; r < 64; ++r) fence_operand(acc[mb][r]);
    wgmma_wait<1>();
  }
  wgmma_wait<0>();
  float s = 0.f;
#pragma unroll
  for (int mb = 0; mb < 2; ++mb)
#pragma unroll
    for (int r = 0; r < 64; ++r) s += acc[mb][r];
  if (s == -1.f) sink[threadIdx.x] = s;  // never: keeps the wgmmas
}

// Warpgroup 1's C: 128 x 128 tiles of an n x n row-major matrix, 128 threads.
__device__ __forceinline__ void direct_stores(float* c, int n, int t) {
  const int per_row = n / 128, tiles = per_row * per_row;
  const float4 v = make_float4(t, 1.f, 2.f, 3.f);
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int r0 = (tile / per_row) * 128, c0 = (tile % per_row) * 128;
#pragma unroll 4
    for (int e = t; e < 128 * 32; e += 128)  // 32 float4 per row
      reinterpret_cast<float4*>(c + size_t(r0 + e / 32) * n + c0)[e % 32] = v;
  }
}

__device__ __forceinline__ void fragment_stores(float* c, int n, int t) {
  const int per_row = n / 128, tiles = per_row * per_row;
  const int warp = t / 32, lane = t % 32;
  const float v = float(t);
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int r0 = (tile / per_row) * 128, c0 = (tile % per_row) * 128;
#pragma unroll
    for (int mb = 0; mb < 2; ++mb) {
      float* q0 = c + size_t(r0 + mb * 64 + warp * 16 + lane / 4) * n + c0 + 2 * (lane % 4);
      float* q1 = q0 + size_t(8) * n;
#pragma unroll
      for (int i = 0; i < 16; ++i) {
        *reinterpret_cast<float2*>(q0 + 8 * i) = make_float2(v, v + i);
        *reinterpret_cast<float2*>(q1 + 8 * i) = make_float2(v + i, v);
      }
    }
  }
}

// Accumulator layout, exchanged within lane pairs: lane q of a quad gets row 16w + l/4 + 8 (q % 2), columns
// 8i + 4 (q / 2) .. + 3, and stores them as one float4.
__device__ __forceinline__ void pair_stores(float* c, int n, int t) {
  const int per_row = n / 128, tiles = per_row * per_row;
  const int warp = t / 32, lane = t % 32, q = lane % 4;
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int r0 = (tile / per_row) * 128, c0 = (tile % per_row) * 128;
#pragma unroll
    for (int mb = 0; mb < 2; ++mb) {
      float* p = c + size_t(r0 + mb * 64 + warp * 16 + lane / 4 + 8 * (q % 2)) * n + c0 + 4 * (q / 2);
#pragma unroll
      for (int i = 0; i < 16; ++i) {
        // what this lane holds of row r (d0, d1) and of row r + 8 (d2, d3), columns 8i + 2q, + 1
        const float d0 = float(t + i), d1 = d0 + 1.f, d2 = d0 + 2.f, d3 = d0 + 3.f;
        // even lanes keep row r and take the odd neighbour's row-r pair; odd lanes keep row r + 8
        const float s0 = (q % 2) ? d0 : d2, s1 = (q % 2) ? d1 : d3;
        const float r0v = __shfl_xor_sync(0xffffffffu, s0, 1), r1v = __shfl_xor_sync(0xffffffffu, s1, 1);
        const float4 v = (q % 2) ? make_float4(r0v, r1v, d2, d3) : make_float4(d0, d1, r0v, r1v);
        reinterpret_cast<float4*>(p + 8 * i)[0] = v;
      }
    }
  }
}

__device__ __forceinline__ void line_stores(float* c, int n, int t) {
  const int per_row = n / 128, tiles = per_row * per_row;
  const int warp = t / 32, lane = t % 32;
  const float4 v = make_float4(t, 1.f, 2.f, 3.f);
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int r0 = (tile / per_row) * 128 + warp * 32 + lane / 8, c0 = (tile % per_row) * 128 + 4 * (lane % 8);
#pragma unroll
    for (int rr = 0; rr < 32; rr += 4)
#pragma unroll
      for (int seg = 0; seg < 4; ++seg) reinterpret_cast<float4*>(c + size_t(r0 + rr) * n + c0 + 32 * seg)[0] = v;
  }
}

__device__ __forceinline__ void bulk_load(unsigned dst, const void* src, unsigned bytes, unsigned bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
               "l"(src), "r"(bytes), "r"(bar)
               : "memory");
}

// k_blocks bulk loads of 32 KiB into the ring, at most kRingStages in flight.
__device__ __forceinline__ void loads(const unsigned char* src, int k_blocks, unsigned ring, unsigned barriers) {
  for (int kb = 0; kb < k_blocks; ++kb) {
    const int stage = kb % kRingStages;
    const unsigned bar = barriers + 8 * stage;
    if (kb >= kRingStages) mbarrier_wait(bar, ((kb / kRingStages) - 1) & 1);  // the stage's previous load landed
    mbarrier_arrive_expect_tx(bar, kKBlockBytes);
    const size_t from = (size_t(blockIdx.x) * k_blocks + kb) * kKBlockBytes % kLoadSourceBytes;
    // As the suite's producer: A's 128 x 64 box (16 KiB) and B's two 64 x 64 chunks (8 KiB each).
    bulk_load(ring + stage * kKBlockBytes, src + from, 16384, bar);
    bulk_load(ring + stage * kKBlockBytes + 16384, src + (from + 16384) % kLoadSourceBytes, 8192, bar);
    bulk_load(ring + stage * kKBlockBytes + 24576, src + (from + 24576) % kLoadSourceBytes, 8192, bar);
  }
  for (int kb = k_blocks > kRingStages ? k_blocks - kRingStages : 0; kb < k_blocks; ++kb)
    mbarrier_wait(barriers + 8 * (kb % kRingStages), (kb / kRingStages) & 1);
}

// Thread t's accumulator fragment of a 64 x 32 sub-tile written to a 128B-swizzled staging buffer, as the suite's
// tma epilogue writes it (rows 16w + l/4 and + 8, two 8-byte stores per 8 columns).
__device__ __forceinline__ void stage_fragment(unsigned buffer, int t) {
  const int warp = t / 32, lane = t % 32;
  for (int ii = 0; ii < 4; ++ii) {
    const int chunk = 2 * ii + (lane % 4) / 2, within = (lane % 2) * 8;
    const int q0 = warp * 16 + lane / 4, q1 = q0 + 8;
    const float v = float(t + ii);
    asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(buffer + q0 * 128 + ((chunk ^ (q0 % 8)) * 16) + within),
                 "f"(v), "f"(v));
    asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(buffer + q1 * 128 + ((chunk ^ (q1 % 8)) * 16) + within),
                 "f"(v), "f"(v));
  }
}

__device__ __forceinline__ void staged_stores(float* c, int n, int t, unsigned staging) {
  const int per_row = n / 128, tiles = per_row * per_row;
  int slot = 0;
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int r0 = (tile / per_row) * 128, c0 = (tile % per_row) * 128;
    for (int mb = 0; mb < 2; ++mb)
      for (int j = 0; j < 4; ++j, ++slot) {
        const unsigned buffer = staging + (slot % 2) * kStageBytes;
        named_barrier_sync(1, 128);  // every thread has read this buffer's previous sub-tile
        stage_fragment(buffer, t);
        named_barrier_sync(1, 128);
        const int k = t % 8;
#pragma unroll
        for (int u = 0; u < 4; ++u) {
          const int row = t / 8 + 16 * u;
          float4 x;
          asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\n"
                       : "=f"(x.x), "=f"(x.y), "=f"(x.z), "=f"(x.w)
                       : "r"(buffer + row * 128 + ((k ^ (row % 8)) * 16)));
          reinterpret_cast<float4*>(c + size_t(r0 + 64 * mb + row) * n + c0 + 32 * j)[k] = x;
        }
      }
  }
}

__device__ __forceinline__ void tma_stores(const TensorMap* c_map, int n, int t, unsigned staging) {
  const int per_row = n / 128, tiles = per_row * per_row;
  int slot = 0;
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int r0 = (tile / per_row) * 128, c0 = (tile % per_row) * 128;
    for (int mb = 0; mb < 2; ++mb)
      for (int j = 0; j < 4; ++j, ++slot) {
        const unsigned buffer = staging + (slot % 2) * kStageBytes;
        if (t == 0) bulk_wait_group_read<1>();  // this buffer's previous store has read it
        named_barrier_sync(1, 128);
        stage_fragment(buffer, t);
        fence_proxy_async_shared();
        named_barrier_sync(1, 128);
        if (t == 0) {
          tma_store_2d(c_map, buffer, c0 + 32 * j, r0 + 64 * mb);
          bulk_commit_group();
        }
      }
  }
  if (t == 0) bulk_wait_group<0>();
}

template <int MODE>
__global__ void __launch_bounds__(384, 1)
    overlap(float* __restrict__ c, int n, int k_blocks, float* sink, const unsigned char* __restrict__ load_source,
            const __grid_constant__ TensorMap c_map) {
  extern __shared__ unsigned char raw[];
  unsigned char* smem = raw + ((1024 - (smem_address(raw) & 1023)) & 1023);
  const unsigned base = smem_address(smem);
  __half* operands = reinterpret_cast<__half*>(smem);
  for (int i = threadIdx.x; i < kOperandBytes / 2; i += blockDim.x)
    operands[i] = __float2half(float((i * 2654435761u) >> 16) / 32768.f - 1.f);
  if (threadIdx.x == 0) {
    for (int s = 0; s < kRingStages; ++s) mbarrier_init(base + kBarrierOffset + 8 * s, 1);
    fence_barrier_init();
  }
  __syncthreads();
  const int warpgroup = threadIdx.x / 128, t = threadIdx.x % 128;
  if (warpgroup == 0) {
    if constexpr ((MODE & kTensor) != 0) tensor_loop(base, k_blocks, sink);
  } else if (warpgroup == 2) {
    if constexpr ((MODE & kLoads) != 0)
      if (t == 0) loads(load_source, k_blocks, base + kRingOffset, base + kBarrierOffset);
  } else {
    if constexpr ((MODE & kDirect) != 0) direct_stores(c, n, t);
    if constexpr ((MODE & kFragment) != 0) fragment_stores(c, n, t);
    if constexpr ((MODE & kPairs) != 0) pair_stores(c, n, t);
    if constexpr ((MODE & kLines) != 0) line_stores(c, n, t);
    if constexpr ((MODE & kStaged) != 0) staged_stores(c, n, t, base + kOperandBytes);
    if constexpr ((MODE & kTma) != 0) tma_stores(&c_map, n, t, base + kOperandBytes);
  }
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 15, iters = argc > 2 ? std::atoi(argv[2]) : 20;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount, n = 4096;
  std::printf("device %s, %d SMs, one CTA of 384 threads per SM; median of %d graph replays of %d launches\n",
              prop.name, sms, rounds, iters);
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float *c, *sink;
  unsigned char* load_source;
  CHECK(cudaMalloc(&c, size_t(n) * n * sizeof(float)));
  CHECK(cudaMalloc(&load_source, kLoadSourceBytes));
  CHECK(cudaMemset(load_source, 0x3c, kLoadSourceBytes));
  CHECK(cudaMalloc(&sink, 4096));
  // C's tensor map as the wgmma family builds it (src/codegen/wgmma_family.cpp): 64 x 32 FP32 boxes, 128B swizzle.
  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  cudaDriverEntryPointQueryResult found;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", reinterpret_cast<void**>(&encode), 12000,
                                         cudaEnableDefault, &found));
  if (encode == nullptr || found != cudaDriverEntryPointSuccess) {
    std::fprintf(stderr, "the driver has no cuTensorMapEncodeTiled\n");
    return 1;
  }
  TensorMap c_map;
  {
    const cuuint64_t dims[2] = {cuuint64_t(n), cuuint64_t(n)}, strides[1] = {cuuint64_t(n) * 4};
    const cuuint32_t box[2] = {32, 64}, element_strides[2] = {1, 1};
    const CUresult r = encode(reinterpret_cast<CUtensorMap*>(&c_map), CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, c, dims,
                              strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                              CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
      std::fprintf(stderr, "cuTensorMapEncodeTiled failed: %d\n", int(r));
      return 1;
    }
  }
  const auto time_mode = [&](auto kernel, int k_blocks) {
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
    return time_graph(s, rounds, iters,
                      [&] { kernel<<<sms, 384, kSmemBytes, s>>>(c, n, k_blocks, sink, load_source, c_map); });
  };
  const double direct = time_mode(overlap<kDirect>, 0), fragment = time_mode(overlap<kFragment>, 0),
               pairs = time_mode(overlap<kPairs>, 0), lines = time_mode(overlap<kLines>, 0),
               staged = time_mode(overlap<kStaged>, 0), tma = time_mode(overlap<kTma>, 0);
  std::printf(
      "C of 4096 x 4096 FP32 alone (us): direct %.2f, fragment %.2f, pairs %.2f, lines %.2f, staged %.2f, "
      "tma %.2f\n",
      direct, fragment, pairs, lines, staged, tma);
  std::printf("per KB, us (in brackets: the sum of the jobs' times alone; the slowest job alone is the floor):\n");
  for (int k_blocks : {16, 31, 62, 124}) {
    const double tensor = time_mode(overlap<kTensor>, k_blocks), loaded = time_mode(overlap<kLoads>, k_blocks);
    const double both = time_mode(overlap<kTensor | kLoads>, k_blocks);
    std::printf("KB %3d  tensor %6.2f  loads %6.2f  tensor+loads %6.2f [%6.2f]\n", k_blocks, tensor, loaded, both,
                tensor + loaded);
    const auto row = [&](const char* what, double alone, double with_tensor, double with_both) {
      std::printf("        %-8s %6.2f  tensor+%-8s %6.2f [%6.2f]  tensor+loads+%-8s %6.2f [%6.2f]\n", what, alone, what,
                  with_tensor, tensor + alone, what, with_both, tensor + loaded + alone);
    };
    row("direct", direct, time_mode(overlap<kTensor | kDirect>, k_blocks),
        time_mode(overlap<kTensor | kLoads | kDirect>, k_blocks));
    row("fragment", fragment, time_mode(overlap<kTensor | kFragment>, k_blocks),
        time_mode(overlap<kTensor | kLoads | kFragment>, k_blocks));
    row("pairs", pairs, time_mode(overlap<kTensor | kPairs>, k_blocks),
        time_mode(overlap<kTensor | kLoads | kPairs>, k_blocks));
    row("lines", lines, time_mode(overlap<kTensor | kLines>, k_blocks),
        time_mode(overlap<kTensor | kLoads | kLines>, k_blocks));
    row("staged", staged, time_mode(overlap<kTensor | kStaged>, k_blocks),
        time_mode(overlap<kTensor | kLoads | kStaged>, k_blocks));
    row("tma", tma, time_mode(overlap<kTensor | kTma>, k_blocks),
        time_mode(overlap<kTensor | kLoads | kTma>, k_blocks));
  }
  CHECK(cudaDeviceSynchronize());
  return 0;
}
