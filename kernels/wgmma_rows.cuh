#pragma once
// The rows epilogue of kernels/wgmma_gemm.cuh (EPILOGUE 2): one warp's 16 x BN piece of the FP32 accumulators
// stored as whole 128-byte lines of C (FP32; 64-byte halves of lines in 16 bits), 4 rows x 32 columns per store
// instruction, after a transpose across the warp's lanes with shuffles.
//
// Why (H200; results/h200/ceilings/overlap/, archived at d0cb776: results/archived.tsv): stored in the accumulators'
// own layout (8 rows x 32 bytes per warp instruction, the direct epilogue) a 4096 x 4096 C takes 24.9 us against 17.6
// us as whole lines; staged through shared memory (the tma epilogue) it takes 18.3 us alone, but then it slows the
// other consumer's wgmmas, which read the same shared memory: with a k-loop of 4096x4096x256's length beside it, 24.1
// us against 17.7 us for lines from registers, which overlap the wgmmas completely up to that k-loop length (not at K =
// 512 or more). In the GEMM it wins 1024^3 and 2048^3 and loses to tma at 4096x4096x256, where a consumer's stores hold
// it while TMA stores drain after it has moved on (results/h200/suite/NOTES.md, "The rows epilogue", archived at
// efb86f5: results/archived.tsv).
//
// The accumulators of one m64 block (wgmma_ops.cuh): lane l = 4r + q holds d[4i], d[4i+1] = row r, columns
// 8i + 2q + {0, 1} and d[4i+2], d[4i+3] = row r + 8, the same columns. Per 32-column group (i = 4g .. 4g + 3):
//   1. lanes q and q ^ 1 swap halves, so that each lane holds 4 consecutive columns of one row: row
//      r + 8 (q & 1), float4 number 2 ii + (q >> 1) of the group, for ii = 0 .. 3 (the lane's P[ii]);
//   2. store instruction u (0 .. 3) writes rows 4u + rho (rho = lane / 8) of the 16, float4 k = lane % 8 of each:
//      lane L needs P[k >> 1] of lane 16 (u & 1) + 4 rho + 2 (k & 1) + (u >> 1). Four shuffle rounds deliver it:
//      in round t, lane L takes instruction u = (m + t) & 3's float4 (m = k >> 1), so the 32 lanes read 32 different
//      sources, and each source lane s gives P[(u_s - t) & 3], u_s = 2 (s & 1) + (s >> 4) being the one
//      instruction it serves. Both sides rotate their four float4 by a lane-dependent amount with selects.
#include "epilogue_ops.cuh"
#include "hopper_ptx.cuh"
#include "wgmma_choices.cuh"
#include "wgmma_output.cuh"

