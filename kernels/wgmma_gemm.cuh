#pragma once
// wgmma_gemm: D (M x N, row-major) = alpha * A (M x K) * B (K x N) + beta * C, FP32 accumulate, on Hopper's
// warpgroup MMA (wgmma.mma_async, sm_90a) fed by the tensor memory accelerator (TMA). The problem kind is the last
// template arguments (wgmma_choices.cuh; the defaults are the first problem mpgemm tuned, D FP32 = A FP16 row-major *
// B FP16 row-major):
//   A_LAYOUT  mk: A stored M x K row-major; km: K x M row-major (M-major: the transposed wgmma A, not swapped);
//   B_LAYOUT  kn: B stored K x N row-major; nk: N x K row-major (a linear layer's weight), K-major like A;
//   IN        FP16 or BF16, A's and B's type (the bf16 wgmma; shared memory holds either alike);
//   OUT       FP32, FP16 or BF16, D's and C's type: computed in FP32 and rounded once (wgmma_output.cuh);
//   BETA      0: D = alpha * A.B, C is never read; 1: D = alpha * A.B + beta * C (C may be D);
//   OP        the fused epilogue (epilogue_ops.cuh): 0 none; else D = act(alpha * A.B + beta * C + bias), bias a
//             length-N vector of OUT (`bias`), applied once per element of D, in FP32, before the one rounding.
// alpha is applied in every kind (one FMUL per element of D).
//
// One CTA = one producer warpgroup + CONSUMERS consumer warpgroups (warp specialisation). This file is the kernel's
// entry: its checks, the set-up, and the composition of its pieces, each templated on the same Config
// (wgmma_pipeline.cuh, with the ring's barriers and the walk over work units, the tile scheduler):
//   producer  wgmma_producer.cuh: one thread issues TMA loads of BM x 64 A tiles and 64 x BN B tiles into a
//             STAGES-deep shared-memory ring, tile after tile; "full" mbarriers count the bytes in, "empty" mbarriers
//             the releases.
//   consumers wgmma_mainloop.cuh: m64nBNk16 wgmmas from shared memory into FP32 registers (cooperative or
//             pingpong, with its "order" turns), then wgmma_epilogue.cuh: the accumulators into C (EPILOGUE 0
//             direct, 1 tma, 2 rows; split-K's slices added in order).
// The grid walks cluster tiles (CLUSTER_M x CLUSTER_N block tiles), persistent when smaller than the tile count
// (wgmma_pipeline.cuh); the CTAs of a cluster multicast the operand slices they share (wgmma_producer.cuh).
//
// Swap-AB (SWAP_AB = 1, for skinny M): the wgmmas compute the tile of C's transpose (wgmma_mainloop.cuh), which goes
// out through the direct epilogue only.
//
// Dependent launch (PDL 1 or 2; the host launches with programmatic stream serialization): the block's set-up
// (barriers, tensor-map prefetch, cluster sync) runs while the previous kernel of the stream finishes; then the
// block waits for that kernel's memory (griddepcontrol.wait). PDL 1 then at once lets the next kernel start
// launching (its blocks take an SM as this grid's blocks leave it); PDL 2 leaves that to the implicit trigger at the
// block's exit. Nothing of the computation changes.
//
// L2 hints (L2_HINTS): 0 none; 1 C's stores (every epilogue) marked evict-first (wgmma_epilogue.cuh); 2 that, and
// A's and B's loads marked evict-last (wgmma_producer.cuh).
//
// Bounds: any M and N; K and N multiples of 8 (TMA needs 16-byte row strides of A, B, D and C); with BK > 64, K a
// multiple of 64 (wgmma_producer.cuh). Edges need no code: TMA fills out-of-bounds loads with zeros (the barrier still
// counts the full box) and clips out-of-bounds stores.
//
// The shared-memory layout is wgmma_layout.cuh's (shared with the host); the host launches
// Layout::dynamic_smem_bytes() of dynamic shared memory, (CONSUMERS + 1) * 128 threads and clusters of
// CLUSTER_M * CLUSTER_N CTAs along x, and passes tensor maps built by the wgmma family (src/codegen/):
//   a_map  mk: IN {K, M}, box {64, BM / CLUSTER_N}; BK > 64: IN {64, M, K / 64}, box {64, BM, BK / 64};
//          km: IN {M, K}, box {64, BK / CLUSTER_N}; 128B swizzle
//   b_map  kn: IN {N, K}, box {64, BK / CLUSTER_M}; nk: IN {K, N}, box {64, BN / CLUSTER_M}; 128B swizzle
//   c_map  OUT {N, M}, box {128 bytes of columns (32 FP32, 64 16-bit), 64}, 128B swizzle (the tma epilogue's only)
// and the kernel arguments below: D (OUT), the workspace (`flags`: split-K's flags, zeroed; with a 16-bit D and split-K
// also the split tiles' FP32 partial sums from byte kSplitPartialsOffset on: split_k.cuh), M, N, K, alpha, beta, C
// (OUT; read when BETA) and the bias (N values of OUT; read when OP is not 0).
#include "epilogue_ops.cuh"
#include "hopper_ptx.cuh"
#include "split_k.cuh"
#include "tile_schedule.cuh"
#include "wgmma_choices.cuh"
#include "wgmma_epilogue.cuh"
#include "wgmma_layout.cuh"
#include "wgmma_mainloop.cuh"
#include "wgmma_pipeline.cuh"
#include "wgmma_producer.cuh"

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "wgmma_gemm.cuh needs the sm_90a target (wgmma and setmaxnreg exist only there)"
#endif

