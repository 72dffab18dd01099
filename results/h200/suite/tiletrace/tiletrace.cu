// Where 4096x4096x256's time goes, tile by tile: the suite winner (128 x 128 pingpong, tma epilogue with 4 staging
// buffers, 5 stages), the same kernel cooperative, and pingpong with 6 buffers and 4 stages or 8 and 3, built with tiletrace.patch (each block's producer and each
// consumer stamp clock64 at every work unit's phases), timed in graph replays (mpgemm's --graphs protocol) plain and
// stamped, then one stamped replay read back: its last launch's stamps per block.
//
// What it prints per build: per-launch time (plain kernels, stamped kernels, cuBLAS), then medians over blocks of
// each consumer tile's phases (us at the replay's clock): waiting for its turn and first stage, main loop, epilogue
// issue; the producer's issue span per unit; how much of each pingpong main loop overlaps the other consumer's
// epilogue; and each block's span against the sum of its phases.
//
// Build (build.sh): mpgemm-export <v23 suite db> --format cpp -o winners.hpp, kernels/ with tiletrace.patch, then
//   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I<patched kernels> -I. tiletrace.cu -lcublas
// Run: ./tiletrace ROUNDS ITERS SETTLE_S CSV|-   (CSV: every stamp of the read-back launch)
#include <cublas_v2.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "graph_timing.cuh"
#include "winners.hpp"

#ifdef MPGEMM_TILETRACE
#define BUILD_NAME "stamped"
#else
#define BUILD_NAME "plain"
#endif

namespace {

using mpgemm_export::Winner;

void settle(cudaStream_t s, double seconds, const std::function<void()>& enqueue) {
  const auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < seconds) {
    for (int i = 0; i < 200; ++i) enqueue();
    CHECK(cudaStreamSynchronize(s));
  }
}

// The stamps of the last launch, summarised. Consumer unit stamps: 0 loop start (before its pingpong turn), 1 first
// stage full, 2 main loop done, 3 epilogue issued; producer: 0 first copy issued, 1 last copy issued.
void print_trace(bool pingpong, FILE* csv, const char* label) {
#ifndef MPGEMM_TILETRACE
  (void)pingpong, (void)csv, (void)label;
}
#else
  using namespace mpgemm;
  constexpr int B = MPGEMM_TT_BLOCKS, U = MPGEMM_TT_UNITS;
  std::vector<unsigned long long> tt(size_t(B) * 3 * U * 4), blk(size_t(B) * 6);
  CHECK(cudaMemcpyFromSymbol(tt.data(), mpgemm_tt, tt.size() * 8));
  CHECK(cudaMemcpyFromSymbol(blk.data(), mpgemm_tt_block, blk.size() * 8));
  const auto at = [&](int b, int role, int u, int f) { return tt[((size_t(b) * 3 + role) * U + u) * 4 + f]; };
  int blocks = 0;
  while (blocks < B && blk[size_t(blocks) * 6 + 2] != 0) ++blocks;
  double cyc = 0, ns = 0;
  for (int b = 0; b < blocks; ++b) {
    cyc += double(blk[b * 6 + 3] - blk[b * 6 + 1]);
    ns += double(blk[b * 6 + 2] - blk[b * 6 + 0]);
  }
  const double ghz = cyc / ns;
  const auto us = [&](unsigned long long a, unsigned long long b) { return 1e-3 * (double(b) - double(a)) / ghz; };
  std::vector<double> wait, loop, epi, issue, overlap_frac, span, first_full, tail;
  for (int b = 0; b < blocks; ++b) {
    const int units = int(blk[b * 6 + 5]);
    const unsigned long long entry = blk[b * 6 + 1], end = blk[b * 6 + 3];
    span.push_back(us(entry, end));
    for (int u = 0; u < units && u < U; ++u) {
      const int c = pingpong ? (u & 1) : 0;
      const int role = 1 + c;
      if (csv)
        std::fprintf(csv, "%s,%d,%llu,%d,%d,%llu,%llu,%llu,%llu,%llu,%llu\n", label, b, blk[b * 6 + 4], u, c,
                     at(b, role, u, 0) - entry, at(b, role, u, 1) - entry, at(b, role, u, 2) - entry,
                     at(b, role, u, 3) - entry, at(b, 0, u, 0) - entry, at(b, 0, u, 1) - entry);
      wait.push_back(us(at(b, role, u, 0), at(b, role, u, 1)));
      loop.push_back(us(at(b, role, u, 1), at(b, role, u, 2)));
      epi.push_back(us(at(b, role, u, 2), at(b, role, u, 3)));
      issue.push_back(us(at(b, 0, u, 0), at(b, 0, u, 1)));
      if (u == 0) first_full.push_back(us(entry, at(b, role, u, 1)));
      if (u == units - 1) tail.push_back(us(at(b, role, u, 3), end));
      if (pingpong) {
        // The part of this main loop during which the other consumer was issuing its previous tile's epilogue.
        const unsigned long long l0 = at(b, role, u, 1), l1 = at(b, role, u, 2);
        unsigned long long inside = 0;
        for (int v = 0; v < units && v < U; ++v) {
          if ((v & 1) == c) continue;
          const unsigned long long e0 = at(b, 2 - c, v, 2), e1 = at(b, 2 - c, v, 3);
          const unsigned long long lo = std::max(l0, e0), hi = std::min(l1, e1);
          if (hi > lo) inside += hi - lo;
        }
        if (l1 > l0) overlap_frac.push_back(double(inside) / double(l1 - l0));
      }
    }
  }
  std::printf("    %s: %d blocks at %.0f MHz (their clock64 over globaltimer); medians, us: block span %.3f, entry -> "
              "first stage full %.3f; per tile: turn and first stage %.3f, main loop %.3f, epilogue issue %.3f, "
              "producer's issue span %.3f; last epilogue -> block end %.3f",
              label, blocks, 1e3 * ghz, median_of(span), median_of(first_full), median_of(wait), median_of(loop), median_of(epi),
              median_of(issue), median_of(tail));
  if (pingpong) std::printf("; main loop under the other's epilogue %.0f%%", 100 * median_of(overlap_frac));
  std::printf("\n");
