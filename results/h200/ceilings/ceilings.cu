// What the H200 allows the suite's memory- and launch-bound shapes, timed the way mpgemm times a GEMM (CUDA graphs
// of ITERS back-to-back launches on the same buffers, warm L2, median of ROUNDS replays):
//   copy   cudaMemcpyAsync device to device of 1 GiB: DRAM bandwidth, bytes read + bytes written (METHOD.md)
//   read   a kernel that reads S bytes once (16-byte evict-first loads, __ldcs; every SM busy): what streaming S bytes
//   of B can take,
//          for S = 32 MiB (B of 16x4096x4096), 130 MiB (A and B of 128x8192x8192) and 1 GiB (DRAM alone)
//   write  a kernel that writes S bytes once (16-byte stores): what writing an FP32 C of S bytes can take, for
//          S = 64 MiB (C of 4096x4096xK) and 256 MiB (C of 8192x8192xK)
//   tiles  the same 64 MiB written as a GEMM writes C: 128 x 128 FP32 tiles of a 4096 x 4096 row-major matrix, one
//          block per SM walking tiles, plain stores (write-back policy) or streaming ones (evict first)
//   slabs  B of 128x8192x8192 (8192 rows of 16 KiB) read as the GEMM reads it, each CTA a 256-byte column slab in
//          64-row steps, against the same 128 MiB read linearly by as many CTAs with as many loads in flight
//   ingress  every CTA (one per SM) reads the same 3 MiB, which stays in L2: how fast one SM takes bytes in with
//          L2-only loads (__ldcg) (128x8192x8192's 64 x 128 tiles take 3 MiB each: A's 1 MiB, B's 2 MiB)
//   empty  a kernel that does nothing, on 1 or 132 CTAs, launched plainly or with programmatic dependent launch
//          (as our PDL configs are): the per-launch floor of a graph replay, under the microsecond shapes
//   nvcc -O3 -std=c++17 -arch=sm_90a ceilings.cu -o ceilings && ./ceilings [ROUNDS ITERS]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <utility>
#include <vector>

#include "graph_timing.cuh"

__global__ void fill(float4* p, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = make_float4(1e-3f * (i % 7), 1e-3f * (i % 5), 1e-3f * (i % 3), 1e-3f);
}

// Sums p[i], p[i + stride], ... below n: four independent 16-byte loads in flight per thread per step, streaming
// (evict first, __ldcs) or cached in L2 only (__ldcg).
template <bool STREAMING>
__device__ float strided_sum(const float4* __restrict__ p, size_t n, size_t i, size_t stride) {
  const auto load = [p](size_t k) { return STREAMING ? __ldcs(p + k) : __ldcg(p + k); };
  float acc = 0.f;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const float4 a = load(i), b = load(i + stride), c = load(i + 2 * stride), d = load(i + 3 * stride);
    acc += (a.x + a.y + a.z + a.w) + (b.x + b.y + b.z + b.w) + (c.x + c.y + c.z + c.w) + (d.x + d.y + d.z + d.w);
  }
  for (; i < n; i += stride) {
    const float4 a = load(i);
    acc += a.x + a.y + a.z + a.w;
  }
  return acc;
}

// Reads n float4 once across the grid; one store per thread that never happens (the sum is never exactly -1)
// keeps the loads.
__global__ void read_once(const float4* __restrict__ p, size_t n, float* __restrict__ sink) {
  const float acc =
      strided_sum<true>(p, n, blockIdx.x * size_t(blockDim.x) + threadIdx.x, size_t(gridDim.x) * blockDim.x);
  if (acc == -1.f) sink[threadIdx.x] = acc;
}

// Block b reads column slab b % slabs (16 float4 = 256 bytes wide) of a rows x row_f4 float4 matrix, 64 rows at a
// time per 1024 threads (16 threads per row), four such row groups in flight per step: a GEMM's B tiles of 64 x 128
// halves, one CTA per tile column (or two, like two M tiles).
__global__ void read_slabs(const float4* __restrict__ p, int rows, int row_f4, int slabs, float* __restrict__ sink) {
  const int slab = static_cast<int>(blockIdx.x) % slabs;
  const int per_pass = static_cast<int>(blockDim.x) / 16;
  const float4* q = p + slab * 16 + threadIdx.x % 16;
  float acc = 0.f;
  for (int r = static_cast<int>(threadIdx.x) / 16; r + 3 * per_pass < rows; r += 4 * per_pass) {
    const float4 a = __ldcs(q + size_t(r) * row_f4), b = __ldcs(q + size_t(r + per_pass) * row_f4),
                 c = __ldcs(q + size_t(r + 2 * per_pass) * row_f4), d = __ldcs(q + size_t(r + 3 * per_pass) * row_f4);
    acc += (a.x + a.y + a.z + a.w) + (b.x + b.y + b.z + b.w) + (c.x + c.y + c.z + c.w) + (d.x + d.y + d.z + d.w);
  }
  if (acc == -1.f) sink[threadIdx.x] = acc;
}

