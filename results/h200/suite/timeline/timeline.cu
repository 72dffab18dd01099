// Where a suite winner's time goes, block by block: each block stamps %globaltimer (ns) and clock64 at its phases
// (timeline.patch on a copy of kernels/wgmma_gemm.cuh), and this host prints, per shape, the per-launch time of graph
// replays (mpgemm's --graphs protocol) after the card has been kept busy (settled) with the winner, cuBLAS's in the
// same process, and, in the stamped build, the phases' medians over blocks and launches. For the shapes named on the
// command line it also sweeps K with the same winner (grid and tiles do not depend on K), which separates a launch's
// fixed chain from its per-k-block stream.
//
// Build (build.sh): mpgemm-export <suite db> --format cpp -o winners.hpp, a copy of kernels/ with timeline.patch, then
//   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I<patched kernels> -I. -DMPGEMM_TIMELINE
//        timeline.cu -lcublas -o timeline_stamped        (and with kernels/ and no -D: timeline_plain)
// ../cp_async/: -DMPGEMM_CP_ASYNC_LOADS with a kernels/ that has cp_async_loads.patch (A and B through cp.async).
// Experiment builds: -I<kernels with ../tma_ops/deep_stage.patch> -DMPGEMM_KB_PER_STAGE=2 and a winners.hpp whose
// small tiles have half the stages (build.sh: timeline_deep).
// Run: [MPGEMM_TL_ONLY=MxNxK,...] ./timeline ROUNDS ITERS SETTLE_S CSV [MxN:K1,K2,... ...]
//      CSV: every block's record of each stamped replay ("-": none)
#include <cublas_v2.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "graph_timing.cuh"
#include "winners.hpp"

namespace {

using mpgemm_export::Winner;

// The winner for another K: its tiles and grid do not depend on K, only the maps' K extent does.
Winner with_k(const Winner& w, long long k) {
  Winner v = w;
  v.K = k;
  v.maps[0].dims[0] = static_cast<unsigned long long>(k);  // A {K, M}, rows of K halves
  v.maps[0].row_stride_bytes = static_cast<unsigned long long>(k) * 2;
  v.maps[1].dims[1] = static_cast<unsigned long long>(k);  // B {N, K}
  return v;
}

#ifdef MPGEMM_KB_PER_STAGE
// The deep-stage experiment (../tma_ops/deep_stage.patch): A through a 3-D view {64, M, K / 64} whose box takes
// MPGEMM_KB_PER_STAGE k-blocks in one copy, B boxes MPGEMM_KB_PER_STAGE times as deep; otherwise launch()'s launch.
cudaError_t launch_deep(const Winner& w, const __half* A, const __half* B, float* C, void* workspace,
                        cudaStream_t stream) {
  constexpr unsigned d = MPGEMM_KB_PER_STAGE;
  if (w.K % 64 != 0 || w.cluster[0] != 1) return cudaErrorInvalidValue;
  if (w.dynamic_smem_bytes > 48u * 1024u)
    if (cudaError_t e = cudaFuncSetAttribute(w.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(w.dynamic_smem_bytes)))
      return e;
  const auto fn = mpgemm_export::detail::tensor_map_encoder();
  if (fn == nullptr) return cudaErrorNotSupported;
  CUtensorMap maps[3];
  {
    const mpgemm_export::TensorMapSpec& a = w.maps[0];
    const cuuint64_t dims[3] = {64, a.dims[1], a.dims[0] / 64}, strides[2] = {a.row_stride_bytes, 128};
    const cuuint32_t box[3] = {64, a.box[1], d}, es[3] = {1, 1, 1};
    if (fn(&maps[0], a.dtype, 3, const_cast<__half*>(A), dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
           a.swizzle, a.l2_promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS)
      return cudaErrorInvalidValue;
  }
  mpgemm_export::TensorMapSpec b = w.maps[1];
  b.box[1] *= d;
  if (cudaError_t e = mpgemm_export::detail::encode(b, B, &maps[1])) return e;
  if (cudaError_t e = mpgemm_export::detail::encode(w.maps[2], C, &maps[2])) return e;
  cudaLaunchAttribute attributes[1] = {};
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(w.grid[0], w.grid[1], w.grid[2]);
  config.blockDim = dim3(w.block[0], w.block[1], w.block[2]);
  config.dynamicSmemBytes = w.dynamic_smem_bytes;
  config.stream = stream;
  config.attrs = attributes;
  if (w.persistent)
    if (cudaError_t e = mpgemm_export::detail::co_resident_grid(w, config, &config.gridDim.x)) return e;
  if (w.dependent_launch) {
    cudaLaunchAttribute& dependent = attributes[config.numAttrs++];
    dependent.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    dependent.val.programmaticStreamSerializationAllowed = 1;
  }
  int M = static_cast<int>(w.M), N = static_cast<int>(w.N), K = static_cast<int>(w.K);
  int* flags = static_cast<int*>(workspace);
  void* args[] = {&maps[0], &maps[1], &maps[2], &C, &flags, &M, &N, &K};
  return cudaLaunchKernelExC(&config, w.kernel, args);
}
#endif

struct Graph {
  cudaGraphExec_t exec = nullptr;
  Graph(cudaStream_t s, int iters, const std::function<void()>& enqueue) {
    cudaGraph_t g;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < iters; ++i) enqueue();
    CHECK(cudaStreamEndCapture(s, &g));
    CHECK(cudaGraphInstantiate(&exec, g, 0));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaGraphUpload(exec, s));
  }
  ~Graph() { cudaGraphExecDestroy(exec); }
  // Replays for `seconds`, synchronising every 100 replays, so the clock settles under this load.
  void settle(cudaStream_t s, double seconds) const {
    const auto t0 = std::chrono::steady_clock::now();
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < seconds) {
      for (int i = 0; i < 100; ++i) CHECK(cudaGraphLaunch(exec, s));
      CHECK(cudaStreamSynchronize(s));
    }
  }
};