namespace mpgemm {
namespace wgmma_rows {

__device__ __forceinline__ float4 shfl(const float4& v, int src) {
  return make_float4(__shfl_sync(0xffffffffu, v.x, src), __shfl_sync(0xffffffffu, v.y, src),
                     __shfl_sync(0xffffffffu, v.z, src), __shfl_sync(0xffffffffu, v.w, src));
}

__device__ __forceinline__ float4 pick(bool first, const float4& a, const float4& b) {
  return make_float4(first ? a.x : b.x, first ? a.y : b.y, first ? a.z : b.z, first ? a.w : b.w);
}

// out[t] = in[(t - by) & 3] for by in 0 .. 3: two stages of selects, no indexing by a runtime value.
__device__ __forceinline__ void rotate(const float4 (&in)[4], int by, float4 (&out)[4]) {
  float4 x[4];
#pragma unroll
  for (int t = 0; t < 4; ++t) x[t] = pick((by & 1) != 0, in[(t + 3) & 3], in[t]);
#pragma unroll
  for (int t = 0; t < 4; ++t) out[t] = pick((by & 2) != 0, x[(t + 2) & 3], x[t]);
}

// Stores the warp's accumulators of one m64 block, rows row0 .. row0 + 15 and columns col0 .. col0 + BN - 1 of the
// M x N row-major C (row0, col0: the warp's first row and the tile's first column), of type OUT (wgmma_output.cuh:
// 4 columns are 16 bytes of FP32, 8 of FP16 or BF16). Every lane of the warp must call it (the shuffles take the
// whole warp); `inside` skips the bounds checks of an edge tile. N is a multiple of 8 (the family requires it), so 4
// columns at a column below N are whole and aligned to their size.
// HINTED: each store carries `policy` (an L2 eviction priority). BETA: beta times C_in's 4 elements (D's type; may be
// C itself: each is read by the lane that then writes it) are added before the rounding; with beta 0 C is not read.
// OP (epilogue_ops.cuh): then the bias of the 4 columns (N values of OUT) and the activation.
template <int BN, bool HINTED, int OUT = kElementFp32, bool BETA = false, int OP = epilogue_ops::kOpNone>
__device__ __forceinline__ void store(const float (&acc)[BN / 2],
                                      typename wgmma_output::Out<OUT>::Storage* __restrict__ C, int M, int N, int row0,
                                      int col0, bool inside, int lane, unsigned long long policy,
                                      const typename wgmma_output::Out<OUT>::Storage* C_in = nullptr,
                                      float beta = 0.f,
                                      const typename wgmma_output::Out<OUT>::Storage* bias = nullptr) {
  using O = wgmma_output::Out<OUT>;
  static_assert(BN % 32 == 0, "the rows epilogue stores 32-column groups");
  const int q = lane % 4, rho = lane / 8, k = lane % 8, m = k >> 1;
  const bool odd = (q & 1) != 0;
  const int served = 2 * (lane & 1) + (lane >> 4);  // the store instruction whose data this lane holds
#pragma unroll
  for (int g = 0; g < BN / 32; ++g) {
    float4 p[4];
#pragma unroll
    for (int ii = 0; ii < 4; ++ii) {
      const int i = 4 * g + ii;
      const float a0 = acc[4 * i], a1 = acc[4 * i + 1], b0 = acc[4 * i + 2], b1 = acc[4 * i + 3];
      const float t0 = __shfl_xor_sync(0xffffffffu, odd ? a0 : b0, 1);
      const float t1 = __shfl_xor_sync(0xffffffffu, odd ? a1 : b1, 1);
      p[ii] = odd ? make_float4(t0, t1, b0, b1) : make_float4(a0, a1, t0, t1);
    }
    // given[t] = p[(served - t) & 3]: the reversed order {p0, p3, p2, p1} rotated by `served`.
    const float4 reversed[4] = {p[0], p[3], p[2], p[1]};
    float4 given[4];
    rotate(reversed, served, given);
    float4 taken[4];
#pragma unroll
    for (int t = 0; t < 4; ++t) {
      const int u = (m + t) & 3;
      taken[t] = shfl(given[t], 16 * (u & 1) + 4 * rho + 2 * (k & 1) + (u >> 1));
    }
    float4 out[4];  // out[u] = taken[(u - m) & 3]
#if defined(MPGEMM_WGMMA_FAULT) && MPGEMM_WGMMA_FAULT == 3
    rotate(taken, (m + 1) & 3, out);  // Test-only fault: each lane stores its rows' pieces one instruction off.
#else
    rotate(taken, m, out);
#endif
    // The bias of this lane's 4 columns: the same for its 4 rows.
    [[maybe_unused]] float4 b = make_float4(0.f, 0.f, 0.f, 0.f);
    if constexpr (OP != epilogue_ops::kOpNone) {
      const int col = col0 + 32 * g + 4 * k;
      if (inside || col < N) b = O::load4(bias + col);
    }
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const int row = row0 + 4 * u + rho, col = col0 + 32 * g + 4 * k;
      if (inside || (row < M && col < N)) {
        const size_t at = static_cast<size_t>(row) * N + col;
        float4 v = out[u];
        if (BETA && beta != 0.f) {
          const float4 c = O::load4(C_in + at);
          v = make_float4(wgmma_output::add_beta(v.x, beta, c.x), wgmma_output::add_beta(v.y, beta, c.y),
                          wgmma_output::add_beta(v.z, beta, c.z), wgmma_output::add_beta(v.w, beta, c.w));
        }
        if constexpr (OP != epilogue_ops::kOpNone) {
          v = make_float4(epilogue_ops::apply<OP>(v.x, b.x), epilogue_ops::apply<OP>(v.y, b.y),
                          epilogue_ops::apply<OP>(v.z, b.z), epilogue_ops::apply<OP>(v.w, b.w));
        }
        O::template store4<HINTED>(C + at, v, policy);
      }
    }
  }
}

}  // namespace wgmma_rows
}  // namespace mpgemm
