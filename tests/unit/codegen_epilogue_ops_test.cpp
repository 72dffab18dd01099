// The fused epilogue operations (kernels/epilogue_ops.cuh, compiled here by g++ as NVRTC compiles it for the
// kernels) against plain references in double precision: the bias added along D's rows, ReLU, and both GELU forms
// over the range a layer's activations take and at their extremes; NaN and infinities pass as PyTorch's
// F.relu / F.gelu pass them (torch 2.11: relu(-inf) = 0, gelu(-inf) = NaN in both forms, NaN stays NaN).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "epilogue_ops.cuh"

namespace mpgemm {
namespace {

using namespace epilogue_ops;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// The definitions in double, written so that they do not cancel below zero (1 + tanh(z) = 2 / (1 + exp(-2z)),
// 1 + erf(a) = erfc(-a)): the same values as the textbook forms, to double's precision everywhere.
double gelu_tanh_reference(double v) {
  const double z = std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v);
  return v / (1.0 + std::exp(-2.0 * z));
}

double gelu_erf_reference(double v) {
  return 0.5 * v * std::erfc(-v / std::sqrt(2.0));
}

// Within a few float roundings of the double reference, relative to the value: a float's rounding of v is magnified
// by the function's conditioning far below zero (about |2z| for the tanh form, v^2 for erfc), so the bound grows
// with it there; absolutely below float's normal numbers, where a float result may be flushed to zero.
void expect_close(float got, double want, double v) {
  const double tolerance = (4e-7 + 1.5e-7 * v * v) * std::fabs(want) + 16 * double{std::numeric_limits<float>::min()};
  EXPECT_NEAR(got, want, tolerance) << "at v = " << v;
}

TEST(EpilogueOps, NoneIsTheValueAndBiasIsAddedUnscaled) {
  EXPECT_EQ(apply<kOpNone>(1.5f, 100.f), 1.5f);
  EXPECT_EQ(apply<kOpBias>(1.5f, -0.25f), 1.25f);
  // One value per column: the bias of column n goes to every row's element n (what the callers index).
  const float bias[3] = {1.f, -2.f, 0.5f};
  const float row[2][3] = {{0.f, 0.f, 0.f}, {10.f, 20.f, 30.f}};
  for (int r = 0; r < 2; ++r)
    for (int n = 0; n < 3; ++n) EXPECT_EQ(apply<kOpBias>(row[r][n], bias[n]), row[r][n] + bias[n]);
}

TEST(EpilogueOps, ReluZeroesNegativesAndKeepsNaN) {
  EXPECT_EQ(apply<kOpBiasRelu>(2.f, 1.f), 3.f);
  EXPECT_EQ(apply<kOpBiasRelu>(-2.f, 1.f), 0.f);
  EXPECT_EQ(apply<kOpBiasRelu>(1e-30f, 0.f), 1e-30f);
  EXPECT_EQ(apply<kOpBiasRelu>(kInf, 0.f), kInf);
  EXPECT_EQ(apply<kOpBiasRelu>(-kInf, 0.f), 0.f);
  EXPECT_TRUE(std::isnan(apply<kOpBiasRelu>(kNaN, 0.f)));
  EXPECT_TRUE(std::isnan(apply<kOpBiasRelu>(1.f, kNaN))) << "a NaN bias too";
}

TEST(EpilogueOps, GeluFormsFollowTheirDefinitionsOverALayersRange) {
  for (int i = -4000; i <= 4000; ++i) {
    const float v = static_cast<float>(i) / 200.f;  // -20 .. 20 in steps of 0.005
    expect_close(gelu_tanh(v), gelu_tanh_reference(v), v);
    expect_close(gelu_erf(v), gelu_erf_reference(v), v);
    EXPECT_EQ(apply<kOpBiasGeluTanh>(v - 0.5f, 0.5f), gelu_tanh(v - 0.5f + 0.5f));
    EXPECT_EQ(apply<kOpBiasGelu>(v - 0.5f, 0.5f), gelu_erf(v - 0.5f + 0.5f));
  }
  // The two forms differ by at most about 5e-4 (the tanh form's own error), and agree at 0 and far out.
  EXPECT_NEAR(gelu_tanh(1.f), gelu_erf(1.f), 5e-4);
  EXPECT_EQ(gelu_tanh(0.f), 0.f);
  EXPECT_EQ(gelu_erf(0.f), 0.f);
}

TEST(EpilogueOps, GeluAtTheExtremes) {
  for (float v : {30.f, 1e6f, 1e20f, 3e38f}) {
    EXPECT_EQ(gelu_tanh(v), v) << v;
    EXPECT_EQ(gelu_erf(v), v) << v;
  }
  // Far below zero both are -0 or a tiny negative, never NaN while v is finite (v^3 overflows first in the tanh form).
  for (float v : {-30.f, -1e6f, -1e20f, -3e38f}) {
    EXPECT_LE(gelu_tanh(v), 0.f) << v;
    EXPECT_GT(gelu_tanh(v), -1e-30f) << v;
    EXPECT_LE(gelu_erf(v), 0.f) << v;
    EXPECT_GT(gelu_erf(v), -1e-30f) << v;
  }
  EXPECT_EQ(gelu_tanh(kInf), kInf);
  EXPECT_EQ(gelu_erf(kInf), kInf);
  EXPECT_TRUE(std::isnan(gelu_tanh(-kInf)));
  EXPECT_TRUE(std::isnan(gelu_erf(-kInf)));
  EXPECT_TRUE(std::isnan(apply<kOpBiasGeluTanh>(kNaN, 0.f)));
  EXPECT_TRUE(std::isnan(apply<kOpBiasGelu>(0.f, kNaN)));
  // Where 1 + tanh would cancel (v = -5: about -2.9e-7 in the tanh form), the value keeps its relative precision.
  expect_close(gelu_tanh(-5.f), gelu_tanh_reference(-5.0), -5.0);
  expect_close(gelu_erf(-5.f), gelu_erf_reference(-5.0), -5.0);
}

}  // namespace
}  // namespace mpgemm
