#pragma once
// test_faulty_gemm: the test-only "test_faulty" family (tests/families/test_faulty_family.cpp). One simple GEMM,
// C (M x N, FP32, row-major) = A (M x K, FP16, row-major) * B (K x N, FP16, row-major), one thread per element of
// C, launched with 16 x 16 blocks over C; MODE makes it misbehave in one way each, so the end-to-end tests can
// check how mpgemm-tune records every kind of failure. Never part of a real search space.
//
//   MODE  name           what the kernel does                                   expected status
//   0     ok             correct: FP32 fmaf over ascending k                    ok
//   1     fault          correct, but thread (0, 0) stores 2^40 floats past C   runtime_fault
//   2     spin           every thread waits for a flag nothing ever sets        timeout
//   3     off_by_one     correct except that k starts at 1 (skips k = 0)        incorrect
//   4     nan            correct except C[0] = NaN                              incorrect (nan_count 1)
//   5     smem           correct; the host asks for 4 MiB of dynamic smem       resources_exceeded
//   6     compile_error  a static_assert fails on instantiation                 compile_failed
//   7     bad_grid       correct; the host launches grid.y = 70000 > 65535      launch_failed
//   8     needs_sm90     correct; the family's check_device rejects pre-sm_90   ok on sm_90+, else
//                        devices and targets, so it is never compiled there     constraint_rejected
#include <cuda_fp16.h>

namespace mpgemm_test {

enum : int {
  kFaultyOk = 0,
  kFaultyFault = 1,
  kFaultySpin = 2,
  kFaultyOffByOne = 3,
  kFaultyNan = 4,
  kFaultySmem = 5,
  kFaultyCompileError = 6,
  kFaultyBadGrid = 7,
  kFaultyNeedsSm90 = 8,
};

// Set by nobody. volatile: every read goes to memory, so the spin loop can be neither hoisted nor removed.
__device__ volatile int test_faulty_release = 0;

template <int MODE>
__global__ void test_faulty_gemm(const __half* A, const __half* B, float* C, int M, int N, int K) {
  static_assert(MODE != kFaultyCompileError, "deliberate compile error for tests");
  const int col = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int row = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);

  if (MODE == kFaultySpin) {
    while (test_faulty_release == 0) __nanosleep(1000);
    return;
  }
  if (MODE == kFaultyFault && row == 0 && col == 0) {
    volatile float* beyond = C + (static_cast<size_t>(1) << 40);  // 4 TiB past C: never mapped
    *beyond = 1.0f;
  }
  if (row >= M || col >= N) return;

  float acc = 0.0f;
  for (int k = MODE == kFaultyOffByOne ? 1 : 0; k < K; ++k)
    acc = fmaf(__half2float(A[static_cast<size_t>(row) * K + k]), __half2float(B[static_cast<size_t>(k) * N + col]),
               acc);
  if (MODE == kFaultyNan && row == 0 && col == 0) acc = __int_as_float(0x7fc00000);  // a quiet NaN
  C[static_cast<size_t>(row) * N + col] = acc;
}

}  // namespace mpgemm_test
