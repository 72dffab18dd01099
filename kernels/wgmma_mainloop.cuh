#pragma once
// The consumers' main loop of wgmma_gemm.cuh: a consumer warpgroup issues m64nBNk16 wgmmas from the shared-memory
// ring (filled by wgmma_producer.cuh) into FP32 registers, keeping one k-block of wgmmas in flight while releasing the
// stage before it. SCHEDULE 0 (cooperative): each consumer owns BM / CONSUMERS rows of every tile. SCHEDULE 1
// (pingpong, two consumers): consumers take alternate tiles whole, so one's epilogue runs while the other's wgmmas
// use the tensor cores. Their main loops take turns ("order" mbarriers): besides keeping the tensor cores to one
// consumer at a time, the turns keep each consumer within one phase of the ring's barriers, which parity waits need.
//
// Swap-AB (SWAP_AB = 1, for skinny M): the wgmmas compute the tile of C's transpose, D = B_tile^T * A_tile^T, so
// the tile's BN columns (multiples of 64) are their M side, cut among the consumers like BM is otherwise, and its
// BM rows (8 to 256, step 8) are their N. Shared memory and TMA are unchanged: B's N-major chunks are read as an
// M-major wgmma A, A's K-major rows as a K-major wgmma B. The accumulator then holds columns of C
// (wgmma_epilogue.cuh).
//
// B stored N x K (B_LAYOUT nk) lies in shared memory as A does (K-major, 128-byte rows of 64 K-elements, 8-row
// swizzle atoms 1024 bytes apart), so its descriptor is A's: the non-transposed wgmma B, or swapped the
// non-transposed wgmma A. BF16 operands (IN bf16) take the same layout and descriptors, and the bf16 wgmma.
#include "hopper_ptx.cuh"
#include "wgmma_ops.cuh"
#include "wgmma_pipeline.cuh"

namespace mpgemm {
namespace wgmma_detail {

// Keeps the compiler from moving reads or writes of the accumulators across the asynchronous wgmma window.
template <int M_BLOCKS, int WN_HALF>
__device__ __forceinline__ void fence_accumulators(float (&acc)[M_BLOCKS][WN_HALF]) {
#pragma unroll
  for (int mb = 0; mb < M_BLOCKS; ++mb)
#pragma unroll
    for (int r = 0; r < WN_HALF; ++r) hopper::fence_operand(acc[mb][r]);
}

// One consumer's main loop: its shared-memory descriptors, its releases of the ring's stages and its pingpong turns.
template <class Cfg>
struct Mainloop {
  enum : int { M_BLOCKS = Cfg::M_BLOCKS, WN = Cfg::WN };
  using Accumulators = float[M_BLOCKS][WN / 2];

  Ring ring;
  int consumer, lane;
  // Descriptors of stage 0's A and B tiles for this consumer, made once. A stage, k-step or m-block only moves the
  // start address, which is the low field of a descriptor in 16-byte units: shared addresses stay below 256 KiB,
  // so adding the offset's units never carries out of that field, and the main loop adds instead of re-encoding.
  unsigned long long a_desc0, b_desc0;
  unsigned turns = 0;  // pingpong: how many times this consumer has waited for its turn

  __device__ Mainloop(unsigned base, const Ring& ring_, int consumer_, int lane_)
      : ring(ring_), consumer(consumer_), lane(lane_) {
    using namespace wgmma_layout;
    constexpr Layout L = Cfg::layout();
    const int row0 = Cfg::first_row(consumer);
    if constexpr (Cfg::A_KM)  // M-major 64-row chunks: this consumer's first chunk
      a_desc0 = hopper::smem_descriptor(base + L.a_offset(0) + (row0 / kWgmmaM) * L.a_chunk_bytes(), L.a_chunk_bytes(),
                                        8 * kRowBytes);
    else
      a_desc0 = hopper::smem_descriptor(base + L.a_offset(0) + (Cfg::SWAP ? 0 : row0 * kRowBytes), 16, 8 * kRowBytes);
    if constexpr (Cfg::B_NK)  // K-major like A: this consumer's first row of B's tile when swapped
      b_desc0 = hopper::smem_descriptor(base + L.b_offset(0) + (Cfg::SWAP ? row0 * kRowBytes : 0), 16, 8 * kRowBytes);
    else
      b_desc0 = hopper::smem_descriptor(base + L.b_offset(0) + (Cfg::SWAP ? (row0 / kBChunk) * L.b_chunk_bytes() : 0),
                                        L.b_chunk_bytes(), 8 * kRowBytes);
  }

  // Releases a stage to the producers of every CTA that loads into it: one arrival per warp and CTA.
  __device__ void release(int s) const {
    if constexpr (Cfg::CLUSTER == 1) {
      if (lane == 0) hopper::mbarrier_arrive(ring.empty(s));
    } else {
      if (lane < Cfg::CLUSTER) hopper::mbarrier_arrive_cluster(ring.empty(s), static_cast<unsigned>(lane));
    }
  }

