// Does where a GEMM's buffers lie change its speed? One process allocates SETS separate (A, B, C) triples, fills
// them alike, and times cublasGemmEx (FP16 in, FP32 out and compute, as mpgemm's reference) on each set in rounds
// whose order rotates, after a second of untimed launches. Prints each set's median time per launch.
//   nvcc -O2 -std=c++17 -arch=sm_90 placement.cu -lcublas -o placement
//   ./placement M N K SETS ROUNDS ITERS
#include <cublas_v2.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                             \
  do {                                                                       \
    auto e = (x);                                                            \
    if (static_cast<int>(e) != 0) {                                          \
      std::fprintf(stderr, "%s:%d: %s failed (%d)\n", __FILE__, __LINE__, #x, \
                   static_cast<int>(e));                                     \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)

__global__ void fill(__half* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    p[i] = __float2half((h % 2001u) / 1000.0f - 1.0f);
  }
}

int main(int argc, char** argv) {
  if (argc != 7) {
    std::fprintf(stderr, "usage: %s M N K SETS ROUNDS ITERS\n", argv[0]);
    return 2;
  }
  const int M = std::atoi(argv[1]), N = std::atoi(argv[2]), K = std::atoi(argv[3]);
  const int sets = std::atoi(argv[4]), rounds = std::atoi(argv[5]), iters = std::atoi(argv[6]);
  struct Set {
    __half *a, *b;
    float* c;
  };
  std::vector<Set> s(sets);
  std::vector<void*> spacers;
  for (int i = 0; i < sets; ++i) {
    CHECK(cudaMalloc(&s[i].a, size_t(M) * K * sizeof(__half)));
    CHECK(cudaMalloc(&s[i].b, size_t(K) * N * sizeof(__half)));
    CHECK(cudaMalloc(&s[i].c, size_t(M) * N * sizeof(float)));
    fill<<<1024, 256>>>(s[i].a, size_t(M) * K, 1);  // every set holds the same values
    fill<<<1024, 256>>>(s[i].b, size_t(K) * N, 2);
    void* gap = nullptr;  // a gap of 2-64 MiB between sets, so they do not sit in a regular pattern
    CHECK(cudaMalloc(&gap, size_t(2 + (i * 37) % 63) << 20));
    spacers.push_back(gap);
  }
  CHECK(cudaDeviceSynchronize());
  cublasHandle_t h;
  CHECK(cublasCreate(&h));
  const float one = 1.f, zero = 0.f;
  // Row-major C = A B through column-major cuBLAS: C^T = B^T A^T.
  auto gemm = [&](const Set& x) {
    CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, x.b, CUDA_R_16F, N, x.a, CUDA_R_16F, K, &zero, x.c,
                       CUDA_R_32F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  };
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; std::chrono::steady_clock::now() - start < std::chrono::seconds(1); ++i) {
    gemm(s[i % sets]);
    if (i % 64 == 63) CHECK(cudaDeviceSynchronize());
  }
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  std::vector<std::vector<float>> ms(sets);
  for (int r = 0; r < rounds; ++r) {
    for (int j = 0; j < sets; ++j) {
      const int i = (r + j) % sets;
      CHECK(cudaEventRecord(e0));
      for (int t = 0; t < iters; ++t) gemm(s[i]);
      CHECK(cudaEventRecord(e1));
      CHECK(cudaEventSynchronize(e1));
      float total = 0;
      CHECK(cudaEventElapsedTime(&total, e0, e1));
      ms[i].push_back(total / iters);
    }
  }
  std::printf("set,a,b,c,median_ms,min_ms,max_ms\n");
  for (int i = 0; i < sets; ++i) {
    auto v = ms[i];
    std::sort(v.begin(), v.end());
    std::printf("%d,%p,%p,%p,%.5f,%.5f,%.5f\n", i, static_cast<void*>(s[i].a), static_cast<void*>(s[i].b),
                static_cast<void*>(s[i].c), v[v.size() / 2], v.front(), v.back());
  }
  return 0;
}
