#pragma once
// What the probes in this folder share: CHECK for CUDA calls, and the timing mpgemm uses for a GEMM with --graphs
// (a CUDA graph of ITERS back-to-back launches, median of ROUNDS replays); and what the GEMM probes elsewhere
// (../suite/timeline/, ../suite/tiletrace/) share: their inputs, their check against cuBLAS, a median.
#include <cuda_fp16.h>
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

// The median of v (0 when empty).
inline double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// A GEMM probe's inputs: n halves in [-1, 1], a hash of each index and `seed`.
__global__ void fill_halves(__half* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    p[i] = __float2half(static_cast<float>(h % 2001) / 1000.f - 1.f);
  }
}

// max |a - b| over n floats into *out (zeroed first by the caller).
__global__ void max_abs_diff(const float* a, const float* b, size_t n, float* out) {
  float m = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    m = fmaxf(m, fabsf(a[i] - b[i]));
  atomicMax(reinterpret_cast<int*>(out), __float_as_int(m));  // non-negative floats order as ints
}
