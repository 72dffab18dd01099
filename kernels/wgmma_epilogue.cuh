#pragma once
// The epilogue of wgmma_gemm.cuh: a consumer's FP32 accumulators of one unit (wgmma_mainloop.cuh) into D. One policy
// per EPILOGUE, all with the same interface (made once per consumer; store() per unit; finish() before the consumer
// leaves), so that the kernel and the main loop know none of them and a new way out (a fused operation) is one more
// policy or a change to one:
//   0 direct: pairs straight from registers (st.global.v2 of FP32, one 32-bit store of two 16-bit values;
//             bounds-checked);
//   1 tma:    64-row sub-tiles of 128-byte rows (32 FP32 or 64 16-bit columns) through C_BUFFERS 128B-swizzled
//             shared buffers per consumer and TMA stores, which drain while the consumer goes on;
//   2 rows:   whole rows of 4 columns per lane (a 128-byte line of FP32 per 8 lanes, half of one in 16 bits)
//             straight from registers, after a transpose across each warp's lanes (wgmma_rows.cuh); no shared
//             memory, so the other consumer's wgmmas keep it.
// Every policy computes D = alpha * acc + beta * C (BETA; else alpha * acc) in FP32 and rounds it once to D's type
// (wgmma_output.cuh): the accumulators are scaled by alpha first, then C is read where each policy stores D, in the
// same thread and before the store, so C may be D itself. A fused operation (Cfg::OP, epilogue_ops.cuh) comes last,
// before the rounding: the column's bias (D's type, widened) added, then the activation; in every policy, and with
// split-K only where the tile's last slice stores D (the earlier slices' sums are not D's final values).
//
// Split-K (SPLIT_K > 1, or SPLIT_MODE stream: split_k.cuh): the grid works through (tile, slice of K) units; each slice
// adds its partial sums into C in slice order, waiting on a per-tile flag in `flags` (zero before the launch, zero
// again after), so the result does not depend on timing. Direct epilogue and persistent grids only (the slices wait for
// each other).
//
// Split-K's partial sums are FP32; each slice adds alpha times its sums, and the first slice (slice 0, which writes the
// tile before any other) adds beta * C, so C may be D here too. With D FP32 the earlier slices leave their sums in D;
// with D 16-bit, in the workspace's partial sums (split_k.cuh), and only the tile's last slice rounds and writes D.
//
// Swap-AB (SWAP_AB = 1): the accumulator holds columns of D, so the epilogue (direct only) writes single elements, 8
// consecutive columns per 8 lanes.
//
// L2 hints (L2_HINTS 1 or 2): C's stores (every epilogue) marked evict-first, so that C streaming through the L2 does
// not push out the A and B lines other tiles read again; a split tile's partial sums, which the next slice reads back,
// are not.
//
// Bounds: the direct and rows epilogues check them on edge tiles; TMA clips out-of-bounds stores.
#include "epilogue_ops.cuh"
#include "hopper_ptx.cuh"
#include "wgmma_output.cuh"
#include "wgmma_pipeline.cuh"
#include "wgmma_rows.cuh"

namespace mpgemm {
namespace wgmma_detail {

__device__ __forceinline__ void st_shared_v2(unsigned address, float x, float y) {
  asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(address), "f"(x), "f"(y) : "memory");
}
__device__ __forceinline__ void st_shared_b32(unsigned address, unsigned v) {
  asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(address), "r"(v) : "memory");
}

// What every epilogue is given: D and the split flags, the problem's M and N, D's tensor map, the aligned base of
// shared memory, the CTA's cluster rank, alpha, beta and C (D's type; read only when BETA; may be D), with a
// 16-bit D and split-K, the split tiles' FP32 partial sums and the first split tile (split_k.cuh), and the bias (N
// values of D's type; read only when OP is not none).
struct EpilogueArgs {
  void* C;
  int* flags;
  int M, N;
  const hopper::TensorMap* c_map;
  unsigned base;
  int rank;
  float alpha, beta;
  const void* C_in;
  float* partials;
  int first_split;
  const void* bias;
};

