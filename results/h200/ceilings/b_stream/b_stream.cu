// How fast TMA streams B the way the wgmma family's producer reads it, on its own (no wgmmas, no consumers): the
// question behind the decoding shapes (M = 1 and 16), where cuBLASLt reads a 470-940 MB B at 4.4-4.6 TB/s and
// every config of ours at 3.7-4.2 (results/h200/transformer/NOTES.md).
//
// One CTA per SM (or two), one thread issuing TMA loads of 64-column x 64-row boxes (128 bytes x 64 rows of a K x N
// FP16 row-major B, 128B swizzle), NB boxes side by side per stage (BN = 64 NB), into a ring of STAGES stages; a stage
// is reused once its bytes have landed (an infinitely fast consumer). Tiles of BN columns are walked as the family's
// persistent grid walks them (tile = CTA + i * grid), each from k = 0 to K, or from a k rotated by the CTA
// ("stagger": concurrent CTAs in different rows). Variables: box columns per stage, bytes in flight, L2 promotion,
// an evict-first hint, the grid, the stagger, and B's width N (its row stride). Against them: the same bytes read
// by plain 16-byte evict-first loads (ceilings.cu's read), and the same bytes as TMA boxes of a B only NB x 64
// columns wide, CTAs splitting K (each CTA reads consecutive bytes).
//
//   nvcc -O3 -std=c++17 -arch=sm_90a -I../../../../kernels -I.. b_stream.cu -o b_stream && ./b_stream [ROUNDS ITERS]
// Prints one line per variant: shape, NB, stages, bytes in flight, promotion, hint, grid, stagger, K splits, us, TB/s.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "graph_timing.cuh"
#include "hopper_ptx.cuh"

using mpgemm::hopper::TensorMap;

// The ring: one "full" mbarrier per stage; the issuing thread waits for a stage's bytes before reloading it.
template <int NB, bool EVICT_FIRST>
__global__ void __launch_bounds__(128, 1)
    tma_stream(const __grid_constant__ TensorMap map, int N, int K, int stages, int splits, int stagger) {
  using namespace mpgemm::hopper;
  extern __shared__ unsigned char smem_raw[];
  const unsigned base = (smem_address(smem_raw) + 1023) & ~1023u;
  const unsigned bars = base + stages * NB * 8192;
  if (threadIdx.x != 0) return;
  for (int s = 0; s < stages; ++s) mbarrier_init(bars + 8 * s, 1);
  fence_barrier_init();
  unsigned long long policy = 0;
  if constexpr (EVICT_FIRST) asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
  const int tiles_n = N / (64 * NB), k_blocks = K / 64;
  const int units = tiles_n * splits;  // unit u: tile u % tiles_n, k-range u / tiles_n of `splits`
  long long issued = 0;
  for (int u = blockIdx.x; u < units; u += gridDim.x) {
    const int tile = u % tiles_n, part = u / tiles_n;
    const int kb0 = part * k_blocks / splits, kb1 = (part + 1) * k_blocks / splits, len = kb1 - kb0;
    const int rot = stagger ? (blockIdx.x * len) / gridDim.x : 0;
    for (int i = 0; i < len; ++i, ++issued) {
      const int kb = kb0 + (i + rot) % len;
      const int s = static_cast<int>(issued % stages);
      const unsigned bar = bars + 8 * s;
      if (issued >= stages) mbarrier_wait(bar, static_cast<unsigned>((issued / stages - 1) & 1));
      mbarrier_arrive_expect_tx(bar, NB * 8192);
#pragma unroll
      for (int j = 0; j < NB; ++j) {
        const unsigned dst = base + (s * NB + j) * 8192;
        if constexpr (EVICT_FIRST)
          tma_load_2d(dst, &map, bar, tile * 64 * NB + j * 64, kb * 64, policy);
        else
          tma_load_2d(dst, &map, bar, tile * 64 * NB + j * 64, kb * 64);
      }
    }
  }
  for (long long i = issued > stages ? issued - stages : 0; i < issued; ++i)
    mbarrier_wait(bars + 8 * static_cast<int>(i % stages), static_cast<unsigned>((i / stages) & 1));
}

__global__ void read_once(const float4* __restrict__ p, size_t n, float* __restrict__ sink) {
  float acc = 0.f;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const float4 a = __ldcs(p + i), b = __ldcs(p + i + stride), c = __ldcs(p + i + 2 * stride),
                 d = __ldcs(p + i + 3 * stride);
    acc += (a.x + a.y + a.z + a.w) + (b.x + b.y + b.z + b.w) + (c.x + c.y + c.z + c.w) + (d.x + d.y + d.z + d.w);
  }
  for (; i < n; i += stride) acc += p[i].x;
  if (acc == -1.f) sink[threadIdx.x] = acc;
}

namespace {

PFN_cuTensorMapEncodeTiled_v12000 encoder() {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q));
  if (q != cudaDriverEntryPointSuccess) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled not found\n");
    std::exit(1);
  }
  return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
}

TensorMap b_map(void* b, int N, int K, int promotion) {
  TensorMap m;
  const cuuint64_t dims[2] = {cuuint64_t(N), cuuint64_t(K)};
  const cuuint64_t strides[1] = {cuuint64_t(N) * 2};
  const cuuint32_t box[2] = {64, 64}, elem[2] = {1, 1};
  const CUtensorMapL2promotion p = promotion == 0     ? CU_TENSOR_MAP_L2_PROMOTION_NONE
                                   : promotion == 64  ? CU_TENSOR_MAP_L2_PROMOTION_L2_64B
                                   : promotion == 128 ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B
                                                      : CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  const CUresult r =
      encoder()(reinterpret_cast<CUtensorMap*>(&m), CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, b, dims, strides, box, elem,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, p, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed (%d) for %d x %d\n", int(r), K, N);
    std::exit(1);
  }
  return m;
}

