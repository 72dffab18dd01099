#pragma once
// wmma_gemm: C (M x N, FP32, row-major) = A (M x K, FP16, row-major) * B (K x N, FP16, row-major), FP32 accumulate,
// with WMMA m16n16k16 half -> float fragments. One template; the writeup's three kernels are points of it:
//   wmma_naive    <16, 16, 16, 16, 16, 1, 0, 0, 0>   one warp per 16x16 tile, operands straight from global memory
//   wmma_shared   <128, 64, 64, 32, 32, 1, 1, 0, 0>  8 warps of 32x32; global -> registers -> shared, one buffer
//   wmma_cp_async <128, 64, 32, 32, 32, 2, 2, 8, 8>  cp.async.cg 16-byte copies into a 2-stage padded ring
//
// Parameters: BM x BN x BK block tile; WM x WN warp tile; (BM/WM)*(BN/WN) warps in a 1-D block; STAGES-deep ring;
// LOAD 0 direct, 1 sync, 2 cp_async; shared strides BK + PAD_A (A tile, BM x BK) and BN + PAD_B (B tile, BK x BN).
//
// Dynamic shared memory (bytes), computed on the host by WmmaConfig::smem_bytes():
//   LOAD 1, 2: max(STAGES * (BM * (BK + PAD_A) + BK * (BN + PAD_B)) * 2, warps * 16 * 16 * 4)
//   LOAD 0:    0
// The second term is the epilogue's per-warp 16x16 float staging tile; it reuses the operand ring.
//
// Bounds: LOAD 0 needs M, N, K multiples of 16. LOAD 1 and 2 take any M and N and K a multiple of 8: tiles are
// zero-filled outside the matrices, and edge fragments of C go through the staging tile with bounds checks.
// A and B must be 16-byte aligned (LOAD 0: 32-byte) and C 32-byte aligned; the host checks before launch.
#include <cuda_fp16.h>
#include <mma.h>

#include "wmma_choices.cuh"

namespace mpgemm {
namespace wmma_detail {

constexpr int kFrag = 16;   // WMMA m16n16k16: every fragment edge
constexpr int kChunk = 8;   // halves per 16-byte copy
constexpr int kWarp = 32;

__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void cp_async_16(void* dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(shared_address(dst)), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int PENDING>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
}
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }

// Eight halves at p[0..7], zero where col + e >= cols; element by element, for rows that are not 16-byte aligned
// (ld % 8 != 0) or chunks that straddle the right edge.
__device__ __forceinline__ uint4 read_chunk_scalar(const __half* p, int col, int cols) {
  unsigned w[4] = {0u, 0u, 0u, 0u};
#pragma unroll
  for (int e = 0; e < kChunk; ++e)
    if (col + e < cols) w[e / 2] |= static_cast<unsigned>(__half_as_ushort(p[e])) << (16 * (e % 2));
  return make_uint4(w[0], w[1], w[2], w[3]);
}

// A ROWS x COLS half tile copied from global memory (row-major, leading dimension ld, of which only rows x cols
// exist from the tile's origin) into shared memory with stride LDS, by THREADS threads in coalesced 16-byte chunks.
template <int ROWS, int COLS, int LDS, int THREADS>
struct TileCopy {
  static constexpr int kPerRow = COLS / kChunk;
  static constexpr int kChunks = ROWS * kPerRow;
  static constexpr int kIters = (kChunks + THREADS - 1) / THREADS;
  static_assert(COLS % kChunk == 0, "tile rows are copied in 16-byte chunks");

  __device__ static bool owns(int it) { return kChunks % THREADS == 0 || int(threadIdx.x) + it * THREADS < kChunks; }
  __device__ static int row_of(int it) { return (int(threadIdx.x) + it * THREADS) / kPerRow; }
  __device__ static int col_of(int it) { return (int(threadIdx.x) + it * THREADS) % kPerRow * kChunk; }

  __device__ static uint4 read(const __half* g, int ld, int rows, int cols, int row, int col) {
    if (row >= rows || col >= cols) return make_uint4(0u, 0u, 0u, 0u);
    const __half* p = g + static_cast<size_t>(row) * ld + col;
    if (ld % kChunk == 0 && col + kChunk <= cols) return *reinterpret_cast<const uint4*>(p);
    return read_chunk_scalar(p, col, cols);
  }