// x = OP(x, the bias at its column), for 1, 2 or 4 consecutive columns (the bias already widened to FP32).
template <int OP>
__device__ __forceinline__ void apply_op(float& x, float b) {
  x = epilogue_ops::apply<OP>(x, b);
}
template <int OP>
__device__ __forceinline__ void apply_op(float& x, float& y, float2 b) {
  x = epilogue_ops::apply<OP>(x, b.x);
  y = epilogue_ops::apply<OP>(y, b.y);
}

// acc *= alpha: the first step of every policy's arithmetic (wgmma_output.cuh).
template <int M_BLOCKS, int WN_HALF>
__device__ __forceinline__ void scale(float (&acc)[M_BLOCKS][WN_HALF], float alpha) {
#pragma unroll
  for (int mb = 0; mb < M_BLOCKS; ++mb)
#pragma unroll
    for (int r = 0; r < WN_HALF; ++r) acc[mb][r] *= alpha;
}

template <class Cfg, int KIND = Cfg::EPILOGUE>
struct Epilogue;

// ---- 0 direct (and split-K) -----------------------------------------------------------------------------------------
template <class Cfg>
struct Epilogue<Cfg, kEpilogueDirect> {
  enum : int { M_BLOCKS = Cfg::M_BLOCKS, WN = Cfg::WN };
  using Accumulators = float[M_BLOCKS][WN / 2];

  EpilogueArgs args;
  int consumer, tid, warp, lane, row0;
  // C's final values go out evict-first; a split tile's partial sums, which the next slice reads back, do not.
  unsigned long long c_policy, partial_policy;

  __device__ Epilogue(const EpilogueArgs& args_, int consumer_, int tid_)
      : args(args_), consumer(consumer_), tid(tid_), warp(tid_ / 32), lane(tid_ % 32), row0(Cfg::first_row(consumer_)) {
    c_policy = Cfg::C_FIRST ? hopper::l2_policy_evict_first() : 0;
    partial_policy = Cfg::C_FIRST && Cfg::SPLITTING ? hopper::l2_policy_evict_normal() : 0;
  }

