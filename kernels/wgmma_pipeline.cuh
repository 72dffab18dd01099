#pragma once
// What the pieces of wgmma_gemm.cuh share: the config's compile-time values (Config), the shared-memory ring's
// mbarriers (Ring) and the walk over work units (Schedule, the tile scheduler). The producer (wgmma_producer.cuh),
// the consumers' main loop (wgmma_mainloop.cuh) and the epilogue (wgmma_epilogue.cuh) are templated on one Config
// and take the rest of their state as arguments.
//
// The grid walks cluster tiles (CLUSTER_M x CLUSTER_N block tiles) in the order of tile_schedule.cuh, with a stride
// of the number of clusters, so a grid smaller than the tile count is persistent; split, it walks (tile, slice of K)
// units instead (split_k.cuh). Every CTA of a cluster walks the same units, each its own block tile of them.
#include "hopper_ptx.cuh"
#include "split_k.cuh"
#include "tile_schedule.cuh"
#include "wgmma_choices.cuh"
#include "wgmma_layout.cuh"

namespace mpgemm {
namespace wgmma_detail {

// The kernel's template arguments and what follows from them, as enumerators (constants that, unlike static data
// members, leave no variable in the module); the Layout is made by layout() where a piece needs it, as a constexpr
// local.
template <int BM_, int BN_, int STAGES_, int CONSUMERS_, int CLUSTER_M_, int CLUSTER_N_, int RASTER_, int GROUP_,
          int EPILOGUE_, int SCHEDULE_, int C_BUFFERS_, int SPLIT_K_, int SPLIT_MODE_, int SWAP_AB_, int PDL_,
          int L2_HINTS_, int BK_, int A_LAYOUT_, int B_LAYOUT_, int IN_, int OUT_, int BETA_, int OP_ = 0>
struct Config {
  enum : int { BM = BM_, BN = BN_, STAGES = STAGES_, CONSUMERS = CONSUMERS_ };
  enum : int { CLUSTER_M = CLUSTER_M_, CLUSTER_N = CLUSTER_N_, RASTER = RASTER_, GROUP = GROUP_ };
  enum : int { EPILOGUE = EPILOGUE_, SCHEDULE = SCHEDULE_, C_BUFFERS = C_BUFFERS_ };
  enum : int { SPLIT_K = SPLIT_K_, SPLIT_MODE = SPLIT_MODE_, SWAP_AB = SWAP_AB_, PDL = PDL_ };
  enum : int { L2_HINTS = L2_HINTS_, BK = BK_ };
  // The problem kind (wgmma_choices.cuh): A's and B's storage, their element type, D's type, whether C is read, the
  // fused operation (epilogue_ops.cuh's kOp*).
  enum : int { A_LAYOUT = A_LAYOUT_, B_LAYOUT = B_LAYOUT_, IN = IN_, OUT = OUT_, OP = OP_ };

  enum : bool {
    PINGPONG = SCHEDULE_ == kSchedulePingpong,
    SWAP = SWAP_AB_ != 0,
    C_FIRST = L2_HINTS_ != kL2HintsNone,          // C's stores evict-first in L2
    AB_LAST = L2_HINTS_ == kL2HintsCFirstAbLast,  // A's and B's loads evict-last
    // Tiles may be cut into slices: split-K proper, or stream-K's ranges (SPLIT_K 1).
    SPLITTING = SPLIT_K_ > 1 || SPLIT_MODE_ == kSplitStream,
    A_KM = A_LAYOUT_ == kALayoutKm,  // A stored K x M: M-major in shared memory, in 64-row chunks like B's kn
    B_NK = B_LAYOUT_ == kBLayoutNk,  // B stored N x K: K-major in shared memory, like A
    BF16 = IN_ == kElementBf16,
    BETA = BETA_ != 0,  // D = alpha * A.B + beta * C reads C; else D = alpha * A.B
  };
  enum : int {
    KB_PER_STAGE = BK_ / wgmma_layout::kBK,  // k-blocks of 64 per ring stage
    CLUSTER = CLUSTER_M_ * CLUSTER_N_,
    K_STEPS = BK_ / 16,
    // Flags per block tile: one per consumer that writes part of it (cooperative), one per tile (pingpong).
    FLAG_SLOTS = SCHEDULE_ == kSchedulePingpong ? 1 : CONSUMERS_,
  };

  MPGEMM_HD static constexpr wgmma_layout::Layout layout() {
    return {BM_,
            BN_,
            STAGES_,
            CONSUMERS_,
            SCHEDULE_ == kSchedulePingpong,
            EPILOGUE_ == kEpilogueTma,
            C_BUFFERS_,
            SWAP_AB_ != 0,
            BK_ / wgmma_layout::kBK,
            B_LAYOUT_ == kBLayoutNk};
  }
  enum : int {
    ROWS = layout().rows_per_consumer(),
    M_BLOCKS = layout().m_blocks(),  // 64-row wgmma blocks per consumer: of BM, or of BN when swapped
    WN = layout().wgmma_n(),         // the wgmma N: BN, or BM when swapped
  };

  // This consumer's first wgmma row in the block tile: a row of the tile, or a column when swapped.
  __device__ static int first_row(int consumer) { return PINGPONG ? 0 : consumer * ROWS; }
};

// The ring's mbarriers, addressed from the aligned base of shared memory; mbarriers are 8 bytes.
struct Ring {
  unsigned full_base, empty_base, order_base;
  __device__ unsigned full(int s) const { return full_base + 8u * s; }    // stage s loaded (bytes counted in)
  __device__ unsigned empty(int s) const { return empty_base + 8u * s; }  // stage s released by its readers
  __device__ unsigned order(int consumer) const { return order_base + 8u * consumer; }  // pingpong's turns
};
template <class Cfg>
__device__ __forceinline__ Ring ring_at(unsigned base) {
  constexpr wgmma_layout::Layout L = Cfg::layout();
  return {base + L.full_barrier_offset(0), base + L.empty_barrier_offset(0), base + L.order_barrier_offset(0)};
}

// Where this CTA's block tile of the index-th cluster tile starts.
struct BlockOrigin {
  int m0, n0;
};
template <class Cfg>
__device__ __forceinline__ BlockOrigin block_origin(int index, int tiles_m, int tiles_n, int rank_m, int rank_n) {
  const TileCoord t = tile_at(index, tiles_m, tiles_n, Cfg::RASTER, Cfg::GROUP);
  return {(t.m * Cfg::CLUSTER_M + rank_m) * Cfg::BM, (t.n * Cfg::CLUSTER_N + rank_n) * Cfg::BN};
}

// The work units of this CTA's cluster: next() makes the i-th unit and where its block tile starts, in place from the
// unit's number, so nothing more stays live across a walk (the producer has 40 registers).
template <class Cfg>
struct Schedule {
  int cluster_id, clusters, tiles_m, tiles_n, tiles, k_blocks, rank_m, rank_n;

  __device__ void next(int i, WorkUnit& w, BlockOrigin& o) const {
    w = cluster_unit_at(cluster_id, i, tiles, clusters, k_blocks, Cfg::SPLIT_K, Cfg::SPLIT_MODE);
    o = block_origin<Cfg>(w.tile, tiles_m, tiles_n, rank_m, rank_n);
  }
};

}  // namespace wgmma_detail
}  // namespace mpgemm
