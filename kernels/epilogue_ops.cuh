#pragma once
// The fused epilogue operations of issue 60, on one FP32 value of D: y = alpha * A.B + beta * C as the families
// compute it (wgmma_output.cuh's order), then y + bias[n] (bias of D's type, widened exactly; not scaled by beta) and
// the activation, then D's one rounding. One definition for every family's epilogue and for the host's tests (g++
// compiles it too), so the kernels and the host reference agree on the formulas:
//   kOpNone          y
//   kOpBias          y + bias
//   kOpBiasRelu      relu(y + bias): max(v, 0), a NaN kept (as PyTorch's relu; cuBLASLt's RELU_BIAS zeroes negatives)
//   kOpBiasGeluTanh  the tanh form (cuBLASLt's GELU_BIAS, GPT-2's): 0.5 v (1 + tanh(sqrt(2/pi) (v + 0.044715 v^3))),
//                    computed as v * sigmoid(2 z), the same value without 1 + tanh's cancellation for negative v
//   kOpBiasGelu      the exact form (PyTorch's default, BERT's): 0.5 v (1 + erf(v / sqrt(2))), computed as
//                    0.5 v erfc(-v / sqrt(2)), likewise
// At the extremes: +inf stays +inf; -inf gives 0 through relu and NaN through either GELU (0 * inf, as PyTorch
// gives); a NaN stays NaN through every operation.
#include "host_device.cuh"

#if !defined(__CUDACC_RTC__)
#include <cmath>
#endif

namespace mpgemm {
namespace epilogue_ops {

enum : int { kOpNone = 0, kOpBias = 1, kOpBiasRelu = 2, kOpBiasGeluTanh = 3, kOpBiasGelu = 4 };

MPGEMM_HD inline float relu(float v) {
  return v > 0.f ? v : (v != v ? v : 0.f);
}

MPGEMM_HD inline float gelu_tanh(float v) {
  constexpr float kSqrt2OverPi = 0.7978845608028654f;
  const float z = kSqrt2OverPi * (v + 0.044715f * v * v * v);
  return v / (1.f + expf(-2.f * z));
}

MPGEMM_HD inline float gelu_erf(float v) {
  constexpr float kSqrtHalf = 0.7071067811865476f;
  return 0.5f * v * erfcf(-v * kSqrtHalf);
}

// The operation OP on y, with this column's bias (ignored by kOpNone).
template <int OP>
MPGEMM_HD inline float apply(float y, float bias) {
  static_assert(OP >= kOpNone && OP <= kOpBiasGelu, "an epilogue operation of epilogue_ops");
  if constexpr (OP == kOpNone) {
    (void)bias;
    return y;
  } else {
    const float v = y + bias;
    if constexpr (OP == kOpBias)
      return v;
    else if constexpr (OP == kOpBiasRelu)
      return relu(v);
    else if constexpr (OP == kOpBiasGeluTanh)
      return gelu_tanh(v);
    else
      return gelu_erf(v);
  }
}

}  // namespace epilogue_ops
}  // namespace mpgemm
