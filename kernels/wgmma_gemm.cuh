#pragma once
// wgmma_gemm: C (M x N, FP32, row-major) = A (M x K, FP16, row-major) * B (K x N, FP16, row-major), FP32 accumulate,
// on Hopper's warpgroup MMA (wgmma.mma_async, sm_90a) fed by the tensor memory accelerator (TMA).
//
// One CTA = one producer warpgroup + CONSUMERS consumer warpgroups (warp specialisation):
//   producer  one thread issues TMA loads of BM x 64 A tiles and 64 x BN B tiles into a STAGES-deep shared-memory
//             ring, tile after tile; "full" mbarriers count the bytes in, "empty" mbarriers the releases.
//   consumers issue m64nBNk16 wgmmas from shared memory into FP32 registers, keeping one k-block of wgmmas in
//             flight while releasing the stage before it. SCHEDULE 0 (cooperative): each consumer owns BM / CONSUMERS
//             rows of every tile. SCHEDULE 1 (pingpong, two consumers): consumers take alternate tiles whole, so
//             one's epilogue runs while the other's wgmmas use the tensor cores. Their main loops take turns
//             ("order" mbarriers): besides keeping the tensor cores to one consumer at a time, the turns keep each
//             consumer within one phase of the ring's barriers, which parity waits need.
// The grid walks cluster tiles (CLUSTER_M x CLUSTER_N block tiles) in the order of tile_schedule.cuh, with a
// stride of the number of clusters, so a grid smaller than the tile count is persistent. Inside a cluster, the
// CTAs of one tile row share A and those of one tile column share B: each loads a slice of the shared operand and
// multicasts it to its peers.
//
// Epilogues (EPILOGUE): 0 direct: FP32 pairs straight from registers (st.global.v2, bounds-checked);
//                       1 tma:    64 x 32 sub-tiles through C_BUFFERS 128B-swizzled shared buffers per consumer and
//                                 TMA stores, which drain while the consumer goes on;
//                       2 rows:   whole 128-byte lines straight from registers, after a transpose across each warp's
//                                 lanes (wgmma_rows.cuh); no shared memory, so the other consumer's wgmmas keep it.
//
// Split-K (SPLIT_K > 1, or SPLIT_MODE stream: split_k.cuh): the grid works through (tile, slice of K) units; each slice
// adds its partial sums into C in slice order, waiting on a per-tile flag in `flags` (zero before the launch, zero
// again after), so the result does not depend on timing. Direct epilogue and persistent grids only (the slices wait for
// each other).
//
// Swap-AB (SWAP_AB = 1, for skinny M): the wgmmas compute the tile of C's transpose, D = B_tile^T * A_tile^T, so
// the tile's BN columns (multiples of 64) are their M side, cut among the consumers like BM is otherwise, and its
// BM rows (8 to 256, step 8) are their N. Shared memory and TMA are unchanged: B's N-major chunks are read as an
// M-major wgmma A, A's K-major rows as a K-major wgmma B. The accumulator holds columns of C, so the epilogue
// (direct only) writes single floats, 8 consecutive columns per 8 lanes.
//
// Dependent launch (PDL 1 or 2; the host launches with programmatic stream serialization): the block's set-up
// (barriers, tensor-map prefetch, cluster sync) runs while the previous kernel of the stream finishes; then the
// block waits for that kernel's memory (griddepcontrol.wait). PDL 1 then at once lets the next kernel start
// launching (its blocks take an SM as this grid's blocks leave it); PDL 2 leaves that to the implicit trigger at the
// block's exit. Nothing of the computation changes.
//
// L2 hints (L2_HINTS): 0 none; 1 C's stores (every epilogue) marked evict-first, so that C streaming through the L2
// does not push out the A and B lines other tiles read again; 2 that, and A's and B's loads marked evict-last.
//
// Deep stages (BK = 128 or 256: D = BK / 64 k-blocks per ring stage): each stage is loaded with one copy of A, a 3-D
// box {64, BM, D} of a view of A as {64, M, K / 64} (its planes, BM rows each, land one after another), and one copy
// per B chunk, a box of BK rows. A TMA copy costs its SM about the same whatever its size up to 16 KiB
// (results/h200/suite/tma_ops/), so small tiles, whose main loops the copies pace, issue D times fewer of them. K must
// then be a multiple of 64 (the view's planes are whole 64-column blocks); no A multicast (CLUSTER_N 1) and no L2
// hint on A's loads.
//
// Bounds: any M and N; K and N multiples of 8 (TMA needs 16-byte row strides). Edges need no code: TMA fills
// out-of-bounds loads with zeros (the barrier still counts the full box) and clips out-of-bounds stores.
//
// The shared-memory layout is wgmma_layout.cuh's (shared with the host); the host launches
// Layout::dynamic_smem_bytes() of dynamic shared memory, (CONSUMERS + 1) * 128 threads and clusters of
// CLUSTER_M * CLUSTER_N CTAs along x, and passes tensor maps built by the wgmma family (src/codegen/):
//   a_map  FP16 {K, M}, box {64, BM / CLUSTER_N}, 128B swizzle; BK > 64: FP16 {64, M, K / 64}, box {64, BM, BK / 64}
//   b_map  FP16 {N, K}, box {64, BK / CLUSTER_M}, 128B swizzle
//   c_map  FP32 {N, M}, box {32, 64}, 128B swizzle (read by the tma epilogue only)
#include "hopper_ptx.cuh"
#include "split_k.cuh"
#include "tile_schedule.cuh"
#include "wgmma_choices.cuh"
#include "wgmma_layout.cuh"
#include "wgmma_ops.cuh"
#include "wgmma_rows.cuh"

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "wgmma_gemm.cuh needs the sm_90a target (wgmma and setmaxnreg exist only there)"
#endif