#ifdef MPGEMM_TT_PIECES
  // piece_stamps.patch: each tma epilogue piece's steps, consumer thread 0's view, medians over all pieces.
  constexpr int P = MPGEMM_TT_PIECES;
  std::vector<unsigned long long> pc(size_t(B) * 2 * U * P * 6);
  CHECK(cudaMemcpyFromSymbol(pc.data(), mpgemm_tt_piece, pc.size() * 8));
  const auto pat = [&](int b, int c, int u, int q, int f) { return pc[((((size_t(b) * 2 + c) * U + u) * P + q) * 6) + f]; };
  std::vector<double> step[5], whole, between;
  for (int b = 0; b < blocks; ++b) {
    const int units = int(blk[b * 6 + 5]);
    for (int c = 0; c < 2; ++c)
      for (int u = 0; u < units && u < U; ++u) {
        if (pingpong && (u & 1) != c) continue;
        for (int q = 0; q < P; ++q) {
          if (pat(b, c, u, q, 0) == 0 || pat(b, c, u, q, 5) <= pat(b, c, u, q, 0)) continue;
          for (int f = 0; f < 5; ++f) step[f].push_back(us(pat(b, c, u, q, f), pat(b, c, u, q, f + 1)));
          whole.push_back(us(pat(b, c, u, q, 0), pat(b, c, u, q, 5)));
          if (q + 1 < P && pat(b, c, u, q + 1, 0) > pat(b, c, u, q, 5))
            between.push_back(us(pat(b, c, u, q, 5), pat(b, c, u, q + 1, 0)));
        }
      }
  }
  std::printf("    %s, tma pieces (%zu): medians, us: wait for a free buffer %.3f, first barrier %.3f, staging writes "
              "and fence %.3f, second barrier %.3f, store issue %.3f; whole piece %.3f, to the next piece %.3f\n",
              label, whole.size(), median_of(step[0]), median_of(step[1]), median_of(step[2]), median_of(step[3]),
              median_of(step[4]), median_of(whole), median_of(between));
