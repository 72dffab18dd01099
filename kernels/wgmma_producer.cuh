#pragma once
// The producer of wgmma_gemm.cuh: one thread of the producer warpgroup issues the TMA loads of BM x 64 A tiles and
// 64 x BN B tiles (B stored K x N: 64-column chunks of it; stored N x K: BN rows x 64 of K, like A) into the
// STAGES-deep shared-memory ring, unit after unit; "full" mbarriers count the bytes in, "empty" mbarriers the
// consumers' releases (wgmma_mainloop.cuh).
//
// Clusters: the CTAs of one tile row share A and those of one tile column share B; each loads a slice of the shared
// operand (BM / CLUSTER_N rows of A; BK / CLUSTER_M rows of B stored K x N, BN / CLUSTER_M rows of B stored N x K)
// and multicasts it to its peers, whose full barriers count it.
//
// Deep stages (BK = 128 or 256: D = BK / 64 k-blocks per ring stage): each stage is loaded with one copy of A, a 3-D
// box {64, BM, D} of a view of A as {64, M, K / 64} (its planes, BM rows each, land one after another), and one copy
// per B chunk, a box of BK rows (B stored N x K: one 2-D copy of BN rows per k-block, multicast as above). A TMA copy
// costs its SM about the same whatever its size up to 16 KiB (results/h200/suite/tma_ops/, archived at efb86f5:
// results/archived.tsv), so small tiles, whose main loops the copies pace, issue D times fewer of them. K must then be
// a multiple of 64 (the view's planes are whole 64-column blocks); no A multicast (CLUSTER_N 1) and no L2 hint on A's
// loads.
//
// L2 hints (L2_HINTS 2): A's and B's loads marked evict-last, so that C streaming through the L2 does not push out
// the lines other tiles read again.
//
// Edges need no code: TMA fills out-of-bounds loads with zeros (the barrier still counts the full box).
#include "hopper_ptx.cuh"
#include "wgmma_pipeline.cuh"

namespace mpgemm {
namespace wgmma_detail {

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

// An operand stored K-rows x MN-columns (B stored K x N, A stored K x M): CHUNKS copies of BK rows by WIDTH columns,
// CHUNK_BYTES apart in shared memory, the chunks' columns starting at mn0. In a cluster of CLUSTER CTAs sharing the
// operand, each loads BK / CLUSTER of the rows (from its `rank`) and multicasts them to the CTAs in `mask`.
template <int BK, int CHUNKS, int WIDTH, int CHUNK_BYTES, int CLUSTER, bool AB_LAST>
__device__ __forceinline__ void load_chunks(unsigned dst, const hopper::TensorMap* map, unsigned full, int mn0, int k0,
                                            int rank, unsigned short mask, unsigned long long policy) {
  using namespace hopper;
#pragma unroll
  for (int j = 0; j < CHUNKS; ++j) {
    if constexpr (CLUSTER == 1) {
      tma_load<AB_LAST>(dst + j * CHUNK_BYTES, map, full, mn0 + j * WIDTH, k0, policy);
    } else {
      constexpr int rows = BK / CLUSTER;
      tma_load_multicast<AB_LAST>(dst + j * CHUNK_BYTES + rank * rows * wgmma_layout::kRowBytes, map, full,
                                  mn0 + j * WIDTH, k0 + rank * rows, mask, policy);
    }
  }
}

// The load loop, run by one thread: the k-blocks of this CTA's `units` units, the first of which (first_unit, at
// first_origin) the caller has computed already; the later ones come from `schedule`.
template <class Cfg>
__device__ __forceinline__ void produce(const hopper::TensorMap* a_map, const hopper::TensorMap* b_map, unsigned base,
                                        const Ring& ring, const Schedule<Cfg>& schedule, int units, WorkUnit first_unit,
                                        BlockOrigin first_origin) {
  using namespace hopper;
  using namespace wgmma_layout;
  constexpr Layout L = Cfg::layout();
  constexpr int BM = Cfg::BM, BK = Cfg::BK, STAGES = Cfg::STAGES;
  constexpr int CLUSTER_M = Cfg::CLUSTER_M, CLUSTER_N = Cfg::CLUSTER_N;
  constexpr bool AB_LAST = Cfg::AB_LAST;
  const int rank_m = schedule.rank_m, rank_n = schedule.rank_n;
  const unsigned short a_mask = a_sharers<CLUSTER_M, CLUSTER_N>(rank_m);
  const unsigned short b_mask = b_sharers<CLUSTER_M, CLUSTER_N>(rank_n);
  const unsigned long long ab_policy = AB_LAST ? l2_policy_evict_last() : 0;
  int stage = 0;
  unsigned phase = 0;
  WorkUnit w = first_unit;
  BlockOrigin o = first_origin;
  for (int i = 0; i < units; ++i) {
    if (i > 0) schedule.next(i, w, o);
    for (int kb = w.kb_begin; kb < w.kb_end; ++kb) {
      mbarrier_wait(ring.empty(stage), phase ^ 1);
      mbarrier_arrive_expect_tx(ring.full(stage), L.stage_bytes());
      const int k0 = kb * BK;
      const unsigned a_dst = base + L.a_offset(stage);
      if constexpr (Cfg::A_KM) {
        // A stored K x M: 64 columns of M by BK rows of K per 64-row chunk, as B's chunks when stored K x N.
        load_chunks<BK, BM / kWgmmaM, kWgmmaM, L.a_chunk_bytes(), CLUSTER_N, AB_LAST>(
            a_dst, a_map, ring.full(stage), o.m0, k0, rank_n, a_mask, ab_policy);
      } else if constexpr (BK > kBK) {
        tma_load_3d(a_dst, a_map, ring.full(stage), 0, o.m0, kb * Cfg::KB_PER_STAGE);
      } else if constexpr (CLUSTER_N == 1) {
        tma_load<AB_LAST>(a_dst, a_map, ring.full(stage), k0, o.m0, ab_policy);
      } else {
        constexpr int rows = BM / CLUSTER_N;
        tma_load_multicast<AB_LAST>(a_dst + rank_n * rows * kRowBytes, a_map, ring.full(stage), k0,
                                    o.m0 + rank_n * rows, a_mask, ab_policy);
      }
      const unsigned b_dst = base + L.b_offset(stage);
      if constexpr (Cfg::B_NK) {
        // B stored N x K: one copy of BN rows (a slice of them per CTA when multicast) per k-block of the stage.
#pragma unroll
        for (int d = 0; d < Cfg::KB_PER_STAGE; ++d) {
          const unsigned dst = b_dst + d * L.b_block_bytes();
          if constexpr (CLUSTER_M == 1) {
            tma_load<AB_LAST>(dst, b_map, ring.full(stage), k0 + d * kBK, o.n0, ab_policy);
          } else {
            constexpr int rows = Cfg::BN / CLUSTER_M;
            tma_load_multicast<AB_LAST>(dst + rank_m * rows * kRowBytes, b_map, ring.full(stage), k0 + d * kBK,
                                        o.n0 + rank_m * rows, b_mask, ab_policy);
          }
        }
      } else {
        load_chunks<BK, L.b_chunks(), kBChunk, L.b_chunk_bytes(), CLUSTER_M, AB_LAST>(
            b_dst, b_map, ring.full(stage), o.n0, k0, rank_m, b_mask, ab_policy);
      }
      if (++stage == STAGES) {
        stage = 0;
        phase ^= 1;
      }
    }
  }
}

}  // namespace wgmma_detail
}  // namespace mpgemm