// Every block reads all n float4 (the same bytes).
__global__ void read_all_per_block(const float4* __restrict__ p, size_t n, float* __restrict__ sink) {
  const float acc = strided_sum<false>(p, n, threadIdx.x, blockDim.x);
  if (acc == -1.f) sink[threadIdx.x] = acc;
}

// Writes n float4 once, four independent 16-byte stores per thread per step.
__global__ void write_once(float4* __restrict__ p, size_t n) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  const float4 v = make_float4(threadIdx.x, 1.f, 2.f, 3.f);
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    __stcs(p + i, v);
    __stcs(p + i + stride, v);
    __stcs(p + i + 2 * stride, v);
    __stcs(p + i + 3 * stride, v);
  }
  for (; i < n; i += stride) __stcs(p + i, v);
}

// C of an n x n row-major FP32 matrix written tile by tile (128 x 128), as a persistent GEMM's epilogue does.
template <bool STREAMING>
__global__ void write_tiles(float* __restrict__ c, int n) {
  const int tiles_per_row = n / 128, tiles = tiles_per_row * tiles_per_row;
  const float4 v = make_float4(threadIdx.x, 1.f, 2.f, 3.f);
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int r0 = (t / tiles_per_row) * 128, c0 = (t % tiles_per_row) * 128;
    for (int e = threadIdx.x; e < 128 * 32; e += blockDim.x) {  // 32 float4 per row
      float4* q = reinterpret_cast<float4*>(c + size_t(r0 + e / 32) * n + c0) + e % 32;
      if constexpr (STREAMING)
        __stcs(q, v);
      else
        *q = v;
    }
  }
}