namespace mpgemm {
namespace wgmma_detail {

constexpr int kProducerRegs = 40;   // registers per producer thread once it gives its share away (setmaxnreg)
constexpr int kConsumerRegs = 232;  // per consumer thread with two consumers: 128 * 40 + 256 * 232 <= 65536

}  // namespace wgmma_detail

template <int BM, int BN, int STAGES, int CONSUMERS, int CLUSTER_M, int CLUSTER_N, int RASTER, int GROUP, int EPILOGUE,
          int SCHEDULE, int C_BUFFERS, int SPLIT_K, int SPLIT_MODE, int SWAP_AB, int PDL, int L2_HINTS,
          int BK = wgmma_layout::kBK, int A_LAYOUT = kALayoutMk, int B_LAYOUT = kBLayoutKn, int IN = kElementFp16,
          int OUT = kElementFp32, int BETA = 0, int OP = epilogue_ops::kOpNone>
__global__ void __launch_bounds__((CONSUMERS + 1) * 128, 1)
    wgmma_gemm(const __grid_constant__ hopper::TensorMap a_map, const __grid_constant__ hopper::TensorMap b_map,
               const __grid_constant__ hopper::TensorMap c_map, void* __restrict__ C, int* __restrict__ flags, int M,
               int N, int K, float alpha, float beta, const void* C_in, const void* bias) {
  using namespace hopper;
  using namespace wgmma_layout;
  using namespace wgmma_detail;
  using Cfg = Config<BM, BN, STAGES, CONSUMERS, CLUSTER_M, CLUSTER_N, RASTER, GROUP, EPILOGUE, SCHEDULE, C_BUFFERS,
                     SPLIT_K, SPLIT_MODE, SWAP_AB, PDL, L2_HINTS, BK, A_LAYOUT, B_LAYOUT, IN, OUT, BETA, OP>;
  constexpr bool PINGPONG = Cfg::PINGPONG;
  constexpr bool SWAP = Cfg::SWAP;
  constexpr bool AB_LAST = Cfg::AB_LAST;
  constexpr Layout L = Cfg::layout();
  constexpr int CLUSTER = Cfg::CLUSTER;
  constexpr int ROWS = Cfg::ROWS;
  constexpr int M_BLOCKS = Cfg::M_BLOCKS;  // 64-row wgmma blocks per consumer: of BM, or of BN when swapped
  constexpr int WN = Cfg::WN;              // the wgmma N: BN, or BM when swapped
  static_assert(CONSUMERS == 1 || CONSUMERS == 2, "one or two consumer warpgroups");
  static_assert(ROWS % kWgmmaM == 0, "each consumer owns whole m64 blocks");
  static_assert(WN % 8 == 0 && WN >= 8 && WN <= 256, "wgmma N is a multiple of 8 up to 256");
  static_assert(!SWAP || BN % kBChunk == 0, "swapped, each 64-row wgmma block is one whole B chunk");
  static_assert(!SWAP || EPILOGUE == kEpilogueDirect, "swapped tiles go out through the direct epilogue");
  static_assert(L.accumulators() <= 128, "at most 128 FP32 accumulators per thread");
  static_assert(BM <= 256 && BM % (8 * CLUSTER_N) == 0, "A slices are whole 8-row swizzle atoms, boxes <= 256 rows");
  static_assert(Cfg::B_NK ? BN % (8 * CLUSTER_M) == 0 : BK % (8 * CLUSTER_M) == 0,
                "B slices are whole 8-row swizzle atoms");
  static_assert(A_LAYOUT == kALayoutMk || A_LAYOUT == kALayoutKm, "A is stored M x K (mk) or K x M (km)");
  static_assert(!Cfg::A_KM || (!SWAP && BM % kWgmmaM == 0 && BK % (8 * CLUSTER_N) == 0),
                "A stored K x M: unswapped, whole 64-row chunks, multicast in whole 8-row swizzle atoms of K");
  static_assert(B_LAYOUT == kBLayoutKn || B_LAYOUT == kBLayoutNk, "B is stored K x N (kn) or N x K (nk)");
  static_assert(IN == kElementFp16 || IN == kElementBf16, "A and B are FP16 or BF16");
  static_assert(OUT == kElementFp32 || OUT == kElementFp16 || OUT == kElementBf16, "D is FP32, FP16 or BF16");
  static_assert(BETA == 0 || BETA == 1, "BETA is 0 (C is not read) or 1");
  static_assert(OP >= epilogue_ops::kOpNone && OP <= epilogue_ops::kOpBiasGelu, "OP is one of epilogue_ops' kOp*");
  static_assert(BK == 64 || BK == 128 || BK == 256, "a stage is 1, 2 or 4 k-blocks of 64");
  static_assert(BK == kBK || Cfg::A_KM || (CLUSTER_N == 1 && !AB_LAST),
                "A's 3-D copies are neither multicast nor hinted");
  static_assert(CLUSTER <= 16, "multicast masks are 16 bits");
  static_assert(EPILOGUE == kEpilogueDirect || BN % kCSubCols == 0, "tma and rows store 32-column groups");
  static_assert(STAGES >= 2, "a ring needs two stages");
  static_assert(!PINGPONG || CONSUMERS == 2, "pingpong alternates two consumers");
  static_assert(EPILOGUE != kEpilogueTma || C_BUFFERS >= 1, "the tma epilogue needs a staging buffer");
  static_assert(SPLIT_K >= 1, "SPLIT_K slices of K");
  static_assert(L2_HINTS >= kL2HintsNone && L2_HINTS <= kL2HintsCFirstAbLast, "L2_HINTS is 0, 1 or 2");
  static_assert(!Cfg::SPLITTING || EPILOGUE == kEpilogueDirect, "split-K adds its slices in the direct epilogue");
  static_assert(SPLIT_MODE != kSplitStream || SPLIT_K == 1, "stream-K sizes its slices itself");

  extern __shared__ unsigned char smem_raw[];
  const unsigned base = (smem_address(smem_raw) + kAlign - 1) & ~static_cast<unsigned>(kAlign - 1);
  const Ring ring = ring_at<Cfg>(base);

  const int warpgroup = static_cast<int>(threadIdx.x) / kWarpgroup;
  const int tid = static_cast<int>(threadIdx.x) % kWarpgroup;
  const int rank = CLUSTER > 1 ? static_cast<int>(cluster_rank()) : 0;
  const int rank_m = rank % CLUSTER_M, rank_n = rank / CLUSTER_M;
  const int cluster_id = static_cast<int>(blockIdx.x) / CLUSTER;
  const int clusters = static_cast<int>(gridDim.x) / CLUSTER;
  const int tiles_m = (M + BM * CLUSTER_M - 1) / (BM * CLUSTER_M);
  const int tiles_n = (N + BN * CLUSTER_N - 1) / (BN * CLUSTER_N);
  const int tiles = tiles_m * tiles_n;
  const int k_blocks = (K + BK - 1) / BK;  // stages' worth of K: what split-K and stream-K share out
  const int units = cluster_units(cluster_id, tiles, clusters, k_blocks, SPLIT_K, SPLIT_MODE);  // of this cluster
  // The first unit and where its tile starts: arithmetic on the launch alone (64-bit divisions among it), so it is
  // done before the dependency wait below instead of after it, where it delayed the first TMA copy (0.38 us from the
  // wait to that copy at 512^3 before, 0.21 after: results/h200/suite/timeline/, archived at efb86f5:
  // results/archived.tsv). The empty asm pins the values there: nothing may sink them past the wait.
  WorkUnit first_unit{0, 0, 1, 0, 0};
  if (units > 0) first_unit = cluster_unit_at(cluster_id, 0, tiles, clusters, k_blocks, SPLIT_K, SPLIT_MODE);
  BlockOrigin first_origin = block_origin<Cfg>(first_unit.tile, tiles_m, tiles_n, rank_m, rank_n);
  asm volatile(""
               : "+r"(first_unit.tile), "+r"(first_unit.split), "+r"(first_unit.splits), "+r"(first_unit.kb_begin),
                 "+r"(first_unit.kb_end), "+r"(first_origin.m0), "+r"(first_origin.n0));
  // The loops below start from these and compute the later units in place (schedule.next), so nothing more stays
  // live (the producer has 40 registers).
  const Schedule<Cfg> schedule{cluster_id, clusters, tiles_m, tiles_n, tiles, k_blocks, rank_m, rank_n};

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbarrier_init(ring.full(s), 1);                               // the producer's arrive.expect_tx
      mbarrier_init(ring.empty(s), L.releasing_warps() * CLUSTER);  // each reading warp of each CTA it feeds
    }
    if constexpr (PINGPONG) {
      mbarrier_init(ring.order(0), kWarpgroup / 32);  // the other consumer's warps, once its main loop is issued
      mbarrier_init(ring.order(1), kWarpgroup / 32);
    }
    fence_barrier_init();
  } else if (threadIdx.x == 32) {
    prefetch_tensor_map(&a_map);
    prefetch_tensor_map(&b_map);
    if constexpr (EPILOGUE == kEpilogueTma) prefetch_tensor_map(&c_map);
  }
  if constexpr (CLUSTER > 1)
    cluster_sync();  // peers multicast into this CTA's barriers from now on
  else
    __syncthreads();
  if constexpr (PDL != kPdlNone) {
    // Everything above touches no global memory, so it overlaps the previous kernel's tail; everything below may
    // read what that kernel wrote (A, B) or write what it reads (C, the split flags).
    grid_dependency_wait();
    if constexpr (PDL == kPdlEarly) launch_dependent_grids();  // kPdlAtExit: the implicit trigger at the block's exit
  }

  if (warpgroup == 0) {
    // ---- producer ------------------------------------------------------------------------------------------
    if constexpr (CONSUMERS == 2) setmaxnreg_dec<kProducerRegs>();
    if (tid == 0) produce<Cfg>(&a_map, &b_map, base, ring, schedule, units, first_unit, first_origin);
    if constexpr (CLUSTER > 1) cluster_sync();  // no CTA leaves while a peer may still multicast or arrive here
  } else {
    // ---- consumers -----------------------------------------------------------------------------------------
    if constexpr (CONSUMERS == 2) setmaxnreg_inc<kConsumerRegs>();
    const int consumer = warpgroup - 1;
    float acc[M_BLOCKS][WN / 2];
#pragma unroll
    for (int mb = 0; mb < M_BLOCKS; ++mb)
#pragma unroll
      for (int r = 0; r < WN / 2; ++r) acc[mb][r] = 0.f;  // overwritten by the first wgmma (scale_d = 0)
    // 16-bit D and split-K: the split tiles' FP32 partial sums, in the workspace after the flags (split_k.cuh).
    float* partials = nullptr;
    int first_split = 0;
    if constexpr (Cfg::SPLITTING && OUT != kElementFp32) {
      partials = reinterpret_cast<float*>(reinterpret_cast<char*>(flags) + kSplitPartialsOffset);
      first_split = first_split_tile(tiles, clusters, k_blocks, SPLIT_K, SPLIT_MODE);
    }
    Epilogue<Cfg> epilogue({C, flags, M, N, &c_map, base, rank, alpha, beta, C_in, partials, first_split, bias},
                           consumer, tid);
    Mainloop<Cfg> mainloop(base, ring, consumer, tid % 32);
    // The i-th unit of this CTA fills the ring positions after its earlier units' k-blocks (the producer's order); a
    // pingpong consumer takes every other unit, so it counts the other's k-blocks too to find its place in the ring.
    long long position = 0;
    WorkUnit w = first_unit;
    BlockOrigin o = first_origin;
    for (int i = 0;; ++i) {
      if (i >= units) break;
      if (i > 0) schedule.next(i, w, o);
      const long long first = position;
      position += w.kb_end - w.kb_begin;
      if (PINGPONG && (i & 1) != consumer) continue;
      mainloop.run(acc, first, w.kb_begin, w.kb_end, i > 0);
      epilogue.store(acc, w, o);
    }
    epilogue.finish();
    if constexpr (CLUSTER > 1) cluster_sync();
  }
}

}  // namespace mpgemm