namespace mpgemm {
namespace wgmma_detail {

constexpr int kProducerRegs = 40;   // registers per producer thread once it gives its share away (setmaxnreg)
constexpr int kConsumerRegs = 232;  // per consumer thread with two consumers: 128 * 40 + 256 * 232 <= 65536

__device__ __forceinline__ void st_shared_v2(unsigned address, float x, float y) {
  asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(address), "f"(x), "f"(y) : "memory");
}

// Cluster ranks that share this CTA's A rows (same rank_m) or B columns (same rank_n); rank = rank_m + CM * rank_n.
template <int CLUSTER_M, int CLUSTER_N>
__device__ __forceinline__ unsigned short a_sharers(int rank_m) {
  unsigned mask = 0;
#pragma unroll
  for (int j = 0; j < CLUSTER_N; ++j) mask |= 1u << (rank_m + CLUSTER_M * j);
  return static_cast<unsigned short>(mask);
}
template <int CLUSTER_M, int CLUSTER_N>
__device__ __forceinline__ unsigned short b_sharers(int rank_n) {
  unsigned mask = 0;
#pragma unroll
  for (int i = 0; i < CLUSTER_M; ++i) mask |= 1u << (i + CLUSTER_M * rank_n);
  return static_cast<unsigned short>(mask);
}

// Where this CTA's block tile of the index-th cluster tile starts.
struct BlockOrigin {
  int m0, n0;
};
template <int BM, int BN, int CLUSTER_M, int CLUSTER_N, int RASTER, int GROUP>
__device__ __forceinline__ BlockOrigin block_origin(int index, int tiles_m, int tiles_n, int rank_m, int rank_n) {
  const TileCoord t = tile_at(index, tiles_m, tiles_n, RASTER, GROUP);
  return {(t.m * CLUSTER_M + rank_m) * BM, (t.n * CLUSTER_N + rank_n) * BN};
}

}  // namespace wgmma_detail

template <int BM, int BN, int STAGES, int CONSUMERS, int CLUSTER_M, int CLUSTER_N, int RASTER, int GROUP, int EPILOGUE,
          int SCHEDULE, int C_BUFFERS, int SPLIT_K, int SPLIT_MODE, int SWAP_AB, int PDL, int L2_HINTS,
          int BK = wgmma_layout::kBK>
