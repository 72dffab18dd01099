#pragma once
// Shared-memory layout of one wgmma_gemm config, in bytes from a 1024-byte aligned base. One definition, read by the
// kernel (NVRTC) and by the host (the family sizes dynamic shared memory and the TMA boxes from it).
//
//   [A stages]  STAGES x D k-blocks x BM rows x 128 bytes (64 halves of K), 128B-swizzled by TMA; A stored K x M
//               (km, M-major: BM a multiple of 64) as B's kn chunks: BM / 64 chunks x 64 D rows of K x 128 bytes
//               (64 halves of M), the same bytes
//   [B stages]  B stored K x N (kn): STAGES x ceil(BN/64) chunks x 64 D rows of K x 128 bytes (64 halves of N);
//               B stored N x K (nk, K-major like A): STAGES x D k-blocks x BN rows x 128 bytes (64 halves of K);
//               128B-swizzled
// where D = BK / 64 k-blocks of 64 halves of K make one stage (kb_per_stage: 1, 2 or 4). (A "half" is any 16-bit
// element: FP16 or BF16 lay out alike.)
//   [C staging] tma epilogue only: CONSUMERS x C_BUFFERS buffers x 64 rows x 128 bytes (32 floats), 128B-swizzled
//   [barriers]  STAGES "full", STAGES "empty" and 2 "order" mbarriers (pingpong's turns), 8 bytes each
//
// Every tile starts on a 1024-byte boundary: the 128-byte swizzle pattern repeats every 8 rows of 128 bytes, and the
// wgmma descriptors and TMA assume the pattern starts at the tile's first row.
#include "host_device.cuh"

namespace mpgemm {
namespace wgmma_layout {

constexpr int kBK = 64;            // K per stage (halves): one 128-byte swizzle row
constexpr int kRowBytes = 128;     // bytes per shared row of every tile
constexpr int kBChunk = 64;        // N columns per B chunk: one TMA box 128 bytes wide
constexpr int kCSubRows = 64;      // rows of an epilogue sub-tile: one m64 block
constexpr int kCSubCols = 32;      // FP32 columns of an epilogue sub-tile: 128 bytes
constexpr int kAlign = 1024;       // bytes
constexpr int kWarpgroup = 128;    // threads
constexpr int kWgmmaM = 64;        // rows of one wgmma

struct Layout {
  int bm;                  // block tile rows
  int bn;                  // block tile columns
  int stages;              // operand ring depth
  int consumers;           // consumer warpgroups
  bool pingpong;           // each consumer owns whole tiles (else the consumers split each tile's rows)
  bool tma_epilogue;       // C goes through shared memory and TMA stores
  int c_buffers;           // staging buffers per consumer (tma epilogue)
  bool swap_ab = false;    // the wgmmas compute C's transpose: B's tile is their 64-row operand, A's their N
  int kb_per_stage = 1;    // D = BK / 64: A's D blocks of BM rows one after another, B's chunks 64 D rows deep
  bool b_k_major = false;  // B stored N x K (nk): its stage is D blocks of BN rows, like A's, instead of N chunks

  MPGEMM_HD constexpr int b_chunks() const { return (bn + kBChunk - 1) / kBChunk; }
  MPGEMM_HD constexpr int a_stage_bytes() const { return bm * kRowBytes * kb_per_stage; }
  MPGEMM_HD constexpr int b_chunk_bytes() const { return kBK * kb_per_stage * kRowBytes; }
  MPGEMM_HD constexpr int a_chunk_bytes() const { return b_chunk_bytes(); }  // km: 64 of M by BK rows of K
  MPGEMM_HD constexpr int b_block_bytes() const { return bn * kRowBytes; }  // nk: one k-block of B's BN rows
  MPGEMM_HD constexpr int b_stage_bytes() const {
    return b_k_major ? kb_per_stage * b_block_bytes() : b_chunks() * b_chunk_bytes();
  }
  MPGEMM_HD constexpr int stage_bytes() const { return a_stage_bytes() + b_stage_bytes(); }  // TMA bytes per stage
  MPGEMM_HD constexpr int a_offset(int stage) const { return stage * a_stage_bytes(); }
  MPGEMM_HD constexpr int b_offset(int stage) const { return stages * a_stage_bytes() + stage * b_stage_bytes(); }
  MPGEMM_HD constexpr int c_buffer_bytes() const { return kCSubRows * kCSubCols * 4; }
  MPGEMM_HD constexpr int c_offset(int consumer, int buffer) const {
    return stages * stage_bytes() + (consumer * c_buffers + buffer) * c_buffer_bytes();
  }
  MPGEMM_HD constexpr int barrier_offset() const {
    return stages * stage_bytes() + (tma_epilogue ? consumers * c_buffers * c_buffer_bytes() : 0);
  }
  MPGEMM_HD constexpr int full_barrier_offset(int stage) const { return barrier_offset() + 8 * stage; }
  MPGEMM_HD constexpr int empty_barrier_offset(int stage) const { return barrier_offset() + 8 * (stages + stage); }
  MPGEMM_HD constexpr int order_barrier_offset(int consumer) const {
    return barrier_offset() + 8 * (2 * stages + consumer);
  }
  MPGEMM_HD constexpr int bytes() const { return barrier_offset() + 8 * (2 * stages + 2); }
  // What the launch asks for: the layout plus the slack the kernel may skip to reach a 1024-byte boundary.
  MPGEMM_HD constexpr int dynamic_smem_bytes() const { return bytes() + kAlign; }
  // The tile's side the wgmmas cut into 64-row blocks (BM, or BN when swapped) and their N (BN, or BM when swapped).
  MPGEMM_HD constexpr int wgmma_rows() const { return swap_ab ? bn : bm; }
  MPGEMM_HD constexpr int wgmma_n() const { return swap_ab ? bm : bn; }
  MPGEMM_HD constexpr int rows_per_consumer() const { return pingpong ? wgmma_rows() : wgmma_rows() / consumers; }
  MPGEMM_HD constexpr int m_blocks() const { return rows_per_consumer() / kWgmmaM; }  // wgmma rows per consumer
  MPGEMM_HD constexpr int accumulators() const { return m_blocks() * wgmma_n() / 2; }  // FP32 registers per thread
  MPGEMM_HD constexpr int threads() const { return (consumers + 1) * kWarpgroup; }
  // Consumer warps that read each stage and so must release it: all of them, or one warpgroup in pingpong.
  MPGEMM_HD constexpr int releasing_warps() const { return (pingpong ? 1 : consumers) * (kWarpgroup / 32); }
};

}  // namespace wgmma_layout
}  // namespace mpgemm