#endif
}
#endif

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s ROUNDS ITERS SETTLE_S CSV|-\n", argv[0]);
    return 2;
  }
  const int rounds = std::atoi(argv[1]), iters = std::atoi(argv[2]);
  const double settle_s = std::atof(argv[3]);
  FILE* csv = std::string(argv[4]) == "-" ? nullptr : std::fopen(argv[4], "w");
  if (csv) std::fprintf(csv, "build,block,sm,unit,consumer,start,full,loop_done,epi_done,p_first,p_last\n");
  const Winner* found = mpgemm_export::find(4096, 4096, 256);
  if (found == nullptr) {
    std::fprintf(stderr, "winners.hpp has no 4096x4096x256 winner\n");
    return 1;
  }
  // The winner (128 x 128 pingpong, 5 stages, 4 staging buffers per consumer), the same kernel cooperative, and two
  // pingpong variants that keep more of each consumer's stores in flight at the cost of stages (shared memory from
  // the family's layout, ptxas: 168 registers, no spill).
  struct Variant {
    const char* label;
    Winner w;
    bool pingpong;
  };
  std::vector<Variant> variants;
  variants.push_back({"pingpong s5 tma4 (the winner)", *found, true});
  const auto variant = [&](const char* label, const void* kernel, unsigned smem, bool pingpong) {
    Winner v = *found;
    v.kernel = kernel;
    v.dynamic_smem_bytes = smem;
    v.config = label;
    variants.push_back({label, v, pingpong});
  };
  using mpgemm::wgmma_gemm;
  using mpgemm::wgmma_layout::Layout;
  variant("coop s5 tma4", reinterpret_cast<const void*>(&wgmma_gemm<128, 128, 5, 2, 1, 1, 0, 8, 1, 0, 4, 1, 0, 0, 1, 0>),
          Layout{128, 128, 5, 2, false, true, 4}.dynamic_smem_bytes(), false);
  variant("pingpong s4 tma6",
          reinterpret_cast<const void*>(&wgmma_gemm<128, 128, 4, 2, 1, 1, 0, 8, 1, 1, 6, 1, 0, 0, 1, 0>),
          Layout{128, 128, 4, 2, true, true, 6}.dynamic_smem_bytes(), true);
  variant("pingpong s3 tma8",
          reinterpret_cast<const void*>(&wgmma_gemm<128, 128, 3, 2, 1, 1, 0, 8, 1, 1, 8, 1, 0, 0, 1, 0>),
          Layout{128, 128, 3, 2, true, true, 8}.dynamic_smem_bytes(), true);
  const Winner& pp = *found;
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 1;
  cublasSetStream(h, s);
  const size_t m = pp.M, n = pp.N, k = pp.K;
  __half *A, *Bm;
  float *C, *R, *diff;
  CHECK(cudaMalloc(&A, m * k * 2));
  CHECK(cudaMalloc(&Bm, k * n * 2));
  CHECK(cudaMalloc(&C, m * n * 4));
  CHECK(cudaMalloc(&R, m * n * 4));
  CHECK(cudaMalloc(&diff, 4));
  fill_halves<<<1024, 256, 0, s>>>(A, m * k, 1);
  fill_halves<<<1024, 256, 0, s>>>(Bm, k * n, 2);
  const float one = 1, zero = 0;
  const auto cublas = [&] {
    cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(m), int(k), &one, Bm, CUDA_R_16F, int(n), A, CUDA_R_16F,
                 int(k), &zero, R, CUDA_R_32F, int(n), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  };
  std::printf("4096x4096x256: %s and variants (grid %u), %d rounds of graphs of %d launches, %.1f s settling\n", pp.config,
              pp.grid[0], rounds, iters, settle_s);
  for (const Variant& var : variants) {
    const Winner* w = &var.w;
    const bool pingpong = var.pingpong;
    const auto ours = [&] { CHECK(mpgemm_export::launch(*w, A, Bm, C, nullptr, s)); };
    cublas();
    ours();
    CHECK(cudaMemsetAsync(diff, 0, 4, s));
    max_abs_diff<<<1024, 256, 0, s>>>(C, R, m * n, diff);
    float d = 0;
    CHECK(cudaMemcpyAsync(&d, diff, 4, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    settle(s, settle_s, ours);
    double t_ours = 1e30, t_cublas = 1e30;
    for (int rep = 0; rep < 3; ++rep) {
      t_ours = std::min(t_ours, time_graph(s, rounds, iters, ours));
      t_cublas = std::min(t_cublas, time_graph(s, rounds, iters, cublas));
    }
    std::printf("  %s: max |ours - cuBLAS| %.3g; per launch (" BUILD_NAME " build): ours %.3f us, cuBLAS %.3f us (%.3fx)\n",
                var.label, d, t_ours, t_cublas, t_cublas / t_ours);
    // One more graph of `iters` launches; the stamps are its last launch's.
    time_graph(s, 1, iters, ours);
    print_trace(pingpong, csv, var.label);
  }
  if (csv) std::fclose(csv);
  return 0;
}