struct Variant {
  int nb, inflight_kib, promotion;
  bool evict_first;
  int grid_per_sm, stagger;
};

template <int NB, bool EF>
void launch(cudaStream_t s, const TensorMap& m, int N, int K, int stages, int splits, int stagger, int blocks) {
  const int smem = stages * NB * 8192 + 8 * stages + 1024;
  CHECK(cudaFuncSetAttribute(tma_stream<NB, EF>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  tma_stream<NB, EF><<<blocks, 128, smem, s>>>(m, N, K, stages, splits, stagger);
}

void launch_any(cudaStream_t s, const TensorMap& m, int N, int K, int splits, const Variant& v, int sms) {
  const int stages = v.inflight_kib * 1024 / (v.nb * 8192), blocks = v.grid_per_sm * sms;
#define CASE(NB)                                                        \
  if (v.nb == NB) {                                                     \
    if (v.evict_first)                                                  \
      launch<NB, true>(s, m, N, K, stages, splits, v.stagger, blocks);  \
    else                                                                \
      launch<NB, false>(s, m, N, K, stages, splits, v.stagger, blocks); \
    return;                                                             \
  }
  CASE(1) CASE(2) CASE(4)
#undef CASE
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 15, iters = argc > 2 ? std::atoi(argv[2]) : 10;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  std::printf("device %s, %d SMs; median of %d graph replays of %d launches each\n", prop.name, sms, rounds, iters);
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const size_t big = size_t(57344) * 8192 * 2;
  void* b;
  float* sink;
  CHECK(cudaMalloc(&b, big));
  CHECK(cudaMalloc(&sink, 4096));
  CHECK(cudaMemset(b, 0x11, big));

  struct Shape {
    const char* what;
    int N, K;
  };
  const Shape shapes[] = {{"70B gate+up B 8192x57344", 57344, 8192},
                          {"70B down    B 28672x8192", 8192, 28672},
                          {"7B gate+up  B 4096x22016", 22016, 4096}};
  std::printf("%-26s %-18s %3s %6s %8s %5s %5s %4s %4s %6s %10s %7s\n", "B", "mode", "NB", "stages", "inflight",
              "promo", "hint", "grid", "stag", "splits", "us", "TB/s");
  const auto row = [&](const char* what, const char* mode, const Variant& v, int splits, size_t bytes, double us) {
    std::printf("%-26s %-18s %3d %6d %7dK %5d %5s %4d %4d %6d %10.2f %7.3f\n", what, mode, v.nb,
                v.inflight_kib * 1024 / (v.nb * 8192), v.inflight_kib, v.promotion, v.evict_first ? "first" : "-",
                v.grid_per_sm * sms, v.stagger, splits, us, bytes / us / 1e6);
    std::fflush(stdout);
  };
  for (const Shape& sh : shapes) {
    const size_t bytes = size_t(sh.N) * sh.K * 2;
    // Plain loads of the same bytes, the better of two grids.
    double plain = 1e30;
    for (int per_sm : {4, 8})
      plain = std::min(plain, time_graph(s, rounds, iters, [&] {
                         read_once<<<per_sm * sms, 256, 0, s>>>(static_cast<const float4*>(b), bytes / 16, sink);
                       }));
    std::printf("%-26s %-18s %79.2f %7.3f\n", sh.what, "plain ldcs", plain, bytes / plain / 1e6);
    std::vector<Variant> vs;
    for (int nb : {1, 2, 4})
      for (int kib : {64, 96, 128, 192})
        if (kib * 1024 % (nb * 8192) == 0) vs.push_back({nb, kib, 256, false, 1, 0});
    for (int nb : {1, 4}) {
      const int kib = nb == 1 ? 96 : 192;
      for (int promo : {0, 128}) vs.push_back({nb, kib, promo, false, 1, 0});
      vs.push_back({nb, kib, 256, true, 1, 0});
      vs.push_back({nb, kib, 256, false, 1, 1});
      vs.push_back({nb, kib / 2, 256, false, 2, 0});
    }
    for (const Variant& v : vs) {
      // Fewer tiles than CTAs (70B down: 128 tiles of 64 columns, 32 of 256): K is split until every CTA has work,
      // as the family's split-K configs do.
      const int tiles_n = sh.N / (64 * v.nb), splits = std::max(1, v.grid_per_sm * sms / tiles_n);
      const TensorMap m = b_map(b, sh.N, sh.K, v.promotion);
      const double us = time_graph(s, rounds, iters, [&] { launch_any(s, m, sh.N, sh.K, splits, v, sms); });
      row(sh.what, "family order", v, splits, bytes, us);
    }
    // The same bytes as a B only 64 NB columns wide, each CTA reading one consecutive range of rows.
    for (int nb : {1, 4}) {
      const Variant v{nb, nb == 1 ? 96 : 192, 256, false, 1, 0};
      const int n = 64 * nb, k = static_cast<int>(bytes / 2 / n);
      const TensorMap m = b_map(b, n, k, v.promotion);
      const double us = time_graph(s, rounds, iters, [&] { launch_any(s, m, n, k, sms, v, sms); });
      row(sh.what, "consecutive", v, sms, bytes, us);
    }
  }
  CHECK(cudaDeviceSynchronize());
  return 0;
}
