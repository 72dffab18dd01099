// How fast one SM's TMA unit takes in boxes of the sizes the wgmma family loads, by box size and shape: one thread
// per block (one block per SM) issues OPS copies of one box each into a ring of shared-memory slots (each slot's
// mbarrier re-armed when its previous copy has landed), and clock64 times the issue loop and the whole.
// Boxes: 2-D {64 halves, R rows} as the family's A and B boxes (128-byte swizzle), and 3-D {64, R, D}: D blocks of
// 64 columns of K in one copy (the same bytes as D 2-D copies), over a view of the matrix as {64, rows, K / 64}.
// The 3-D copy is hopper_ptx.cuh's tma_load_3d (run 1 used a copy of the same asm in this file, before the family had
// one). The source, 8192 x 1024 halves (16 MiB), stays in L2 across the graph's launches. Rows: every block reads the
// same sequence of boxes ("shared", as 8-16 blocks share each A and B box in a 512^3 GEMM), or its own ("own").
//
//   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I../../../../kernels -I../../ceilings tma_ops.cu \
//        -o tma_ops && ./tma_ops 15 20
#include <cuda.h>
#include <cudaTypedefs.h>

#include <algorithm>
#include <vector>

#include "graph_timing.cuh"
#include "hopper_ptx.cuh"

using namespace mpgemm::hopper;

