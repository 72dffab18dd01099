#pragma once
// What the probes in this folder share: CHECK for CUDA calls, and the timing mpgemm uses for a GEMM with --graphs
// (a CUDA graph of ITERS back-to-back launches, median of ROUNDS replays).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#define CHECK(x)                                                                                     \
  do {                                                                                               \
    cudaError_t e = (x);                                                                             \
    if (e != cudaSuccess) {                                                                          \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); \
      std::exit(1);                                                                                  \
    }                                                                                                \
  } while (0)

// Median per launch (us) of `rounds` replays of a graph of `iters` enqueues of `enqueue`, after 3 untimed replays.
double time_graph(cudaStream_t s, int rounds, int iters, const std::function<void()>& enqueue) {
  cudaGraph_t g;
  cudaGraphExec_t x;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < iters; ++i) enqueue();
  CHECK(cudaStreamEndCapture(s, &g));
  CHECK(cudaGraphInstantiate(&x, g, 0));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<double> us;
  for (int r = 0; r < rounds + 3; ++r) {
    CHECK(cudaEventRecord(a, s));
    CHECK(cudaGraphLaunch(x, s));
    CHECK(cudaEventRecord(b, s));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    if (r >= 3) us.push_back(1e3 * ms / iters);
  }
  CHECK(cudaGetLastError());
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  CHECK(cudaGraphExecDestroy(x));
  CHECK(cudaGraphDestroy(g));
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}