  __device__ void store(Accumulators& acc, const WorkUnit& w, const BlockOrigin& o) {
    using namespace hopper;
    using namespace wgmma_layout;
    using O = wgmma_output::Out<Cfg::OUT>;
    using S = typename O::Storage;
    constexpr int BM = Cfg::BM, BN = Cfg::BN;
    constexpr bool C_FIRST = Cfg::C_FIRST, SPLITTING = Cfg::SPLITTING, BETA = Cfg::BETA;
    // 16-bit D: the slices' FP32 sums go through the workspace (P, this CTA's BM x BN block of it), and only the
    // tile's last slice writes D.
    constexpr bool PARTIALS = SPLITTING && Cfg::OUT != kElementFp32;
    S* const C = static_cast<S*>(args.C);
    const S* const C_in = static_cast<const S*>(args.C_in);
    const float beta = args.beta;
    const int M = args.M, N = args.N;
    const int row_in_block = warp * 16 + lane / 4;  // and + 8
    // Split-K: this slice's turn on the tile (its flag says so); slice 0 stores, the later ones add.
    const int bar_id = 1 + consumer;  // named barrier of this consumer's 128 threads (0 is __syncthreads)
    int* const flag = !SPLITTING
                          ? nullptr
                          : args.flags + (static_cast<long long>(w.tile) * Cfg::CLUSTER + args.rank) * Cfg::FLAG_SLOTS +
                                (Cfg::PINGPONG ? 0 : consumer);
    const bool later_slice = SPLITTING && w.split > 0;
    const bool to_partials = PARTIALS && w.split < w.splits - 1;
    // The fused operation goes with D's final values: unsplit, or the tile's last slice.
    constexpr bool FUSED = Cfg::OP != epilogue_ops::kOpNone;
    [[maybe_unused]] const bool final_slice = !SPLITTING || w.split == w.splits - 1;
    [[maybe_unused]] const S* const bias = static_cast<const S*>(args.bias);
    float* const P =
        !PARTIALS ? nullptr
                  : args.partials +
                        (static_cast<long long>(w.tile - args.first_split) * Cfg::CLUSTER + args.rank) * (BM * BN);
    const unsigned long long store_policy = SPLITTING && w.split < w.splits - 1 ? partial_policy : c_policy;
#if defined(MPGEMM_WGMMA_FAULT) && MPGEMM_WGMMA_FAULT == 2
    const bool accumulate = false;  // Test-only fault: every slice stores instead of adding, so C holds the last.
#else
    const bool accumulate = later_slice;
#endif
    // beta * C is added once per element: by the tile's first slice, before any slice has written D. With beta 0
    // C is not read at all (as cuBLASLt does not: a NaN there stays out of D).
    const bool read_c = BETA && beta != 0.f && !later_slice;
    if constexpr (SPLITTING) {
      if (later_slice) {
        if (tid == 0) {
          wait_flag(flag, w.split);
          if (w.split == w.splits - 1) st_relaxed_gpu(flag, 0);  // the last slice leaves the flag as it found it
        }
        named_barrier_sync(bar_id, kWarpgroup);
      }
    }
    scale(acc, args.alpha);
    // Bounds checks only matter on edge tiles; N is even, so a pair never straddles the right edge.
    const bool inside = o.m0 + BM <= M && o.n0 + BN <= N;
    // Swapped: accumulator r of block mb holds C[m][n] at n = the wgmma row, m = the wgmma column.
    const auto swapped_n = [&](int mb, int r) { return o.n0 + row0 + mb * kWgmmaM + row_in_block + (r & 2) * 4; };
    const auto swapped_m = [&](int r) { return o.m0 + 8 * (r / 4) + 2 * (lane % 4) + (r & 1); };
    if constexpr (Cfg::SWAP) {
      if (accumulate || read_c) {
#pragma unroll
        for (int mb = 0; mb < M_BLOCKS; ++mb)
#pragma unroll
          for (int r = 0; r < WN / 2; ++r) {
            const int n = swapped_n(mb, r), m = swapped_m(r);
            if (inside || (m < M && n < N)) {
              const size_t at = static_cast<size_t>(m) * N + n;
              if constexpr (PARTIALS) {
                if (accumulate) acc[mb][r] += __ldcg(P + (m - o.m0) * BN + (n - o.n0));
              } else if constexpr (SPLITTING) {
                if (accumulate) acc[mb][r] += __ldcg(C + at);
              }
              if constexpr (BETA) {
                if (read_c) acc[mb][r] = wgmma_output::add_beta(acc[mb][r], beta, O::load1(C_in + at));
              }
            }
          }
      }
#pragma unroll
      for (int mb = 0; mb < M_BLOCKS; ++mb)
#pragma unroll
        for (int r = 0; r < WN / 2; ++r) {
          const int n = swapped_n(mb, r), m = swapped_m(r);
          if (inside || (m < M && n < N)) {
            if constexpr (PARTIALS) {
              if (to_partials) {
                store_global<C_FIRST>(P + (m - o.m0) * BN + (n - o.n0), acc[mb][r], store_policy);
                continue;
              }
            }
            if constexpr (FUSED) {
              if (final_slice) apply_op<Cfg::OP>(acc[mb][r], O::load1(bias + n));
            }
            O::template store1<C_FIRST>(C + static_cast<size_t>(m) * N + n, acc[mb][r], store_policy);
          }
        }
    } else {
      if (accumulate || read_c) {
        // The earlier slices' sums, read from L2 (other SMs wrote them), or C, in a pass of loads only, so that all
        // of them are in flight at once instead of one round trip per store.
#pragma unroll
        for (int mb = 0; mb < M_BLOCKS; ++mb) {
          const int row = o.m0 + row0 + mb * kWgmmaM + row_in_block;
          const int col = o.n0 + 2 * (lane % 4);
          const size_t at0 = static_cast<size_t>(row) * N + col, at1 = at0 + static_cast<size_t>(8) * N;
          const bool in0 = inside || row < M, in1 = inside || row + 8 < M;
          // This CTA's partial sums of the same two rows (16-bit D).
          const float* const p0 = PARTIALS ? P + (row - o.m0) * BN + (col - o.n0) : nullptr;
          const float* const p1 = PARTIALS ? p0 + 8 * BN : nullptr;
#pragma unroll
          for (int i = 0; i < BN / 8; ++i) {
            const bool in_n = inside || col + 8 * i < N;
            if constexpr (PARTIALS) {
              if (accumulate) {
                if (in0 && in_n) {
                  const float2 p = __ldcg(reinterpret_cast<const float2*>(p0 + 8 * i));
                  acc[mb][4 * i] += p.x;
                  acc[mb][4 * i + 1] += p.y;
                }
                if (in1 && in_n) {
                  const float2 p = __ldcg(reinterpret_cast<const float2*>(p1 + 8 * i));
                  acc[mb][4 * i + 2] += p.x;
                  acc[mb][4 * i + 3] += p.y;
                }
              }
            } else if constexpr (SPLITTING) {
              if (accumulate) {
                if (in0 && in_n) {
                  const float2 p = __ldcg(reinterpret_cast<const float2*>(C + at0 + 8 * i));
                  acc[mb][4 * i] += p.x;
                  acc[mb][4 * i + 1] += p.y;
                }
                if (in1 && in_n) {
                  const float2 p = __ldcg(reinterpret_cast<const float2*>(C + at1 + 8 * i));
                  acc[mb][4 * i + 2] += p.x;
                  acc[mb][4 * i + 3] += p.y;
                }
              }
            }
            if constexpr (BETA) {
              if (read_c) {
                if (in0 && in_n) {
                  const float2 c = O::load2(C_in + at0 + 8 * i);
                  acc[mb][4 * i] = wgmma_output::add_beta(acc[mb][4 * i], beta, c.x);
                  acc[mb][4 * i + 1] = wgmma_output::add_beta(acc[mb][4 * i + 1], beta, c.y);
                }
                if (in1 && in_n) {
                  const float2 c = O::load2(C_in + at1 + 8 * i);
                  acc[mb][4 * i + 2] = wgmma_output::add_beta(acc[mb][4 * i + 2], beta, c.x);
                  acc[mb][4 * i + 3] = wgmma_output::add_beta(acc[mb][4 * i + 3], beta, c.y);
                }
              }
            }
          }
        }
      }
#pragma unroll
      for (int mb = 0; mb < M_BLOCKS; ++mb) {
        const int row = o.m0 + row0 + mb * kWgmmaM + row_in_block;
        const int col = o.n0 + 2 * (lane % 4);
        S* c0 = C + static_cast<size_t>(row) * N + col;
        S* c1 = c0 + static_cast<size_t>(8) * N;
        const bool in0 = inside || row < M, in1 = inside || row + 8 < M;
        if constexpr (PARTIALS) {
          if (to_partials) {  // an earlier slice of a split tile: FP32 sums for the next one
            float* const p0 = P + (row - o.m0) * BN + (col - o.n0);
#pragma unroll
            for (int i = 0; i < BN / 8; ++i) {
              const bool in_n = inside || col + 8 * i < N;
              if (in0 && in_n)
                store_global<C_FIRST>(reinterpret_cast<float2*>(p0 + 8 * i),
                                      make_float2(acc[mb][4 * i], acc[mb][4 * i + 1]), store_policy);
              if (in1 && in_n)
                store_global<C_FIRST>(reinterpret_cast<float2*>(p0 + 8 * BN + 8 * i),
                                      make_float2(acc[mb][4 * i + 2], acc[mb][4 * i + 3]), store_policy);
            }
            continue;
          }
        }
#pragma unroll
        for (int i = 0; i < BN / 8; ++i) {
          const bool in_n = inside || col + 8 * i < N;
          if constexpr (FUSED) {
            if (final_slice && in_n) {
              const float2 b = O::load2(bias + col + 8 * i);
              apply_op<Cfg::OP>(acc[mb][4 * i], acc[mb][4 * i + 1], b);
              apply_op<Cfg::OP>(acc[mb][4 * i + 2], acc[mb][4 * i + 3], b);
            }
          }
          if (in0 && in_n) O::template store2<C_FIRST>(c0 + 8 * i, acc[mb][4 * i], acc[mb][4 * i + 1], store_policy);
          if (in1 && in_n)
            O::template store2<C_FIRST>(c1 + 8 * i, acc[mb][4 * i + 2], acc[mb][4 * i + 3], store_policy);
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
  }

  __device__ void finish() {}
};

// ---- 1 tma ----------------------------------------------------------------------------------------------------------
template <class Cfg>
struct Epilogue<Cfg, kEpilogueTma> {
  enum : int { M_BLOCKS = Cfg::M_BLOCKS, WN = Cfg::WN };
  using Accumulators = float[M_BLOCKS][WN / 2];

  EpilogueArgs args;
  int consumer, tid, warp, lane, row0;
  unsigned long long c_policy;
  int slot = 0;  // sub-tiles stored so far: buffer slot % C_BUFFERS is the next

  __device__ Epilogue(const EpilogueArgs& args_, int consumer_, int tid_)
      : args(args_), consumer(consumer_), tid(tid_), warp(tid_ / 32), lane(tid_ % 32), row0(Cfg::first_row(consumer_)) {
    c_policy = Cfg::C_FIRST ? hopper::l2_policy_evict_first() : 0;
  }

  __device__ void store(Accumulators& acc, const WorkUnit&, const BlockOrigin& o) {
    using namespace hopper;
    using namespace wgmma_layout;
    using O = wgmma_output::Out<Cfg::OUT>;
    using S = typename O::Storage;
    constexpr Layout L = Cfg::layout();
    constexpr int BN = Cfg::BN, C_BUFFERS = Cfg::C_BUFFERS;
    constexpr bool FP32 = Cfg::OUT == kElementFp32;
    constexpr int SUB_COLS = kRowBytes / sizeof(S);  // a sub-tile row is 128 bytes: 32 FP32 or 64 16-bit columns
    static_assert(BN % SUB_COLS == 0, "the tma epilogue stores whole sub-tiles of 128-byte rows");
    const int row_in_block = warp * 16 + lane / 4;  // and + 8
    const int bar_id = 1 + consumer;                // named barrier of this consumer's 128 threads (0 is __syncthreads)
    scale(acc, args.alpha);
#pragma unroll
    for (int mb = 0; mb < M_BLOCKS; ++mb) {
#pragma unroll
      for (int j = 0; j < BN / SUB_COLS; ++j) {
        const unsigned buffer = args.base + L.c_offset(consumer, slot % C_BUFFERS);
        if (Cfg::BETA && args.beta != 0.f) {
          // C's pairs of this sub-tile, read before its TMA store is issued (C may be D); not read when beta is 0.
          const S* const C_in = static_cast<const S*>(args.C_in);
          const int row = o.m0 + row0 + mb * kWgmmaM + row_in_block;
#pragma unroll
          for (int ii = 0; ii < SUB_COLS / 8; ++ii) {
            const int i = j * (SUB_COLS / 8) + ii;
            const int col = o.n0 + 8 * i + 2 * (lane % 4);
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              if (row + 8 * h < args.M && col < args.N) {
                const float2 c = O::load2(C_in + static_cast<size_t>(row + 8 * h) * args.N + col);
                acc[mb][4 * i + 2 * h] = wgmma_output::add_beta(acc[mb][4 * i + 2 * h], args.beta, c.x);
                acc[mb][4 * i + 2 * h + 1] = wgmma_output::add_beta(acc[mb][4 * i + 2 * h + 1], args.beta, c.y);
              }
            }
          }
        }
        if constexpr (Cfg::OP != epilogue_ops::kOpNone) {
          // The bias of this sub-tile's columns, then the activation, before the values go to shared memory.
          const S* const bias = static_cast<const S*>(args.bias);
#pragma unroll
          for (int ii = 0; ii < SUB_COLS / 8; ++ii) {
            const int i = j * (SUB_COLS / 8) + ii;
            const int col = o.n0 + 8 * i + 2 * (lane % 4);
            if (col < args.N) {
              const float2 b = O::load2(bias + col);
              apply_op<Cfg::OP>(acc[mb][4 * i], acc[mb][4 * i + 1], b);
              apply_op<Cfg::OP>(acc[mb][4 * i + 2], acc[mb][4 * i + 3], b);
            }
          }
        }
        if (tid == 0) bulk_wait_group_read<C_BUFFERS - 1>();  // this buffer's previous store has read it
        named_barrier_sync(bar_id, kWarpgroup);
#pragma unroll
        for (int ii = 0; ii < SUB_COLS / 8; ++ii) {
          const int i = j * (SUB_COLS / 8) + ii;
          const int r0 = row_in_block, r1 = row_in_block + 8;
          if constexpr (FP32) {
            const int chunk = 2 * ii + (lane % 4) / 2;  // 16-byte chunk of the 128-byte row
            const int within = (lane % 2) * 8;
            st_shared_v2(buffer + r0 * kRowBytes + ((chunk ^ (r0 % 8)) * 16) + within, acc[mb][4 * i],
                         acc[mb][4 * i + 1]);
            st_shared_v2(buffer + r1 * kRowBytes + ((chunk ^ (r1 % 8)) * 16) + within, acc[mb][4 * i + 2],
                         acc[mb][4 * i + 3]);
          } else {
            const int chunk = ii;  // 8 16-bit columns per 16-byte chunk; this lane's pair is 4 bytes of it
            const int within = (lane % 4) * 4;
            st_shared_b32(buffer + r0 * kRowBytes + ((chunk ^ (r0 % 8)) * 16) + within,
                          O::pack2(acc[mb][4 * i], acc[mb][4 * i + 1]));
            st_shared_b32(buffer + r1 * kRowBytes + ((chunk ^ (r1 % 8)) * 16) + within,
                          O::pack2(acc[mb][4 * i + 2], acc[mb][4 * i + 3]));
          }
        }
        fence_proxy_async_shared();
        named_barrier_sync(bar_id, kWarpgroup);
        if (tid == 0) {
          tma_store<Cfg::C_FIRST>(args.c_map, buffer, o.n0 + j * SUB_COLS, o.m0 + row0 + mb * kWgmmaM, c_policy);
          bulk_commit_group();
        }
        ++slot;
      }
    }
  }

  // The last TMA stores have finished before the consumer leaves.
  __device__ void finish() {
    if (tid == 0) hopper::bulk_wait_group<0>();
  }
};

// ---- 2 rows ---------------------------------------------------------------------------------------------------------
template <class Cfg>
struct Epilogue<Cfg, kEpilogueRows> {
  enum : int { M_BLOCKS = Cfg::M_BLOCKS, WN = Cfg::WN };
  using Accumulators = float[M_BLOCKS][WN / 2];

  EpilogueArgs args;
  int warp, lane, row0;
  unsigned long long c_policy;

  __device__ Epilogue(const EpilogueArgs& args_, int consumer_, int tid_)
      : args(args_), warp(tid_ / 32), lane(tid_ % 32), row0(Cfg::first_row(consumer_)) {
    c_policy = Cfg::C_FIRST ? hopper::l2_policy_evict_first() : 0;
  }

  __device__ void store(Accumulators& acc, const WorkUnit&, const BlockOrigin& o) {
    constexpr int BM = Cfg::BM, BN = Cfg::BN;
    using S = typename wgmma_output::Out<Cfg::OUT>::Storage;
    const bool inside = o.m0 + BM <= args.M && o.n0 + BN <= args.N;
    scale(acc, args.alpha);
#pragma unroll
    for (int mb = 0; mb < M_BLOCKS; ++mb)
      wgmma_rows::store<BN, Cfg::C_FIRST, Cfg::OUT, Cfg::BETA, Cfg::OP>(
          acc[mb], static_cast<S*>(args.C), args.M, args.N, o.m0 + row0 + mb * wgmma_layout::kWgmmaM + warp * 16, o.n0,
          inside, lane, c_policy, static_cast<const S*>(args.C_in), args.beta, static_cast<const S*>(args.bias));
  }

  __device__ void finish() {}
};

}  // namespace wgmma_detail
}  // namespace mpgemm