  // The wgmmas of one unit's k-blocks [kb_begin, kb_end), which fill the ring from position `first` on (counted from
  // the CTA's first k-block, in the producer's order). `later` says whether a unit came before this one (pingpong:
  // it then waits for its turn). On return every wgmma is done and every stage released: acc holds the unit's sums.
  __device__ void run(Accumulators& acc, long long first, int kb_begin, int kb_end, bool later) {
    using namespace hopper;
    using namespace wgmma_layout;
    constexpr Layout L = Cfg::layout();
    constexpr int BM = Cfg::BM, STAGES = Cfg::STAGES, K_STEPS = Cfg::K_STEPS;
    int stage = static_cast<int>(first % STAGES);
    unsigned phase = static_cast<unsigned>(first / STAGES) & 1u;
    int previous = 0;
    if constexpr (Cfg::PINGPONG) {
      if (later) mbarrier_wait(ring.order(consumer), turns++ & 1u);  // the other consumer's main loop is issued
    }
    for (int kb = kb_begin; kb < kb_end; ++kb) {
      mbarrier_wait(ring.full(stage), phase);
      fence_accumulators(acc);
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
          const int scale_d = (kb > kb_begin || k > 0) ? 1 : 0;
          constexpr bool BF16 = Cfg::BF16;
          if constexpr (Cfg::A_KM) {
            // A stored K x M: block mb's chunk, M-major, is the transposed wgmma A of 64 rows (one chunk: the
            // leading offset is unused), addressed as B's chunks are when swapped; B as its layout says.
            const unsigned long long desc_a = a_stage + ((mb * L.a_chunk_bytes() + k * 16 * kRowBytes) >> 4);
            if constexpr (Cfg::B_NK) {
              const unsigned b_k = (k % (kBK / 16)) * 32 + (k / (kBK / 16)) * L.b_block_bytes();
              Wgmma<WN>::template mma<1, 0, BF16>(acc[mb], desc_a, b_stage + (b_k >> 4), scale_d);
            } else {
              Wgmma<WN>::template mma<1, 1, BF16>(acc[mb], desc_a, b_stage + ((k * 16 * kRowBytes) >> 4), scale_d);
            }
          } else if constexpr (Cfg::B_NK) {
            // B stored N x K is K-major, laid out like A (its k-blocks BN rows apart): the wgmma B, or swapped the
            // wgmma A (block mb: 64 rows of it), both non-transposed.
            const unsigned b_k = (k % (kBK / 16)) * 32 + (k / (kBK / 16)) * L.b_block_bytes();
            if constexpr (!Cfg::SWAP) {
              const unsigned long long desc_a = a_stage + ((mb * kWgmmaM * kRowBytes + a_k) >> 4);
              const unsigned long long desc_b = b_stage + (b_k >> 4);
              Wgmma<WN>::template mma<0, 0, BF16>(acc[mb], desc_a, desc_b, scale_d);
            } else {
              const unsigned long long desc_a = b_stage + ((mb * kWgmmaM * kRowBytes + b_k) >> 4);
              const unsigned long long desc_b = a_stage + (a_k >> 4);
              Wgmma<WN>::template mma<0, 0, BF16>(acc[mb], desc_a, desc_b, scale_d);
            }
          } else if constexpr (!Cfg::SWAP) {
            // A is K-major: 8-row groups 1024 bytes apart (the leading offset is unused under the swizzle).
            const unsigned long long desc_a = a_stage + ((mb * kWgmmaM * kRowBytes + a_k) >> 4);
            // B is N-major: 64-column chunks lie b_chunk_bytes apart (leading), 8-row K groups 1024 bytes apart.
            const unsigned long long desc_b = b_stage + ((k * 16 * kRowBytes) >> 4);
            Wgmma<WN>::template mma<0, 1, BF16>(acc[mb], desc_a, desc_b, scale_d);
          } else {
            // Swapped: block mb's B chunk, N-major, is an M-major wgmma A of 64 rows (one chunk: the leading
            // offset is unused); A's rows, K-major, are the wgmma B.
            const unsigned long long desc_a = b_stage + ((mb * L.b_chunk_bytes() + k * 16 * kRowBytes) >> 4);
            const unsigned long long desc_b = a_stage + (a_k >> 4);
            Wgmma<WN>::template mma<1, 0, BF16>(acc[mb], desc_a, desc_b, scale_d);
          }
        }
      }
      wgmma_commit();
      fence_accumulators(acc);
      if (kb > kb_begin) {
        wgmma_wait<1>();  // the previous k-block's wgmmas are done with their stage
        release(previous);
      }
      previous = stage;
      if (++stage == STAGES) {
        stage = 0;
        phase ^= 1;
      }
    }
    if constexpr (Cfg::PINGPONG) {
      if (lane == 0) mbarrier_arrive(ring.order(1 - consumer));  // the other consumer's turn
    }
    wgmma_wait<0>();
    fence_accumulators(acc);
    release(previous);
  }
};

}  // namespace wgmma_detail
}  // namespace mpgemm
