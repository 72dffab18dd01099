// How long the H200's clock takes to settle after an idle gap: cuBLAS (FP16 in, FP32 out) launched back to back
// with an event between launches, through idle gaps of several lengths; NVML's SM clock, power and temperature
// sampled every 5 ms on a thread. An experiment, not part of the build:
//   nvcc -O2 -std=c++17 -arch=sm_90 clock_after_idle.cu -lcublas -ldl -o clock_after_idle
//   ./clock_after_idle M N K OUT_PREFIX      (writes OUT_PREFIX_launches.csv and OUT_PREFIX_nvml.csv)
//   ./clock_after_idle M N K OUT_PREFIX HM HN HK HEAVY_MS
//       after a load: each phase of M N K follows HEAVY_MS of HM HN HK (phase -1 in the CSV) and an idle gap of
//       0, 200, 1000 or 0 ms, as a tuner's next shape follows a power-capped one
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#define CK(x)                                                                    \
  do {                                                                           \
    auto e_ = (x);                                                               \
    if (e_ != 0) {                                                               \
      std::fprintf(stderr, "%s:%d %s -> %d\n", __FILE__, __LINE__, #x, (int)e_); \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

using Clock = std::chrono::steady_clock;
static const Clock::time_point t0 = Clock::now();
static double now_ms() {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

struct Nvml {
  int (*init)() = nullptr;
  int (*handle)(unsigned, void**) = nullptr;
  int (*clock)(void*, int, unsigned*) = nullptr;
  int (*power)(void*, unsigned*) = nullptr;
  int (*temp)(void*, int, unsigned*) = nullptr;
  void* dev = nullptr;
  bool ok = false;
  Nvml() {
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!lib) return;
    init = (int (*)())dlsym(lib, "nvmlInit_v2");
    handle = (int (*)(unsigned, void**))dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
    clock = (int (*)(void*, int, unsigned*))dlsym(lib, "nvmlDeviceGetClockInfo");
    power = (int (*)(void*, unsigned*))dlsym(lib, "nvmlDeviceGetPowerUsage");
    temp = (int (*)(void*, int, unsigned*))dlsym(lib, "nvmlDeviceGetTemperature");
    ok = init && handle && clock && power && temp && init() == 0 && handle(0, &dev) == 0;
  }
};

int main(int argc, char** argv) {
  if (argc != 5 && argc != 9) {
    std::fprintf(stderr, "usage: %s M N K OUT_PREFIX [HEAVY_M HEAVY_N HEAVY_K HEAVY_MS]\n", argv[0]);
    return 2;
  }
  const std::string prefix = argv[4];
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  cublasHandle_t h;
  CK(cublasCreate(&h));
  CK(cublasSetStream(h, s));
  // One problem's buffers and its launch.
  struct Gemm {
    int M, N, K;
    half *a, *b;
    float* c;
  };
  auto make_gemm = [](int M, int N, int K) {
    Gemm g{M, N, K, nullptr, nullptr, nullptr};
    CK(cudaMalloc(&g.a, sizeof(half) * M * K));
    CK(cudaMalloc(&g.b, sizeof(half) * K * N));
    CK(cudaMalloc(&g.c, sizeof(float) * M * N));
    CK(cudaMemset(g.a, 0x3c, sizeof(half) * M * K));  // values near 1: the tensor cores do real work
    CK(cudaMemset(g.b, 0x3c, sizeof(half) * K * N));
    return g;
  };
  const Gemm target = make_gemm(std::atoi(argv[1]), std::atoi(argv[2]), std::atoi(argv[3]));
  const Gemm heavy = argc == 9 ? make_gemm(std::atoi(argv[5]), std::atoi(argv[6]), std::atoi(argv[7])) : target;
  const float alpha = 1, beta = 0;
  auto run = [&](const Gemm& g) {  // row-major C = A B as column-major C^T = B^T A^T
    CK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, g.N, g.M, g.K, &alpha, g.b, CUDA_R_16F, g.N, g.a, CUDA_R_16F, g.K,
                    &beta, g.c, CUDA_R_32F, g.N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  };

  Nvml nvml;
  std::atomic<bool> stop{false};
  FILE* fn = std::fopen((prefix + "_nvml.csv").c_str(), "w");
  std::fprintf(fn, "t_ms,sm_mhz,power_w,temp_c\n");
  std::thread sampler([&] {
    while (!stop) {
      unsigned mhz = 0, mw = 0, t = 0;
      if (nvml.ok) {
        nvml.clock(nvml.dev, 1, &mhz);  // NVML_CLOCK_SM
        nvml.power(nvml.dev, &mw);
        nvml.temp(nvml.dev, 0, &t);  // NVML_TEMPERATURE_GPU
      }
      std::fprintf(fn, "%.1f,%u,%.1f,%u\n", now_ms(), mhz, mw / 1000.0, t);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });

  FILE* fl = std::fopen((prefix + "_launches.csv").c_str(), "w");
  std::fprintf(fl, "phase,gap_ms,t_ms,launch_ms\n");
  constexpr int kChunk = 64;
  std::vector<cudaEvent_t> ev(kChunk + 1);
  for (auto& e : ev) CK(cudaEventCreate(&e));
  // One phase: launches back to back for `run_ms`, an event between each two, synchronised every kChunk
  // launches (the host stays at most one chunk ahead).
  auto phase = [&](int id, int gap_ms, double run_ms, const Gemm& g) {
    const double start = now_ms();
    while (now_ms() - start < run_ms) {
      const double chunk_start = now_ms() - start;
      CK(cudaEventRecord(ev[0], s));
      for (int i = 0; i < kChunk; ++i) {
        run(g);
        CK(cudaEventRecord(ev[i + 1], s));
      }
      CK(cudaStreamSynchronize(s));
      float prev = 0;
      for (int i = 0; i < kChunk; ++i) {
        float t = 0;
        CK(cudaEventElapsedTime(&t, ev[0], ev[i + 1]));
        std::fprintf(fl, "%d,%d,%.3f,%.5f\n", id, gap_ms, chunk_start + t, t - prev);
        prev = t;
      }
    }
  };
  if (argc == 5) {
    phase(0, 0, 6000, target);  // from the start: the card idle before, then sustained load
    const int gaps[] = {20, 100, 300, 1000, 3000, 100, 1000};
    int id = 1;
    for (int gap : gaps) {
      std::this_thread::sleep_for(std::chrono::milliseconds(gap));
      phase(id++, gap, 2500, target);
    }
  } else {
    const double heavy_ms = std::atof(argv[8]);
    const int gaps[] = {0, 200, 1000, 0};
    int id = 1;
    for (int gap : gaps) {
      phase(-1, 0, heavy_ms, heavy);
      std::this_thread::sleep_for(std::chrono::milliseconds(gap));
      phase(id++, gap, 3000, target);
    }
  }
  stop = true;
  sampler.join();
  std::fclose(fl);
  std::fclose(fn);
  std::printf("done: %s (nvml %s)\n", prefix.c_str(), nvml.ok ? "ok" : "unavailable");
  return 0;
}