struct Problem {
  __half *A = nullptr, *B = nullptr;
  float *C = nullptr, *R = nullptr, *diff = nullptr;
  void* ws = nullptr;
};

// Medians of the stamped replay's records. Within a block the phases come from clock64 (the SM's cycles), turned
// into us at the replay's mean clock (all blocks' cycles over their globaltimer spans): the globaltimer ticks every
// 32 ns on some H200s and every 256 ns on others, too coarse for sub-microsecond phases. Across blocks (a launch's
// span, the next launch's start) only the globaltimer can compare SMs.
[[maybe_unused]] void print_timeline(const char* shape, int iters, FILE* csv) {
#ifdef MPGEMM_TIMELINE
  using namespace mpgemm;
  using Rec = unsigned long long[kTlFields];
  std::vector<unsigned long long> raw(size_t(MPGEMM_TL_BLOCKS) * MPGEMM_TL_RING * kTlFields);
  std::vector<unsigned> count(MPGEMM_TL_BLOCKS);
  CHECK(cudaMemcpyFromSymbol(raw.data(), mpgemm_tl, raw.size() * 8));
  CHECK(cudaMemcpyFromSymbol(count.data(), mpgemm_tl_iter, count.size() * 4));
  const Rec* rec = reinterpret_cast<const Rec*>(raw.data());
  int blocks = 0;
  while (blocks < MPGEMM_TL_BLOCKS && count[blocks] == unsigned(iters)) ++blocks;
  const auto at = [&](int b, int l) -> const Rec& { return rec[size_t(b) * MPGEMM_TL_RING + l]; };
  const auto kept = [&](int l) { return l >= 2 && l < iters - 1; };  // not the first launches, nor the last
  double cycles = 0, ns = 0;
  for (int l = 0; l < iters; ++l)
    for (int b = 0; b < blocks && kept(l); ++b) {
      cycles += double(at(b, l)[kTlStamps + kTlEnd] - at(b, l)[kTlStamps + kTlEntry]);
      ns += double(at(b, l)[kTlEnd] - at(b, l)[kTlEntry]);
    }
  const double ghz = ns > 0 ? cycles / ns : 0;
  const auto us = [](unsigned long long a, unsigned long long b) { return 1e-3 * (double(b) - double(a)); };
  const auto phase_us = [&](const Rec& r, int from, int to) {
    return 1e-3 * (double(r[kTlStamps + to]) - double(r[kTlStamps + from])) / ghz;
  };
  std::vector<double> span, gap, entry_spread, end_spread, units;
  for (int l = 0; l < iters; ++l) {
    unsigned long long start = ~0ull, end = 0, last_entry = 0, first_end = ~0ull;
    for (int b = 0; b < blocks; ++b) {
      const Rec& r = at(b, l);
      start = std::min(start, r[kTlEntry]);
      last_entry = std::max(last_entry, r[kTlEntry]);
      end = std::max(end, r[kTlEnd]);
      first_end = std::min(first_end, r[kTlEnd]);
      if (csv) {
        std::fprintf(csv, "%s,%d,%d", shape, l, b);
        for (int f = 0; f < kTlFields; ++f) std::fprintf(csv, ",%llu", r[f]);
        std::fprintf(csv, "\n");
      }
      if (kept(l)) units.push_back(double(r[kTlUnits]));
    }
    if (!kept(l)) continue;
    unsigned long long next_start = ~0ull;
    for (int b = 0; b < blocks; ++b) next_start = std::min(next_start, at(b, l + 1)[kTlEntry]);
    span.push_back(us(start, end));
    gap.push_back(us(end, next_start));
    entry_spread.push_back(us(start, last_entry));
    end_spread.push_back(us(first_end, end));
  }
  std::printf("    stamped replay, %d blocks x %d launches, medians over launches 2..%d (us, globaltimer): launch %.3f "
              "(first entry -> last end), next launch's first entry %+.3f after it; entries spread %.3f, ends %.3f\n",
              blocks, iters, iters - 2, median_of(span), median_of(gap), median_of(entry_spread), median_of(end_spread));
  // The phases from entry to end, each stamp's median over blocks; the second full and the last issue lie inside
  // the main loop (the producer's and the consumer's views of it), so they are printed from their own start.
  const auto p = [&](int from, int to) {
    std::vector<double> v;
    for (int l = 0; l < iters; ++l)
      for (int b = 0; b < blocks && kept(l); ++b) {
        const Rec& r = at(b, l);
        if (r[kTlStamps + from] != 0 && r[kTlStamps + to] != 0) v.push_back(phase_us(r, from, to));
      }
    return median_of(v);
  };
  std::printf("    block (us at the replay's mean clock, %.0f MHz): entry -> set-up done %.3f -> dependency wait done "
              "%.3f -> first TMA issued %.3f -> first stage full %.3f -> main loop done %.3f -> end %.3f; total "
              "%.3f; second stage full %.3f after the first; last TMA issued %.3f after the first; units %.0f\n",
              1e3 * ghz, p(kTlEntry, kTlSetup), p(kTlSetup, kTlDepWait), p(kTlDepWait, kTlFirstIssue),
              p(kTlFirstIssue, kTlFirstFull), p(kTlFirstFull, kTlLoopDone), p(kTlLoopDone, kTlEnd),
              p(kTlEntry, kTlEnd), p(kTlFirstFull, kTlSecondFull), p(kTlFirstIssue, kTlLastIssue), median_of(units));
#else
  (void)shape, (void)iters, (void)csv;
#endif
}

