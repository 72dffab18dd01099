// Where a suite winner's time goes, block by block: each block of the last graph replay stamps %globaltimer (ns)
// and clock64 at its phases (timeline.patch on a copy of kernels/wgmma_gemm.cuh), and this host prints, per shape,
// the per-launch time of graph replays (mpgemm's --graphs protocol) with and without the stamps' build, cuBLAS's in
// the same process, and the phases' medians over blocks and launches.
//
// Build (run.sh): mpgemm-export <suite db> --format cpp -o winners.hpp, a copy of kernels/ with timeline.patch, then
//   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I<patched kernels> -I. [-DMPGEMM_TIMELINE]
//        timeline.cu -lcublas -o timeline
// Run: ./timeline ROUNDS ITERS [CSV]  (CSV: every block's record of the stamped replay)
#include <cublas_v2.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "graph_timing.cuh"
#include "winners.hpp"

namespace {

[[maybe_unused]] double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

__global__ void fill(__half* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    p[i] = __float2half(static_cast<float>(h % 2001) / 1000.f - 1.f);
  }
}

__global__ void max_diff(const float* a, const float* b, size_t n, float* out) {
  float m = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    m = fmaxf(m, fabsf(a[i] - b[i]));
  atomicMax(reinterpret_cast<int*>(out), __float_as_int(m));  // non-negative floats order as ints
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 15;
  const int iters = argc > 2 ? std::atoi(argv[2]) : 20;
  FILE* csv = argc > 3 ? std::fopen(argv[3], "w") : nullptr;
#ifdef MPGEMM_TIMELINE
  const bool stamped = true;
  if (iters > MPGEMM_TL_RING) {
    std::fprintf(stderr, "ITERS %d is more than the ring's %d records\n", iters, MPGEMM_TL_RING);
    return 2;
  }
#else
  const bool stamped = false;
#endif
  if (csv)
    std::fprintf(csv, "shape,launch,block,sm,entry,setup,dep_wait,last_issue,first_full,loop_done,end,"
                      "clk_entry,clk_first_full,clk_loop_done,clk_end,units\n");
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 1;
  cublasSetStream(h, s);
  std::printf("build: %s; %d rounds of graphs of %d launches\n", stamped ? "stamped (timeline.patch)" : "plain",
              rounds, iters);
  for (const mpgemm_export::Winner& w : mpgemm_export::kWinners) {
    const size_t m = w.M, n = w.N, k = w.K;
    __half *A, *B;
    float *C, *R, *diff;
    void* ws = nullptr;
    CHECK(cudaMalloc(&A, m * k * 2));
    CHECK(cudaMalloc(&B, k * n * 2));
    CHECK(cudaMalloc(&C, m * n * 4));
    CHECK(cudaMalloc(&R, m * n * 4));
    CHECK(cudaMalloc(&diff, 4));
    if (w.workspace_bytes) {
      CHECK(cudaMalloc(&ws, w.workspace_bytes));
      CHECK(cudaMemset(ws, 0, w.workspace_bytes));
    }
    fill<<<1024, 256, 0, s>>>(A, m * k, 1);
    fill<<<1024, 256, 0, s>>>(B, k * n, 2);
    const float one = 1, zero = 0;
    const auto cublas = [&] {
      cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(m), int(k), &one, B, CUDA_R_16F, int(n), A, CUDA_R_16F,
                   int(k), &zero, R, CUDA_R_32F, int(n), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    };
    const auto ours = [&] { CHECK(mpgemm_export::launch(w, A, B, C, ws, s)); };
    cublas();
    ours();
    CHECK(cudaMemsetAsync(diff, 0, 4, s));
    max_diff<<<1024, 256, 0, s>>>(C, R, m * n, diff);
    float d = 0;
    CHECK(cudaMemcpyAsync(&d, diff, 4, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    // Alternate the two, three times each, and keep each one's best median.
    double t_ours = 1e30, t_cublas = 1e30;
    for (int rep = 0; rep < 3; ++rep) {
      t_ours = std::min(t_ours, time_graph(s, rounds, iters, ours));
      t_cublas = std::min(t_cublas, time_graph(s, rounds, iters, cublas));
    }
    std::printf("\n%lldx%lldx%lld  %s\n  max |ours - cuBLAS| %.3g; per launch: ours %.3f us, cuBLAS %.3f us (%.3fx)\n",
                w.M, w.N, w.K, w.config, d, t_ours, t_cublas, t_cublas / t_ours);
#ifdef MPGEMM_TIMELINE
    {
      // One more graph of `iters` launches after warm replays, its records read back.
      cudaGraph_t g;
      cudaGraphExec_t x;
      CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
      for (int i = 0; i < iters; ++i) ours();
      CHECK(cudaStreamEndCapture(s, &g));
      CHECK(cudaGraphInstantiate(&x, g, 0));
      CHECK(cudaGraphUpload(x, s));
      for (int i = 0; i < 3; ++i) CHECK(cudaGraphLaunch(x, s));
      CHECK(cudaStreamSynchronize(s));
      static unsigned zeros[MPGEMM_TL_BLOCKS];
      CHECK(cudaMemcpyToSymbol(mpgemm::mpgemm_tl_iter, zeros, sizeof zeros));
      CHECK(cudaGraphLaunch(x, s));
      CHECK(cudaStreamSynchronize(s));
      using Rec = unsigned long long[mpgemm::kTlFields];
      std::vector<unsigned long long> raw(size_t(MPGEMM_TL_BLOCKS) * MPGEMM_TL_RING * mpgemm::kTlFields);
      std::vector<unsigned> count(MPGEMM_TL_BLOCKS);
      CHECK(cudaMemcpyFromSymbol(raw.data(), mpgemm::mpgemm_tl, raw.size() * 8));
      CHECK(cudaMemcpyFromSymbol(count.data(), mpgemm::mpgemm_tl_iter, count.size() * 4));
      CHECK(cudaGraphExecDestroy(x));
      CHECK(cudaGraphDestroy(g));
      const Rec* rec = reinterpret_cast<const Rec*>(raw.data());
      int blocks = 0;
      while (blocks < MPGEMM_TL_BLOCKS && count[blocks] == unsigned(iters)) ++blocks;
      const auto at = [&](int b, int l) -> const Rec& { return rec[size_t(b) * MPGEMM_TL_RING + l]; };
      std::vector<double> span, gap, entry_spread, end_spread, setup, dep, first, loop, epi, tail, clk_mhz, units;
      for (int l = 0; l < iters; ++l) {
        unsigned long long start = ~0ull, end = 0, last_entry = 0, first_end = ~0ull;
        for (int b = 0; b < blocks; ++b) {
          const Rec& r = at(b, l);
          start = std::min(start, r[mpgemm::kTlEntry]);
          last_entry = std::max(last_entry, r[mpgemm::kTlEntry]);
          end = std::max(end, r[mpgemm::kTlEnd]);
          first_end = std::min(first_end, r[mpgemm::kTlEnd]);
          if (csv)
            std::fprintf(csv, "%lldx%lldx%lld,%d,%d,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n",
                         w.M, w.N, w.K, l, b, r[mpgemm::kTlSm], r[mpgemm::kTlEntry], r[mpgemm::kTlSetup],
                         r[mpgemm::kTlDepWait], r[mpgemm::kTlLastIssue], r[mpgemm::kTlFirstFull],
                         r[mpgemm::kTlLoopDone], r[mpgemm::kTlEnd], r[mpgemm::kTlClkEntry],
                         r[mpgemm::kTlClkFirstFull], r[mpgemm::kTlClkLoopDone], r[mpgemm::kTlClkEnd],
                         r[mpgemm::kTlUnits]);
          if (l < 2 || l == iters - 1) continue;  // the first launches and the last (no next) out of the medians
          setup.push_back(1e-3 * double(r[mpgemm::kTlSetup] - r[mpgemm::kTlEntry]));
          dep.push_back(1e-3 * double(r[mpgemm::kTlDepWait] - r[mpgemm::kTlSetup]));
          first.push_back(1e-3 * double(r[mpgemm::kTlFirstFull] - r[mpgemm::kTlDepWait]));
          loop.push_back(1e-3 * double(r[mpgemm::kTlLoopDone] - r[mpgemm::kTlFirstFull]));
          epi.push_back(1e-3 * double(r[mpgemm::kTlEnd] - r[mpgemm::kTlLoopDone]));
          units.push_back(double(r[mpgemm::kTlUnits]));
          const double dt = double(r[mpgemm::kTlEnd] - r[mpgemm::kTlEntry]);
          if (dt > 0) clk_mhz.push_back(1e3 * double(r[mpgemm::kTlClkEnd] - r[mpgemm::kTlClkEntry]) / dt);
        }
        if (l < 2 || l == iters - 1) continue;
        unsigned long long next_start = ~0ull;
        for (int b = 0; b < blocks; ++b) next_start = std::min(next_start, at(b, l + 1)[mpgemm::kTlEntry]);
        span.push_back(1e-3 * double(end - start));
        gap.push_back(1e-3 * (double(next_start) - double(end)));
        entry_spread.push_back(1e-3 * double(last_entry - start));
        end_spread.push_back(1e-3 * double(end - first_end));
        for (int b = 0; b < blocks; ++b) tail.push_back(1e-3 * double(end - at(b, l)[mpgemm::kTlEnd]));
      }
      std::printf("  stamped replay: %d blocks with %d records each; launches 2..%d, medians (us):\n", blocks, iters,
                  iters - 2);
      std::printf("    launch: first entry -> last end %.3f; last end -> next launch's first entry %.3f "
                  "(negative: overlap); entries spread %.3f, ends spread %.3f\n",
                  median(span), median(gap), median(entry_spread), median(end_spread));
      std::printf("    block: entry -> set-up done %.3f; -> dependency wait done %.3f; -> first stage full %.3f; "
                  "-> main loop done %.3f; -> end (epilogue) %.3f; units %.0f; clock %.0f MHz\n",
                  median(setup), median(dep), median(first), median(loop), median(epi), median(units),
                  median(clk_mhz));
    }
#endif
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    cudaFree(R);
    cudaFree(diff);
    if (ws) cudaFree(ws);
  }
  if (csv) std::fclose(csv);
  return 0;
}