  // LOAD 1, first half: global -> registers.
  __device__ static void load(uint4 (&r)[kIters], const __half* g, int ld, int rows, int cols) {
#pragma unroll
    for (int it = 0; it < kIters; ++it)
      if (owns(it)) r[it] = read(g, ld, rows, cols, row_of(it), col_of(it));
  }
  // LOAD 1, second half: registers -> shared.
  __device__ static void store(const uint4 (&r)[kIters], __half* s) {
#pragma unroll
    for (int it = 0; it < kIters; ++it)
      if (owns(it)) *reinterpret_cast<uint4*>(s + row_of(it) * LDS + col_of(it)) = r[it];
  }
  // LOAD 2: global -> shared with cp.async where the chunk is whole and aligned, plain stores elsewhere.
  __device__ static void copy_async(__half* s, const __half* g, int ld, int rows, int cols) {
#pragma unroll
    for (int it = 0; it < kIters; ++it) {
      if (!owns(it)) continue;
      const int row = row_of(it), col = col_of(it);
      __half* dst = s + row * LDS + col;
      if (row < rows && col + kChunk <= cols && ld % kChunk == 0)
        cp_async_16(dst, g + static_cast<size_t>(row) * ld + col);
      else
        *reinterpret_cast<uint4*>(dst) = read(g, ld, rows, cols, row, col);
    }
  }
};

// One BK slice held in shared memory: acc[i][j] += A(warp rows i) * B(warp cols j).
template <int BK, int WM, int WN, int LDA, int LDB, class Acc>
__device__ __forceinline__ void mma_slice(Acc (&acc)[WM / kFrag][WN / kFrag], const __half* as, const __half* bs) {
  using namespace nvcuda;
#pragma unroll
  for (int kk = 0; kk < BK; kk += kFrag) {
    wmma::fragment<wmma::matrix_b, kFrag, kFrag, kFrag, __half, wmma::row_major> b[WN / kFrag];
#pragma unroll
    for (int j = 0; j < WN / kFrag; ++j) wmma::load_matrix_sync(b[j], bs + kk * LDB + j * kFrag, LDB);
#pragma unroll
    for (int i = 0; i < WM / kFrag; ++i) {
      wmma::fragment<wmma::matrix_a, kFrag, kFrag, kFrag, __half, wmma::row_major> a;
      wmma::load_matrix_sync(a, as + i * kFrag * LDA + kk, LDA);
#pragma unroll
      for (int j = 0; j < WN / kFrag; ++j) wmma::mma_sync(acc[i][j], a, b[j], acc[i][j]);
    }
  }
}

// Writes the warp's accumulators at C(row0, col0). Whole in-bounds fragments go straight to C when N allows a
// legal WMMA leading dimension; edge fragments go through this warp's 16x16 staging tile (null for LOAD 0, which
// only ever sees whole fragments).
template <int WM, int WN, class Acc>
__device__ __forceinline__ void store_tile(Acc (&acc)[WM / kFrag][WN / kFrag], float* C, int M, int N, int row0,
                                           int col0, float* staging) {
  using namespace nvcuda;
  const int lane = int(threadIdx.x) % kWarp;
#pragma unroll
  for (int i = 0; i < WM / kFrag; ++i) {
#pragma unroll
    for (int j = 0; j < WN / kFrag; ++j) {
      const int row = row0 + i * kFrag, col = col0 + j * kFrag;
      if (row >= M || col >= N) continue;  // warp-uniform
      if (row + kFrag <= M && col + kFrag <= N && N % 4 == 0) {
        wmma::store_matrix_sync(C + static_cast<size_t>(row) * N + col, acc[i][j], N, wmma::mem_row_major);
        continue;
      }
      wmma::store_matrix_sync(staging, acc[i][j], kFrag, wmma::mem_row_major);
      __syncwarp();
      for (int e = lane; e < kFrag * kFrag; e += kWarp) {
        const int r = row + e / kFrag, c = col + e % kFrag;
        if (r < M && c < N) C[static_cast<size_t>(r) * N + c] = staging[e];
      }
      __syncwarp();
    }
  }
}

}  // namespace wmma_detail

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int LOAD, int PAD_A, int PAD_B>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32)
    wmma_gemm(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C, int M, int N,
              int K) {
  using namespace nvcuda;
  using namespace wmma_detail;
  static_assert(WM > 0 && WN > 0 && WM % kFrag == 0 && WN % kFrag == 0, "WM and WN must be multiples of 16");
  static_assert(BM % WM == 0 && BN % WN == 0, "BM must be a multiple of WM and BN of WN");
  static_assert(BK > 0 && BK % kFrag == 0, "BK must be a multiple of 16");
  static_assert(PAD_A >= 0 && PAD_B >= 0, "padding cannot be negative");
  static_assert((BK + PAD_A) % 8 == 0 && (BN + PAD_B) % 8 == 0,
                "WMMA leading dimensions BK+PAD_A and BN+PAD_B must be multiples of 8 halves (16 bytes)");
  static_assert(LOAD == kLoadDirect || LOAD == kLoadSync || LOAD == kLoadCpAsync, "LOAD is 0, 1 or 2");
  static_assert(LOAD == kLoadCpAsync ? STAGES >= 2 : STAGES == 1, "cp_async needs STAGES >= 2, the others 1");
  static_assert(LOAD != kLoadDirect || (PAD_A == 0 && PAD_B == 0), "direct loads use no shared memory to pad");
  constexpr int kThreads = (BM / WM) * (BN / WN) * kWarp;
  static_assert(kThreads <= 1024, "at most 1024 threads per block");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  static_assert(LOAD != kLoadCpAsync, "cp.async needs sm_80 or newer");
#endif

  const int warp = int(threadIdx.x) / kWarp;
  const int row0 = int(blockIdx.y) * BM + warp / (BN / WN) * WM;  // warp tile origin in C
  const int col0 = int(blockIdx.x) * BN + warp % (BN / WN) * WN;
  wmma::fragment<wmma::accumulator, kFrag, kFrag, kFrag, float> acc[WM / kFrag][WN / kFrag];
#pragma unroll
  for (int i = 0; i < WM / kFrag; ++i)
#pragma unroll
    for (int j = 0; j < WN / kFrag; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  if constexpr (LOAD == kLoadDirect) {
    // M, N, K are multiples of 16; fragments past the edge of a partial block tile are clamped onto the last
    // fragment (valid memory) and never stored. No barriers here, so idle warps may leave.
    if (row0 >= M || col0 >= N) return;
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
      for (int kk = 0; kk < BK; kk += kFrag) {
        if (k0 + kk >= K) break;
        wmma::fragment<wmma::matrix_b, kFrag, kFrag, kFrag, __half, wmma::row_major> b[WN / kFrag];
#pragma unroll
        for (int j = 0; j < WN / kFrag; ++j) {
          const int col = min(col0 + j * kFrag, N - kFrag);
          wmma::load_matrix_sync(b[j], B + static_cast<size_t>(k0 + kk) * N + col, N);
        }
#pragma unroll
        for (int i = 0; i < WM / kFrag; ++i) {
          const int row = min(row0 + i * kFrag, M - kFrag);
          wmma::fragment<wmma::matrix_a, kFrag, kFrag, kFrag, __half, wmma::row_major> a;
          wmma::load_matrix_sync(a, A + static_cast<size_t>(row) * K + k0 + kk, K);
#pragma unroll
          for (int j = 0; j < WN / kFrag; ++j) wmma::mma_sync(acc[i][j], a, b[j], acc[i][j]);
        }
      }
    }
    store_tile<WM, WN>(acc, C, M, N, row0, col0, nullptr);
  } else {
    constexpr int kLda = BK + PAD_A, kLdb = BN + PAD_B;
    constexpr int kStageA = BM * kLda, kStageB = BK * kLdb;  // halves per stage
    using CopyA = TileCopy<BM, BK, kLda, kThreads>;
    using CopyB = TileCopy<BK, BN, kLdb, kThreads>;
    extern __shared__ __align__(128) unsigned char wmma_gemm_smem[];
    __half* as = reinterpret_cast<__half*>(wmma_gemm_smem);  // STAGES x BM x kLda
    __half* bs = as + STAGES * kStageA;                       // STAGES x BK x kLdb

    const int block_m = int(blockIdx.y) * BM, block_n = int(blockIdx.x) * BN;
    const __half* a_block = A + static_cast<size_t>(block_m) * K;
    const __half* b_block = B + block_n;
    const int a_rows = M - block_m, b_cols = N - block_n;
    const int k_tiles = (K + BK - 1) / BK;
    const __half* as_warp = as + (warp / (BN / WN)) * WM * kLda;
    const __half* bs_warp = bs + (warp % (BN / WN)) * WN;

    if constexpr (LOAD == kLoadSync) {
      for (int kt = 0; kt < k_tiles; ++kt) {
        const int k0 = kt * BK;
        uint4 ra[CopyA::kIters], rb[CopyB::kIters];
        CopyA::load(ra, a_block + k0, K, a_rows, K - k0);
        CopyB::load(rb, b_block + static_cast<size_t>(k0) * N, N, K - k0, b_cols);
        __syncthreads();  // every warp is done reading the previous slice
        CopyA::store(ra, as);
        CopyB::store(rb, bs);
        __syncthreads();
        mma_slice<BK, WM, WN, kLda, kLdb>(acc, as_warp, bs_warp);
      }
    } else {
      auto issue = [&](int kt) {  // always commits a group, empty past the end, so the wait counts stay fixed
        if (kt < k_tiles) {
          const int k0 = kt * BK, s = kt % STAGES;
          CopyA::copy_async(as + s * kStageA, a_block + k0, K, a_rows, K - k0);
          CopyB::copy_async(bs + s * kStageB, b_block + static_cast<size_t>(k0) * N, N, K - k0, b_cols);
        }
        cp_async_commit();
      };
#pragma unroll
      for (int s = 0; s < STAGES - 1; ++s) issue(s);
      for (int kt = 0; kt < k_tiles; ++kt) {
        cp_async_wait<STAGES - 2>();  // slice kt has landed for this thread...
        __syncthreads();              // ...and for all; everyone is also done with slice kt - 1's stage
        issue(kt + STAGES - 1);       // refills the stage slice kt - 1 used
        const int s = kt % STAGES;
        mma_slice<BK, WM, WN, kLda, kLdb>(acc, as_warp + s * kStageA, bs_warp + s * kStageB);
      }
      cp_async_wait_all();
    }
    __syncthreads();  // the operand ring becomes the epilogue's staging area
    store_tile<WM, WN>(acc, C, M, N, row0, col0, reinterpret_cast<float*>(wmma_gemm_smem) + warp * kFrag * kFrag);
  }
}

}  // namespace mpgemm