__global__ void __launch_bounds__((CONSUMERS + 1) * 128, 1)
    wgmma_gemm(const __grid_constant__ hopper::TensorMap a_map, const __grid_constant__ hopper::TensorMap b_map,
               const __grid_constant__ hopper::TensorMap c_map, float* __restrict__ C, int* __restrict__ flags, int M,
               int N, int K) {
  using namespace hopper;
  using namespace wgmma_layout;
  using namespace wgmma_detail;
  constexpr bool PINGPONG = SCHEDULE == kSchedulePingpong;
  constexpr bool SWAP = SWAP_AB != 0;
  constexpr bool C_FIRST = L2_HINTS != kL2HintsNone;          // C's stores evict-first in L2
  constexpr bool AB_LAST = L2_HINTS == kL2HintsCFirstAbLast;  // A's and B's loads evict-last
  constexpr int KB_PER_STAGE = BK / kBK;                      // k-blocks of 64 per ring stage
  constexpr Layout L{BM, BN, STAGES, CONSUMERS, PINGPONG, EPILOGUE == kEpilogueTma, C_BUFFERS, SWAP, KB_PER_STAGE};
  constexpr int CLUSTER = CLUSTER_M * CLUSTER_N;
  constexpr int ROWS = L.rows_per_consumer();
  constexpr int M_BLOCKS = L.m_blocks();  // 64-row wgmma blocks per consumer: of BM, or of BN when swapped
  constexpr int WN = L.wgmma_n();         // the wgmma N: BN, or BM when swapped
  constexpr int K_STEPS = BK / 16;
  static_assert(CONSUMERS == 1 || CONSUMERS == 2, "one or two consumer warpgroups");
  static_assert(ROWS % kWgmmaM == 0, "each consumer owns whole m64 blocks");
  static_assert(WN % 8 == 0 && WN >= 8 && WN <= 256, "wgmma N is a multiple of 8 up to 256");
  static_assert(!SWAP || BN % kBChunk == 0, "swapped, each 64-row wgmma block is one whole B chunk");
  static_assert(!SWAP || EPILOGUE == kEpilogueDirect, "swapped tiles go out through the direct epilogue");
  static_assert(L.accumulators() <= 128, "at most 128 FP32 accumulators per thread");
  static_assert(BM <= 256 && BM % (8 * CLUSTER_N) == 0, "A slices are whole 8-row swizzle atoms, boxes <= 256 rows");
  static_assert(BK % (8 * CLUSTER_M) == 0, "B slices are whole 8-row swizzle atoms");
  static_assert(BK == 64 || BK == 128 || BK == 256, "a stage is 1, 2 or 4 k-blocks of 64");
  static_assert(BK == kBK || (CLUSTER_N == 1 && !AB_LAST), "A's 3-D copies are neither multicast nor hinted");
  static_assert(CLUSTER <= 16, "multicast masks are 16 bits");
  static_assert(EPILOGUE == kEpilogueDirect || BN % kCSubCols == 0, "tma and rows store 32-column groups");
  static_assert(STAGES >= 2, "a ring needs two stages");
  static_assert(!PINGPONG || CONSUMERS == 2, "pingpong alternates two consumers");
  static_assert(EPILOGUE != kEpilogueTma || C_BUFFERS >= 1, "the tma epilogue needs a staging buffer");
  static_assert(SPLIT_K >= 1, "SPLIT_K slices of K");
  static_assert(L2_HINTS >= kL2HintsNone && L2_HINTS <= kL2HintsCFirstAbLast, "L2_HINTS is 0, 1 or 2");
  // Tiles may be cut into slices: split-K proper, or stream-K's ranges (SPLIT_K 1).
  constexpr bool SPLITTING = SPLIT_K > 1 || SPLIT_MODE == kSplitStream;
  static_assert(!SPLITTING || EPILOGUE == kEpilogueDirect, "split-K adds its slices in the direct epilogue");
  static_assert(SPLIT_MODE != kSplitStream || SPLIT_K == 1, "stream-K sizes its slices itself");
  // Flags per block tile: one per consumer that writes part of it (cooperative), one per tile (pingpong).
  constexpr int FLAG_SLOTS = PINGPONG ? 1 : CONSUMERS;

  extern __shared__ unsigned char smem_raw[];
  const unsigned base = (smem_address(smem_raw) + kAlign - 1) & ~static_cast<unsigned>(kAlign - 1);
  const unsigned full_base = base + L.full_barrier_offset(0), empty_base = base + L.empty_barrier_offset(0),
                 order_base = base + L.order_barrier_offset(0);
  const auto full = [full_base](int s) { return full_base + 8u * s; };  // mbarriers are 8 bytes
  const auto empty = [empty_base](int s) { return empty_base + 8u * s; };
  const auto order = [order_base](int consumer) { return order_base + 8u * consumer; };

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
  // wait to that copy at 512^3 before, 0.21 after: results/h200/suite/timeline/). The empty asm pins the values
  // there: nothing may sink them past the wait.
  WorkUnit first_unit{0, 0, 1, 0, 0};
  if (units > 0) first_unit = cluster_unit_at(cluster_id, 0, tiles, clusters, k_blocks, SPLIT_K, SPLIT_MODE);
  BlockOrigin first_origin =
      block_origin<BM, BN, CLUSTER_M, CLUSTER_N, RASTER, GROUP>(first_unit.tile, tiles_m, tiles_n, rank_m, rank_n);
  asm volatile(""
               : "+r"(first_unit.tile), "+r"(first_unit.split), "+r"(first_unit.splits), "+r"(first_unit.kb_begin),
                 "+r"(first_unit.kb_end), "+r"(first_origin.m0), "+r"(first_origin.n0));
  // The loops below start from these and compute the later units in place, so nothing more stays live (the
  // producer has 40 registers).
  const auto next_unit = [&](int i, WorkUnit& w, BlockOrigin& o) {
    w = cluster_unit_at(cluster_id, i, tiles, clusters, k_blocks, SPLIT_K, SPLIT_MODE);
    o = block_origin<BM, BN, CLUSTER_M, CLUSTER_N, RASTER, GROUP>(w.tile, tiles_m, tiles_n, rank_m, rank_n);
  };

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbarrier_init(full(s), 1);                                   // the producer's arrive.expect_tx
      mbarrier_init(empty(s), L.releasing_warps() * CLUSTER);  // each reading warp of each CTA it feeds
    }
    if constexpr (PINGPONG) {
      mbarrier_init(order(0), kWarpgroup / 32);  // the other consumer's warps, once its main loop is issued
      mbarrier_init(order(1), kWarpgroup / 32);
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
    if (tid == 0) {
      const unsigned short a_mask = a_sharers<CLUSTER_M, CLUSTER_N>(rank_m);
      const unsigned short b_mask = b_sharers<CLUSTER_M, CLUSTER_N>(rank_n);
      const unsigned long long ab_policy = AB_LAST ? l2_policy_evict_last() : 0;
      int stage = 0;
      unsigned phase = 0;
      WorkUnit w = first_unit;
      BlockOrigin o = first_origin;
      for (int i = 0; i < units; ++i) {
        if (i > 0) next_unit(i, w, o);
        for (int kb = w.kb_begin; kb < w.kb_end; ++kb) {
          mbarrier_wait(empty(stage), phase ^ 1);
          mbarrier_arrive_expect_tx(full(stage), L.stage_bytes());
          const int k0 = kb * BK;
          const unsigned a_dst = base + L.a_offset(stage);
          if constexpr (BK > kBK) {
            tma_load_3d(a_dst, &a_map, full(stage), 0, o.m0, kb * KB_PER_STAGE);
          } else if constexpr (CLUSTER_N == 1) {
            tma_load<AB_LAST>(a_dst, &a_map, full(stage), k0, o.m0, ab_policy);
          } else {
            constexpr int rows = BM / CLUSTER_N;
            tma_load_multicast<AB_LAST>(a_dst + rank_n * rows * kRowBytes, &a_map, full(stage), k0,
                                        o.m0 + rank_n * rows, a_mask, ab_policy);
          }
          const unsigned b_dst = base + L.b_offset(stage);
#pragma unroll
          for (int j = 0; j < L.b_chunks(); ++j) {
            if constexpr (CLUSTER_M == 1) {
              tma_load<AB_LAST>(b_dst + j * L.b_chunk_bytes(), &b_map, full(stage), o.n0 + j * kBChunk, k0, ab_policy);
            } else {
              constexpr int rows = BK / CLUSTER_M;
              tma_load_multicast<AB_LAST>(b_dst + j * L.b_chunk_bytes() + rank_m * rows * kRowBytes, &b_map,
                                          full(stage), o.n0 + j * kBChunk, k0 + rank_m * rows, b_mask, ab_policy);
            }
          }
          if (++stage == STAGES) {
            stage = 0;
            phase ^= 1;
          }
        }
      }
    }
    if constexpr (CLUSTER > 1) cluster_sync();  // no CTA leaves while a peer may still multicast or arrive here
  } else {
    // ---- consumers -----------------------------------------------------------------------------------------
    if constexpr (CONSUMERS == 2) setmaxnreg_inc<kConsumerRegs>();
    const int consumer = warpgroup - 1;
    const int warp = tid / 32, lane = tid % 32;
    // Releases a stage to the producers of every CTA that loads into it: one arrival per warp and CTA.
    const auto release = [&](int s) {
      if constexpr (CLUSTER == 1) {
        if (lane == 0) mbarrier_arrive(empty(s));
      } else {
        if (lane < CLUSTER) mbarrier_arrive_cluster(empty(s), static_cast<unsigned>(lane));
      }
    };

    float acc[M_BLOCKS][WN / 2];
#pragma unroll
    for (int mb = 0; mb < M_BLOCKS; ++mb)
#pragma unroll
      for (int r = 0; r < WN / 2; ++r) acc[mb][r] = 0.f;  // overwritten by the first wgmma (scale_d = 0)
    // This consumer's first wgmma row in the block tile: a row of the tile, or a column when swapped.
    const int row0 = PINGPONG ? 0 : consumer * ROWS;
    // Descriptors of stage 0's A and B tiles for this consumer, made once. A stage, k-step or m-block only moves the
    // start address, which is the low field of a descriptor in 16-byte units: shared addresses stay below 256 KiB,
    // so adding the offset's units never carries out of that field, and the main loop adds instead of re-encoding.
    const unsigned long long a_desc0 =
        smem_descriptor(base + L.a_offset(0) + (SWAP ? 0 : row0 * kRowBytes), 16, 8 * kRowBytes);
    const unsigned long long b_desc0 =
        smem_descriptor(base + L.b_offset(0) + (SWAP ? (row0 / kBChunk) * L.b_chunk_bytes() : 0),
                        L.b_chunk_bytes(), 8 * kRowBytes);
    // C's final values go out evict-first; a split tile's partial sums, which the next slice reads back, do not.
    const unsigned long long c_policy = C_FIRST ? l2_policy_evict_first() : 0;
    const unsigned long long partial_policy = C_FIRST && SPLITTING ? l2_policy_evict_normal() : 0;
    int slot = 0;
    unsigned turns = 0;  // pingpong: how many times this consumer has waited for its turn
    // The i-th unit of this CTA fills the ring positions after its earlier units' k-blocks (the producer's order); a
    // pingpong consumer takes every other unit, so it counts the other's k-blocks too to find its place in the ring.
    long long position = 0;
    WorkUnit w = first_unit;
    BlockOrigin o = first_origin;
    for (int i = 0;; ++i) {
      if (i >= units) break;
      if (i > 0) next_unit(i, w, o);
      const long long first = position;
      position += w.kb_end - w.kb_begin;
      if (PINGPONG && (i & 1) != consumer) continue;
      int stage = static_cast<int>(first % STAGES);
      unsigned phase = static_cast<unsigned>(first / STAGES) & 1u;
      int previous = 0;
      if constexpr (PINGPONG) {
        if (i > 0) mbarrier_wait(order(consumer), turns++ & 1u);  // the other consumer's main loop is issued
      }
      for (int kb = w.kb_begin; kb < w.kb_end; ++kb) {
        mbarrier_wait(full(stage), phase);
#pragma unroll
        for (int mb = 0; mb < M_BLOCKS; ++mb)
#pragma unroll
          for (int r = 0; r < WN / 2; ++r) fence_operand(acc[mb][r]);
        wgmma_fence();
        const unsigned long long a_stage = a_desc0 + static_cast<unsigned>(stage * (L.a_stage_bytes() >> 4));
        const unsigned long long b_stage = b_desc0 + static_cast<unsigned>(stage * (L.b_stage_bytes() >> 4));
#pragma unroll
        for (int mb = 0; mb < M_BLOCKS; ++mb) {
#pragma unroll
          for (int k = 0; k < K_STEPS; ++k) {
#if defined(MPGEMM_WGMMA_FAULT) && MPGEMM_WGMMA_FAULT == 1
            // Test-only fault: step A by 8 halves instead of 16, so the product reads the wrong K columns.
            constexpr unsigned kAStep = 16;
#else
            constexpr unsigned kAStep = 32;  // 16 halves along K inside the swizzled 128-byte row
#endif
            // Inside the 128-byte row of k-block k / 4; a stage's k-blocks of A lie BM rows apart (B's rows run on).
            const unsigned a_k = (k % (kBK / 16)) * kAStep + (k / (kBK / 16)) * BM * kRowBytes;
            const int scale_d = (kb > w.kb_begin || k > 0) ? 1 : 0;
            if constexpr (!SWAP) {
              // A is K-major: 8-row groups 1024 bytes apart (the leading offset is unused under the swizzle).
              const unsigned long long desc_a = a_stage + ((mb * kWgmmaM * kRowBytes + a_k) >> 4);
              // B is N-major: 64-column chunks lie b_chunk_bytes apart (leading), 8-row K groups 1024 bytes apart.
              const unsigned long long desc_b = b_stage + ((k * 16 * kRowBytes) >> 4);
              wgmma_detail::Wgmma<WN>::mma(acc[mb], desc_a, desc_b, scale_d);
            } else {
              // Swapped: block mb's B chunk, N-major, is an M-major wgmma A of 64 rows (one chunk: the leading
              // offset is unused); A's rows, K-major, are the wgmma B.
              const unsigned long long desc_a = b_stage + ((mb * L.b_chunk_bytes() + k * 16 * kRowBytes) >> 4);
              const unsigned long long desc_b = a_stage + (a_k >> 4);
              wgmma_detail::Wgmma<WN>::template mma<1, 0>(acc[mb], desc_a, desc_b, scale_d);
            }
          }
        }
        wgmma_commit();
#pragma unroll
        for (int mb = 0; mb < M_BLOCKS; ++mb)
#pragma unroll
          for (int r = 0; r < WN / 2; ++r) fence_operand(acc[mb][r]);
        if (kb > w.kb_begin) {
          wgmma_wait<1>();  // the previous k-block's wgmmas are done with their stage
          release(previous);
        }
        previous = stage;
        if (++stage == STAGES) {
          stage = 0;
          phase ^= 1;
        }
      }
      if constexpr (PINGPONG) {
        if (lane == 0) mbarrier_arrive(order(1 - consumer));  // the other consumer's turn
      }
      wgmma_wait<0>();
#pragma unroll
      for (int mb = 0; mb < M_BLOCKS; ++mb)
#pragma unroll
        for (int r = 0; r < WN / 2; ++r) fence_operand(acc[mb][r]);
      release(previous);

      // ---- epilogue ----
      const int row_in_block = warp * 16 + lane / 4;  // and + 8
      if constexpr (EPILOGUE == kEpilogueDirect) {
        // Split-K: this slice's turn on the tile (its flag says so); slice 0 stores, the later ones add.
        const int bar_id = 1 + consumer;  // named barrier of this consumer's 128 threads (0 is __syncthreads)
        int* const flag = !SPLITTING ? nullptr
                                       : flags + (static_cast<long long>(w.tile) * CLUSTER + rank) * FLAG_SLOTS +
                                             (PINGPONG ? 0 : consumer);
        const bool later_slice = SPLITTING && w.split > 0;
        const unsigned long long store_policy = SPLITTING && w.split < w.splits - 1 ? partial_policy : c_policy;
#if defined(MPGEMM_WGMMA_FAULT) && MPGEMM_WGMMA_FAULT == 2
        const bool accumulate = false;  // Test-only fault: every slice stores instead of adding, so C holds the last.
#else
        const bool accumulate = later_slice;
#endif
        if constexpr (SPLITTING) {
          if (later_slice) {
            if (tid == 0) {
              wait_flag(flag, w.split);
              if (w.split == w.splits - 1) st_relaxed_gpu(flag, 0);  // the last slice leaves the flag as it found it
            }
            named_barrier_sync(bar_id, kWarpgroup);
          }
        }
        // Bounds checks only matter on edge tiles; N is even, so a pair never straddles the right edge.
        const bool inside = o.m0 + BM <= M && o.n0 + BN <= N;
        // Swapped: accumulator r of block mb holds C[m][n] at n = the wgmma row, m = the wgmma column.
        const auto swapped_n = [&](int mb, int r) { return o.n0 + row0 + mb * kWgmmaM + row_in_block + (r & 2) * 4; };
        const auto swapped_m = [&](int r) { return o.m0 + 8 * (r / 4) + 2 * (lane % 4) + (r & 1); };
        if constexpr (SWAP) {
          if (accumulate) {
#pragma unroll
            for (int mb = 0; mb < M_BLOCKS; ++mb)
#pragma unroll
              for (int r = 0; r < WN / 2; ++r) {
                const int n = swapped_n(mb, r), m = swapped_m(r);
                if (inside || (m < M && n < N)) acc[mb][r] += __ldcg(C + static_cast<size_t>(m) * N + n);
              }
          }
#pragma unroll
          for (int mb = 0; mb < M_BLOCKS; ++mb)
#pragma unroll
            for (int r = 0; r < WN / 2; ++r) {
              const int n = swapped_n(mb, r), m = swapped_m(r);
              if (inside || (m < M && n < N))
                store_global<C_FIRST>(C + static_cast<size_t>(m) * N + n, acc[mb][r], store_policy);
            }
        } else {
          if (accumulate) {
            // The earlier slices' sums, read from L2 (other SMs wrote them) in a pass of loads only, so that all of
            // them are in flight at once instead of one round trip per store.
#pragma unroll
            for (int mb = 0; mb < M_BLOCKS; ++mb) {
              const int row = o.m0 + row0 + mb * kWgmmaM + row_in_block;
              const int col = o.n0 + 2 * (lane % 4);
              const float* c0 = C + static_cast<size_t>(row) * N + col;
              const float* c1 = c0 + static_cast<size_t>(8) * N;
              const bool in0 = inside || row < M, in1 = inside || row + 8 < M;
#pragma unroll
              for (int i = 0; i < BN / 8; ++i) {
                const bool in_n = inside || col + 8 * i < N;
                if (in0 && in_n) {
                  const float2 p = __ldcg(reinterpret_cast<const float2*>(c0 + 8 * i));
                  acc[mb][4 * i] += p.x;
                  acc[mb][4 * i + 1] += p.y;
                }
                if (in1 && in_n) {
                  const float2 p = __ldcg(reinterpret_cast<const float2*>(c1 + 8 * i));
                  acc[mb][4 * i + 2] += p.x;
                  acc[mb][4 * i + 3] += p.y;
                }
              }
            }
          }
#pragma unroll
          for (int mb = 0; mb < M_BLOCKS; ++mb) {
            const int row = o.m0 + row0 + mb * kWgmmaM + row_in_block;
            const int col = o.n0 + 2 * (lane % 4);
            float* c0 = C + static_cast<size_t>(row) * N + col;
            float* c1 = c0 + static_cast<size_t>(8) * N;
            const bool in0 = inside || row < M, in1 = inside || row + 8 < M;
#pragma unroll
            for (int i = 0; i < BN / 8; ++i) {
              const bool in_n = inside || col + 8 * i < N;
              if (in0 && in_n)
                store_global<C_FIRST>(reinterpret_cast<float2*>(c0 + 8 * i),
                                      make_float2(acc[mb][4 * i], acc[mb][4 * i + 1]), store_policy);
              if (in1 && in_n)
                store_global<C_FIRST>(reinterpret_cast<float2*>(c1 + 8 * i),
                                      make_float2(acc[mb][4 * i + 2], acc[mb][4 * i + 3]), store_policy);
            }
          }
        }
        if constexpr (SPLITTING) {
          if (w.splits > 1 && w.split < w.splits - 1) {  // hand the tile to the next slice
            named_barrier_sync(bar_id, kWarpgroup);
            // The barrier orders the warpgroup's stores before thread 0's release, which makes them visible at GPU
            // scope to whoever acquires the flag (release is cumulative).
            if (tid == 0) st_release_gpu(flag, w.split + 1);
          }
        }
      } else if constexpr (EPILOGUE == kEpilogueRows) {
        const bool inside = o.m0 + BM <= M && o.n0 + BN <= N;
#pragma unroll
        for (int mb = 0; mb < M_BLOCKS; ++mb)
          wgmma_rows::store<BN, C_FIRST>(acc[mb], C, M, N, o.m0 + row0 + mb * kWgmmaM + warp * 16, o.n0, inside, lane,
                                         c_policy);
      } else {
        const int bar_id = 1 + consumer;  // named barrier of this consumer's 128 threads (0 is __syncthreads)
#pragma unroll
        for (int mb = 0; mb < M_BLOCKS; ++mb) {
#pragma unroll
          for (int j = 0; j < BN / kCSubCols; ++j) {
            const unsigned buffer = base + L.c_offset(consumer, slot % C_BUFFERS);
            if (tid == 0) bulk_wait_group_read<C_BUFFERS - 1>();  // this buffer's previous store has read it
            named_barrier_sync(bar_id, kWarpgroup);
#pragma unroll
            for (int ii = 0; ii < kCSubCols / 8; ++ii) {
              const int i = j * (kCSubCols / 8) + ii;
              const int chunk = 2 * ii + (lane % 4) / 2;  // 16-byte chunk of the 128-byte row
              const int within = (lane % 2) * 8;
              const int r0 = row_in_block, r1 = row_in_block + 8;
              st_shared_v2(buffer + r0 * kRowBytes + ((chunk ^ (r0 % 8)) * 16) + within, acc[mb][4 * i],
                           acc[mb][4 * i + 1]);
              st_shared_v2(buffer + r1 * kRowBytes + ((chunk ^ (r1 % 8)) * 16) + within, acc[mb][4 * i + 2],
                           acc[mb][4 * i + 3]);
            }
            fence_proxy_async_shared();
            named_barrier_sync(bar_id, kWarpgroup);
            if (tid == 0) {
              tma_store<C_FIRST>(&c_map, buffer, o.n0 + j * kCSubCols, o.m0 + row0 + mb * kWgmmaM, c_policy);
              bulk_commit_group();
            }
            ++slot;
          }
        }
      }
    }
    if constexpr (EPILOGUE == kEpilogueTma) {
      if (tid == 0) bulk_wait_group<0>();
    }
    if constexpr (CLUSTER > 1) cluster_sync();
  }
}

}  // namespace mpgemm