namespace {

constexpr int kRows = 8192, kCols = 1024, kKBlocks = kCols / 64;
constexpr int kSmemBytes = 200 * 1024, kMaxSlots = 16;

__device__ __forceinline__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// out per block: cycles to issue, cycles until the last copy landed, ns for the same.
__global__ void __launch_bounds__(128, 1)
    tma_ops(const __grid_constant__ TensorMap map, int depth, int box_rows, unsigned box_bytes, int slots, int ops,
            int own_rows, unsigned long long* out) {
  extern __shared__ unsigned char smem_raw[];
  __shared__ __align__(8) unsigned long long bars[kMaxSlots];
  const unsigned base = (smem_address(smem_raw) + 1023) & ~1023u;
  if (threadIdx.x == 0) {
    for (int s = 0; s < slots; ++s) mbarrier_init(smem_address(&bars[s]), 1);
    fence_barrier_init();
    prefetch_tensor_map(&map);
  }
  __syncthreads();
  if (threadIdx.x != 0) return;
  const int row_block = own_rows ? static_cast<int>(blockIdx.x) : 0;
  const int steps = depth > 0 ? kKBlocks / depth : kKBlocks;  // copies along K before moving down the rows
  const unsigned long long t0 = now_ns();
  const long long c0 = clock64();
  for (int i = 0; i < ops; ++i) {
    const int slot = i % slots;
    const unsigned bar = smem_address(&bars[slot]);
    if (i >= slots) mbarrier_wait(bar, ((i / slots) - 1) & 1);
    mbarrier_arrive_expect_tx(bar, box_bytes);
    const int row = ((row_block * 7 + i / steps) * box_rows) % kRows;
    const unsigned dst = base + slot * box_bytes;
    if (depth == 0)
      tma_load_2d(dst, &map, bar, (i % steps) * 64, row);
    else
      tma_load_3d(dst, &map, bar, 0, row, (i % steps) * depth);
  }
  const long long c_issued = clock64();
  for (int i = ops > slots ? ops - slots : 0; i < ops; ++i)
    mbarrier_wait(smem_address(&bars[i % slots]), (i / slots) & 1);
  const long long c_end = clock64();
  const unsigned long long t_end = now_ns();
  out[3 * blockIdx.x] = static_cast<unsigned long long>(c_issued - c0);
  out[3 * blockIdx.x + 1] = static_cast<unsigned long long>(c_end - c0);
  out[3 * blockIdx.x + 2] = t_end - t0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 15, iters = argc > 2 ? std::atoi(argv[2]) : 20;
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  unsigned short* x;  // FP16 bits; the values do not matter
  unsigned long long* out;
  CHECK(cudaMalloc(&x, size_t(kRows) * kCols * 2));
  CHECK(cudaMemset(x, 0x3c, size_t(kRows) * kCols * 2));
  CHECK(cudaMalloc(&out, size_t(sms) * 3 * 8));
  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  cudaDriverEntryPointQueryResult found;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", reinterpret_cast<void**>(&encode), 12000,
                                         cudaEnableDefault, &found));
  if (encode == nullptr || found != cudaDriverEntryPointSuccess) {
    std::fprintf(stderr, "the driver has no cuTensorMapEncodeTiled\n");
    return 1;
  }
  CHECK(cudaFuncSetAttribute(tma_ops, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  std::printf("%d blocks (one per SM), one issuing thread each; medians over blocks of the last launch of a graph of "
              "%d; launch: median per launch of %d graph replays\n",
              sms, iters, rounds);
  std::printf("%-6s %-14s %6s %5s %4s %11s %11s %9s %9s %9s\n", "rows", "box", "bytes", "slots", "ops",
              "issue cyc/op", "total cyc/op", "B/cycle", "GB/s", "launch us");
  const int ops = 32;
  struct Box {
    int depth, rows;
  };
  for (int own = 0; own < 2; ++own)
    for (Box b : {Box{0, 16}, Box{0, 32}, Box{0, 64}, Box{0, 128}, Box{0, 256}, Box{2, 32}, Box{4, 32}, Box{2, 64},
                  Box{4, 64}, Box{2, 128}}) {
      TensorMap map;
      CUresult r;
      if (b.depth == 0) {
        const cuuint64_t dims[2] = {kCols, kRows}, strides[1] = {kCols * 2};
        const cuuint32_t box[2] = {64, cuuint32_t(b.rows)}, es[2] = {1, 1};
        r = encode(reinterpret_cast<CUtensorMap*>(&map), CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, x, dims, strides, box, es,
                   CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
      } else {
        const cuuint64_t dims[3] = {64, kRows, kKBlocks}, strides[2] = {kCols * 2, 128};
        const cuuint32_t box[3] = {64, cuuint32_t(b.rows), cuuint32_t(b.depth)}, es[3] = {1, 1, 1};
        r = encode(reinterpret_cast<CUtensorMap*>(&map), CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 3, x, dims, strides, box, es,
                   CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
      }
      char name[32];
      std::snprintf(name, sizeof name, b.depth ? "{64,%d,%d}" : "{64,%d}", b.rows, b.depth);
      if (r != CUDA_SUCCESS) {
        std::printf("%-6s %-14s refused by cuTensorMapEncodeTiled (%d)\n", own ? "own" : "shared", name, int(r));
        continue;
      }
      const unsigned bytes = 128u * b.rows * (b.depth ? b.depth : 1);
      const int slots = std::min<int>(kMaxSlots, (kSmemBytes - 1024) / bytes);
      const double launch = time_graph(s, rounds, iters, [&] {
        tma_ops<<<sms, 128, kSmemBytes, s>>>(map, b.depth, b.rows, bytes, slots, ops, own, out);
      });
      std::vector<unsigned long long> h(size_t(sms) * 3);
      CHECK(cudaMemcpy(h.data(), out, h.size() * 8, cudaMemcpyDeviceToHost));
      std::vector<double> issue, total, ghz;
      for (int i = 0; i < sms; ++i) {
        issue.push_back(double(h[3 * i]) / ops);
        total.push_back(double(h[3 * i + 1]) / ops);
        if (h[3 * i + 2] > 0) ghz.push_back(double(h[3 * i + 1]) / double(h[3 * i + 2]));
      }
      const double per_op = median(total), clock = median(ghz);
      std::printf("%-6s %-14s %6u %5d %4d %11.1f %11.1f %9.1f %9.1f %9.3f\n", own ? "own" : "shared", name, bytes,
                  slots, ops, median(issue), per_op, bytes / per_op, bytes / per_op * clock, launch);
    }
  return 0;
}