// Times the winner (settled first) and cuBLAS at w's shape; in the stamped build, records one more replay.
void measure(const Winner& w, const Problem& p, cudaStream_t s, cublasHandle_t h, int rounds, int iters,
             double settle_s, FILE* csv) {
  const size_t m = w.M, n = w.N, k = w.K;
  const float one = 1, zero = 0;
  const auto cublas = [&] {
    cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(m), int(k), &one, p.B, CUDA_R_16F, int(n), p.A, CUDA_R_16F,
                 int(k), &zero, p.R, CUDA_R_32F, int(n), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  };
#ifdef MPGEMM_KB_PER_STAGE
  const auto ours = [&] { CHECK(launch_deep(w, p.A, p.B, p.C, p.ws, s)); };
#else
  const auto ours = [&] { CHECK(mpgemm_export::launch(w, p.A, p.B, p.C, p.ws, s)); };
#endif
  cublas();
  ours();
  CHECK(cudaMemsetAsync(p.diff, 0, 4, s));
  max_abs_diff<<<1024, 256, 0, s>>>(p.C, p.R, m * n, p.diff);
  float d = 0;
  CHECK(cudaMemcpyAsync(&d, p.diff, 4, cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));
  Graph g(s, iters, ours);
  g.settle(s, settle_s);
  // Alternate the two, three times each, and keep each one's best median.
  double t_ours = 1e30, t_cublas = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    t_ours = std::min(t_ours, time_graph(s, rounds, iters, ours));
    t_cublas = std::min(t_cublas, time_graph(s, rounds, iters, cublas));
  }
  char shape[64];
  std::snprintf(shape, sizeof shape, "%lldx%lldx%lld", w.M, w.N, w.K);
  std::printf("  %-16s max |ours - cuBLAS| %.3g; per launch: ours %.3f us, cuBLAS %.3f us (%.3fx)\n", shape, d,
              t_ours, t_cublas, t_cublas / t_ours);
