// mpgemm-export --format cpp on a GPU: a program compiled with nvcc from the exported header launches each winner of
// the GPU's arch through mpgemm_export::launch() (tensor maps, clusters, persistent grids and all) and gets the
// product a plain reference kernel computes, within the tuner's tolerance. Skipped without an sm_90 GPU.
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "support/export_fixture.hpp"
#include "support/run_command.hpp"
#include "support/store_fixture.hpp"

namespace mpgemm {
namespace {

constexpr int kNoDevice = 77;  // the program's exit status when it finds no sm_90 GPU

// Runs every winner compiled for this GPU's compute capability on uniform [-1, 1] inputs and compares C with a
// one-thread-per-element FP32 reference: |c - ref| <= 0.5 + 1e-3 |ref| (the tuner's defaults), no NaN.
constexpr const char* kProgram = R"(#include "mpgemm_winners.hpp"
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

__global__ void reference(const __half* A, const __half* B, float* C, int M, int N, int K) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float sum = 0.f;
  for (int k = 0; k < K; ++k) sum += __half2float(A[(size_t)row * K + k]) * __half2float(B[(size_t)k * N + col]);
  C[(size_t)row * N + col] = sum;
}

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::printf("%s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)

int main() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return 77;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.major != 9 || prop.minor != 0) return 77;
  int ran = 0;
  for (const mpgemm_export::Winner& w : mpgemm_export::kWinners) {
    if (std::strcmp(w.device_arch, "sm_90") != 0) { std::printf("skip %s (%s)\n", w.config, w.device_arch); continue; }
    const size_t M = w.M, N = w.N, K = w.K;
    std::vector<__half> a(M * K), b(K * N);
    srand(1);
    for (auto& x : a) x = __float2half(2.f * rand() / RAND_MAX - 1.f);
    for (auto& x : b) x = __float2half(2.f * rand() / RAND_MAX - 1.f);
    __half *A, *B; float *C, *R; void* workspace = nullptr;
    CHECK(cudaMalloc(&A, a.size() * 2)); CHECK(cudaMalloc(&B, b.size() * 2));
    CHECK(cudaMalloc(&C, M * N * 4)); CHECK(cudaMalloc(&R, M * N * 4));
    if (w.workspace_bytes) { CHECK(cudaMalloc(&workspace, w.workspace_bytes)); CHECK(cudaMemset(workspace, 0, w.workspace_bytes)); }
    CHECK(cudaMemcpy(A, a.data(), a.size() * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(B, b.data(), b.size() * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(C, 0xFF, M * N * 4));  // NaN: an unwritten element fails
    CHECK(mpgemm_export::launch(w, A, B, C, workspace, nullptr));
    reference<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(A, B, R, (int)M, (int)N, (int)K);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<float> c(M * N), r(M * N);
    CHECK(cudaMemcpy(c.data(), C, c.size() * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(r.data(), R, r.size() * 4, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t i = 0; i < c.size(); ++i)
      if (!(std::fabs(c[i] - r[i]) <= 0.5f + 1e-3f * std::fabs(r[i]))) ++bad;
    std::printf("%s %lldx%lldx%lld: %zu bad of %zu\n", w.config, w.M, w.N, w.K, bad, c.size());
    if (bad) return 1;
    cudaFree(A); cudaFree(B); cudaFree(C); cudaFree(R); cudaFree(workspace);
    ++ran;
  }
  std::printf("ran %d\n", ran);
  return ran > 0 ? 0 : 1;
}
)";

// Exports the database `write_db` writes, builds kProgram against the header with nvcc for sm_90a and runs it: its
// exit status and output, or nullopt when it found no sm_90 GPU.
template <typename WriteDb>
std::optional<testing::CommandResult> export_build_and_run(WriteDb write_db) {
  const auto dir = testing::per_test_dir();
  std::filesystem::create_directories(dir);
  const auto db = dir / "results.db";
  write_db(db);
  const auto header = dir / "mpgemm_winners.hpp";
  const auto exported = testing::run_command(
      fmt::format("{} {} --format cpp -o {}", testing::bin("mpgemm-export"), db.string(), header.string()));
  if (exported.exit_code != 0) return exported;
  std::ofstream(dir / "launch.cu") << kProgram;
  const auto program = dir / "launch";
  const auto built = testing::run_command(fmt::format(
      // sm_90a alone: mixed with sm_86 in one fatbin, the sm_90a kernels cannot be launched (invalid resource handle,
      // H200, CUDA 13.0; the header says so).
      "{} -std=c++17 -I{} -I{} -gencode arch=compute_90a,code=sm_90a {} -o {}", MPGEMM_NVCC, testing::source("kernels"),
      dir.string(), (dir / "launch.cu").string(), program.string()));
  if (built.exit_code != 0) return built;
  const auto ran = testing::run_command(program.string());
  std::filesystem::remove_all(dir);
  if (ran.exit_code == kNoDevice) return std::nullopt;
  return ran;
}

TEST(ExportCppLaunch, EveryWinnerOfThisGpuComputesTheProduct) {
  const auto ran = export_build_and_run(testing::write_export_db);
  if (!ran) GTEST_SKIP() << "no sm_90 GPU";
  EXPECT_EQ(ran->exit_code, 0) << ran->output;
  EXPECT_NE(ran->output.find("ran 2"), std::string::npos) << ran->output;  // the wgmma and the sm_90 wmma winner
}

// Split-K (every tile, and the last wave only) and stream-K winners hand partial tiles between CTAs through the
// workspace's flags: the exported launch must pass the zeroed workspace (stream-K's SPLIT_K is 1; before c1fc8ba its
// export asked for none) and the slices must add up to the product.
TEST(ExportCppLaunch, SplitAndStreamKWinnersComputeTheProduct) {
  const auto ran = export_build_and_run(testing::write_split_export_db);
  if (!ran) GTEST_SKIP() << "no sm_90 GPU";
  EXPECT_EQ(ran->exit_code, 0) << ran->output;
  EXPECT_NE(ran->output.find("ran 3"), std::string::npos) << ran->output;
  for (const auto& [shape, config] : testing::split_winners())
    EXPECT_NE(ran->output.find(config.name() + " " + shape.str() + ": 0 bad"), std::string::npos)
        << config.name() << "\n"
        << ran->output;
}

}  // namespace
}  // namespace mpgemm