template <bool PDL>
__global__ void empty_kernel() {
  if constexpr (PDL) {
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  }
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 15, iters = argc > 2 ? std::atoi(argv[2]) : 20;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  std::printf("device %s, %d SMs; median of %d graph replays of %d launches each\n", prop.name, sms, rounds, iters);
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  const size_t big = size_t(1) << 30;
  float4 *src, *dst;
  float* sink;
  CHECK(cudaMalloc(&src, big));
  CHECK(cudaMalloc(&dst, big));
  CHECK(cudaMalloc(&sink, 4096));
  fill<<<4 * sms, 256, 0, s>>>(src, big / sizeof(float4));
  CHECK(cudaStreamSynchronize(s));

  const double copy_us = time_graph(s, rounds, 4, [&] { CHECK(cudaMemcpyAsync(dst, src, big, cudaMemcpyDeviceToDevice, s)); });
  std::printf("%-44s %10.2f us  %6.3f TB/s (read + written)\n", "copy 1 GiB device to device", copy_us,
              2.0 * big / copy_us / 1e6);

  // The best of three grids (4 or 8 blocks per SM of 256 threads, 4 of 512: at most 2048 threads per SM) for one
  // size; `launch(blocks, threads)` enqueues the kernel. Prints "WHAT SIZE MiB once (best of 3 grids: BLOCKS x
  // THREADS) TIME us  RATE TB/s". (The runs in this folder printed "best of 5": the label was wrong, the grids the
  // same three.)
  const auto best_grid = [&](const char* what, size_t bytes, const auto& launch) {
    double best = 1e30;
    int best_blocks = 0, best_threads = 0;
    for (const auto& grid : {std::pair{4, 256}, std::pair{4, 512}, std::pair{8, 256}}) {
      const int per_sm = grid.first, threads = grid.second;
      const double t = time_graph(s, rounds, iters, [&] { launch(per_sm * sms, threads); });
      if (t < best) best = t, best_blocks = per_sm * sms, best_threads = threads;
    }
    std::printf("%s %7.1f MiB once (best of 3 grids: %4d x %3d) %10.2f us  %6.3f TB/s\n", what, bytes / 1048576.0,
                best_blocks, best_threads, best, bytes / best / 1e6);
  };
  for (size_t bytes : {size_t(32) << 20, size_t(130) << 20, big})
    best_grid("read ", bytes, [&](int blocks, int threads) {
      read_once<<<blocks, threads, 0, s>>>(src, bytes / sizeof(float4), sink);
    });
  for (size_t bytes : {size_t(64) << 20, size_t(256) << 20, big})
    best_grid("write", bytes, [&](int blocks, int threads) {
      write_once<<<blocks, threads, 0, s>>>(dst, bytes / sizeof(float4));
    });

  {
    const int rows = 8192, row_f4 = 1024;  // 8192 x 8192 halves
    const size_t bytes = size_t(rows) * row_f4 * 16;
    const auto slabs = [&](int blocks, int slab_count) {
      return time_graph(s, rounds, iters, [&] { read_slabs<<<blocks, 1024, 0, s>>>(src, rows, row_f4, slab_count, sink); });
    };
    const auto linear = [&](int blocks) {
      return time_graph(s, rounds, iters, [&] { read_once<<<blocks, 1024, 0, s>>>(src, bytes / 16, sink); });
    };
    const double t_lin128 = linear(128), t_lin132 = linear(sms), t_slab128 = slabs(128, 64), t_slab64 = slabs(64, 64);
    std::printf("slabs: 128 MiB linear, 128 x 1024 threads %8.2f us  %6.3f TB/s\n", t_lin128, bytes / t_lin128 / 1e6);
    std::printf("slabs: 128 MiB linear, %d x 1024 threads %8.2f us  %6.3f TB/s\n", sms, t_lin132, bytes / t_lin132 / 1e6);
    std::printf("slabs: 64 slabs of 256 B, 2 CTAs each (128) %8.2f us  %6.3f TB/s\n", t_slab128, bytes / t_slab128 / 1e6);
    std::printf("slabs: 64 slabs of 256 B, 1 CTA each (64)   %8.2f us  %6.3f TB/s\n", t_slab64, bytes / t_slab64 / 1e6);
  }

  for (bool streaming : {false, true}) {
    const int n = 4096;
    const double t = time_graph(s, rounds, iters, [&] {
      if (streaming)
        write_tiles<true><<<sms, 256, 0, s>>>(reinterpret_cast<float*>(dst), n);
      else
        write_tiles<false><<<sms, 256, 0, s>>>(reinterpret_cast<float*>(dst), n);
    });
    std::printf("tiles: 4096^2 FP32 C in 128x128 tiles, %-9s stores %8.2f us  %6.3f TB/s\n",
                streaming ? "streaming" : "plain", t, 4.0 * n * n / t / 1e6);
  }

  {
    const size_t bytes = size_t(3) << 20;
    for (int threads : {512, 1024}) {
      const double t = time_graph(s, rounds, iters, [&] {
        read_all_per_block<<<sms, threads, 0, s>>>(src, bytes / sizeof(float4), sink);
      });
      std::printf("ingress: %d CTAs x %4d threads each read the same 3 MiB %8.2f us  %6.1f GB/s per SM\n", sms,
                  threads, t, bytes / t / 1e3);
    }
  }

  for (int blocks : {1, sms})
    for (bool pdl : {false, true}) {
      const double t = time_graph(s, rounds, iters, [&] {
        cudaLaunchConfig_t c = {};
        c.gridDim = dim3(blocks);
        c.blockDim = dim3(128);
        c.stream = s;
        cudaLaunchAttribute at[1];
        at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        at[0].val.programmaticStreamSerializationAllowed = 1;
        c.attrs = at;
        c.numAttrs = pdl ? 1 : 0;
        if (pdl)
          CHECK(cudaLaunchKernelEx(&c, empty_kernel<true>));
        else
          CHECK(cudaLaunchKernelEx(&c, empty_kernel<false>));
      });
      char what[64];
      std::snprintf(what, sizeof what, "empty kernel, %d CTA(s)%s", blocks, pdl ? ", dependent launch" : "");
      std::printf("%-44s %10.2f us per launch\n", what, t);
    }
  CHECK(cudaDeviceSynchronize());
  return 0;
}
