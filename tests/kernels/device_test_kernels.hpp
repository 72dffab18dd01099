#pragma once
// CUDA source of the kernels for the device tests, compiled with NVRTC inside the tests. Kept as a C++ string
// rather than a .cuh so it is not embedded into the production binaries with kernels/*.cuh.
namespace mpgemm::test {
inline constexpr const char* kDeviceTestKernels = R"cuda(
// Kernels for the device tests, compiled with NVRTC inside the tests. Each takes the standard arguments of a raw
// kernel, (A, B, C, M, N, K) with A M x K and B K x N halves and C M x N floats, all row-major, and is launched
// with 16 x 16 blocks over (ceil(N / 16), ceil(M / 16)). Halves are passed as their bits and converted with PTX,
// so no header is needed.

__device__ __forceinline__ float test_half_to_float(unsigned short bits) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(bits));
  return f;
}

__device__ __forceinline__ float test_dot(const unsigned short* A, const unsigned short* B, int row, int col, int N,
                                          int K) {
  float acc = 0.0f;
  for (int k = 0; k < K; ++k)
    acc += test_half_to_float(A[(size_t)row * K + k]) * test_half_to_float(B[(size_t)k * N + col]);
  return acc;
}

// Correct: one thread per element of C.
extern "C" __global__ void test_gemm_naive(const unsigned short* A, const unsigned short* B, float* C, int M, int N,
                                           int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) C[(size_t)row * N + col] = test_dot(A, B, row, col, N, K);
}

// Correct and persistent: a one-dimensional grid of 256-thread blocks takes the 16 x 16 tiles of C in turn with a
// stride of gridDim.x, so any grid.x >= 1 computes all of C (LaunchGeometry::persistent).
extern "C" __global__ void test_gemm_persistent(const unsigned short* A, const unsigned short* B, float* C, int M,
                                                int N, int K) {
  const int tiles_n = (N + 15) / 16;
  const int tiles = ((M + 15) / 16) * tiles_n;
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int row = (tile / tiles_n) * 16 + threadIdx.x / 16;
    const int col = (tile % tiles_n) * 16 + threadIdx.x % 16;
    if (row < M && col < N) C[(size_t)row * N + col] = test_dot(A, B, row, col, N, K);
  }
}

// Wrong by one everywhere: must be incorrect, with max_abs error 1.
extern "C" __global__ void test_gemm_off_by_one(const unsigned short* A, const unsigned short* B, float* C, int M,
                                                int N, int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) C[(size_t)row * N + col] = test_dot(A, B, row, col, N, K) + 1.0f;
}

// Skips the last row: only the poison can reveal it.
extern "C" __global__ void test_gemm_skip_last_row(const unsigned short* A, const unsigned short* B, float* C, int M,
                                                   int N, int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M - 1 && col < N) C[(size_t)row * N + col] = test_dot(A, B, row, col, N, K);
}

// Writes nothing.
extern "C" __global__ void test_gemm_no_write(const unsigned short*, const unsigned short*, float*, int, int, int) {}

// Stores through a null pointer: CUDA_ERROR_ILLEGAL_ADDRESS, a sticky fault.
extern "C" __global__ void test_gemm_illegal_address(const unsigned short*, const unsigned short*, float* C, int M,
                                                     int N, int) {
  volatile float* nowhere = (volatile float*)(size_t)0x100;  // never mapped
  nowhere[threadIdx.x] = C == nullptr ? 0.0f : (float)(M + N);
}

// Never finishes: C is poisoned with 0xFF bytes before the launch, and nothing ever writes this pattern there.
extern "C" __global__ void test_gemm_spin(const unsigned short*, const unsigned short*, float* C, int, int, int) {
  volatile unsigned* flag = (volatile unsigned*)C;
  while (flag[0] != 0x12345678u) {
  }
}

// Traps: CUDA_ERROR_LAUNCH_FAILED, sticky.
extern "C" __global__ void test_gemm_trap(const unsigned short*, const unsigned short*, float*, int, int, int) {
  __trap();
}
)cuda";
}  // namespace mpgemm::test
