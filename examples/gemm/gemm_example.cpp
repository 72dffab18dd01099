// C = A * B with the winners of an mpgemm database: prints how the shape is dispatched on this GPU and why, runs
// it, and checks one element against a dot product on the host.
//   gemm_example DB [M N K]
// Exit codes as mpgemm's tools: 0 the element matched, 1 it did not or the library failed, 2 bad arguments, 3 no
// CUDA device.
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <mpgemm/gemm.hpp>

namespace {

// A positive whole number, or nothing: "abc", "0" and "12x" are not sizes.
bool parse_size(const char* text, std::int64_t* out) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || errno != 0 || v <= 0) return false;
  *out = v;
  return true;
}

bool check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 5) {
    std::fprintf(stderr, "usage: %s DB [M N K]\n", argv[0]);
    return 2;
  }
  std::int64_t m = 4096, n = 4096, k = 4096;
  if (argc == 5 && !(parse_size(argv[2], &m) && parse_size(argv[3], &n) && parse_size(argv[4], &k))) {
    std::fprintf(stderr, "%s: M, N and K must be positive whole numbers, got %s %s %s\n", argv[0], argv[2], argv[3],
                 argv[4]);
    return 2;
  }
  try {
    mpgemm::Library lib = mpgemm::Library::open(argv[1]);
    std::printf("%s: %zu tuned (device, shape) entries\n", lib.path().c_str(), lib.tuned_shapes());
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
      std::fprintf(stderr, "%s: no CUDA device here: nothing to run\n", argv[0]);
      return 3;  // as mpgemm's tools: no device is neither success nor bad input
    }
    const mpgemm::Dispatch plan = lib.plan(m, n, k);
    std::printf("%lldx%lldx%lld: %s (%s)\n  %s\n", static_cast<long long>(m), static_cast<long long>(n),
                static_cast<long long>(k), mpgemm::to_string(plan.path), plan.config.c_str(), plan.reason.c_str());

    std::vector<__half> a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(k * n));
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = __float2half(static_cast<float>(i % 7) / 7.0f - 0.5f);
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = __float2half(static_cast<float>(i % 5) / 5.0f - 0.5f);
    void *da = nullptr, *db = nullptr, *dc = nullptr;
    if (!check(cudaMalloc(&da, a.size() * sizeof(__half)), "cudaMalloc") ||
        !check(cudaMalloc(&db, b.size() * sizeof(__half)), "cudaMalloc") ||
        !check(cudaMalloc(&dc, static_cast<std::size_t>(m * n) * sizeof(float)), "cudaMalloc"))
      return 1;
    cudaMemcpy(da, a.data(), a.size() * sizeof(__half), cudaMemcpyHostToDevice);
    cudaMemcpy(db, b.data(), b.size() * sizeof(__half), cudaMemcpyHostToDevice);

    const mpgemm::Dispatch& d = lib.gemm(da, db, static_cast<float*>(dc), m, n, k, nullptr);
    if (!check(cudaDeviceSynchronize(), "the GEMM")) return 1;
    std::printf("ran %s%s\n", d.config.c_str(), d.compiled ? " (compiled with NVRTC first)" : "");

    // C[m-1][n-1] on the host.
    double ref = 0;
    for (std::int64_t i = 0; i < k; ++i)
      ref += static_cast<double>(__half2float(a[static_cast<std::size_t>((m - 1) * k + i)])) *
             static_cast<double>(__half2float(b[static_cast<std::size_t>(i * n + n - 1)]));
    float got = 0;
    cudaMemcpy(&got, static_cast<float*>(dc) + (m * n - 1), sizeof(float), cudaMemcpyDeviceToHost);
    std::printf("C[%lld][%lld] = %.4f (host: %.4f)\n", static_cast<long long>(m - 1), static_cast<long long>(n - 1),
                got, ref);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    return std::fabs(got - ref) <= 0.5 + 1e-3 * std::fabs(ref) ? 0 : 1;
  } catch (const mpgemm::GemmError& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());  // e.what() says "libmpgemm: ..."
    return 1;
  }
}