#ifdef MPGEMM_TIMELINE
  g.settle(s, settle_s / 4);
  static unsigned zeros[MPGEMM_TL_BLOCKS];
  CHECK(cudaMemcpyToSymbolAsync(mpgemm::mpgemm_tl_iter, zeros, sizeof zeros, 0, cudaMemcpyHostToDevice, s));
  CHECK(cudaGraphLaunch(g.exec, s));
  CHECK(cudaStreamSynchronize(s));
  print_timeline(shape, iters, csv);
#else
  (void)csv;
#endif
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s ROUNDS ITERS SETTLE_S CSV|- [MxN:K1,K2,...]...\n", argv[0]);
    return 2;
  }
  const int rounds = std::atoi(argv[1]), iters = std::atoi(argv[2]);
  const double settle_s = std::atof(argv[3]);
  FILE* csv = std::string(argv[4]) == "-" ? nullptr : std::fopen(argv[4], "w");
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
    std::fprintf(csv, "shape,launch,block,entry,setup,dep_wait,first_issue,last_issue,first_full,second_full,loop_done,"
                      "end,clk_entry,clk_setup,clk_dep_wait,clk_first_issue,clk_last_issue,clk_first_full,"
                      "clk_second_full,clk_loop_done,clk_end,sm,units\n");
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 1;
  cublasSetStream(h, s);
  std::printf("build: %s; %d rounds of graphs of %d launches, %.2f s of settling per shape\n",
              stamped ? "stamped (timeline.patch)" : "plain", rounds, iters, settle_s);
  // MPGEMM_TL_ONLY: a comma-separated list of MxNxK shapes, the only winners measured (default: all).
  const char* only = std::getenv("MPGEMM_TL_ONLY");
  for (const Winner& w : mpgemm_export::kWinners) {
    char own[64];
    std::snprintf(own, sizeof own, "%lldx%lldx%lld", w.M, w.N, w.K);
    if (only != nullptr && ("," + std::string(only) + ",").find("," + std::string(own) + ",") == std::string::npos)
      continue;
    // K values to sweep for this winner's M x N (the command line), its own K first.
    std::vector<long long> ks = {w.K};
    for (int a = 5; a < argc; ++a) {
      long long m = 0, n = 0;
      int used = 0;
      if (std::sscanf(argv[a], "%lldx%lld:%n", &m, &n, &used) < 2 || m != w.M || n != w.N) continue;
      for (const char* q = argv[a] + used; *q;) {
        const long long k = std::atoll(q);
        if (k != w.K && k > 0 && k % 64 == 0) ks.push_back(k);
        while (*q && *q != ',') ++q;
        if (*q == ',') ++q;
      }
    }
    const long long k_max = *std::max_element(ks.begin(), ks.end());
    Problem p;
    CHECK(cudaMalloc(&p.A, size_t(w.M) * k_max * 2));
    CHECK(cudaMalloc(&p.B, size_t(k_max) * w.N * 2));
    CHECK(cudaMalloc(&p.C, size_t(w.M) * w.N * 4));
    CHECK(cudaMalloc(&p.R, size_t(w.M) * w.N * 4));
    CHECK(cudaMalloc(&p.diff, 4));
    if (w.workspace_bytes) {
      CHECK(cudaMalloc(&p.ws, w.workspace_bytes));
      CHECK(cudaMemset(p.ws, 0, w.workspace_bytes));
    }
#ifdef MPGEMM_CP_ASYNC_LOADS
    // ../cp_async/: the kernels load A and B with cp.async from these pointers (they take only tensor maps).
    CHECK(cudaMemcpyToSymbol(mpgemm::mpgemm_cp_async_a, &p.A, sizeof p.A));
    CHECK(cudaMemcpyToSymbol(mpgemm::mpgemm_cp_async_b, &p.B, sizeof p.B));
#endif
    fill_halves<<<1024, 256, 0, s>>>(p.A, size_t(w.M) * k_max, 1);
    fill_halves<<<1024, 256, 0, s>>>(p.B, size_t(k_max) * w.N, 2);
    std::printf("\n%lldx%lldx%lld  %s\n", w.M, w.N, w.K, w.config);
    for (long long k : ks) measure(with_k(w, k), p, s, h, rounds, iters, settle_s, csv);
    cudaFree(p.A);
    cudaFree(p.B);
    cudaFree(p.C);
    cudaFree(p.R);
    cudaFree(p.diff);
    if (p.ws) cudaFree(p.ws);
  }
  if (csv) std::fclose(csv);
  return 0;
}
