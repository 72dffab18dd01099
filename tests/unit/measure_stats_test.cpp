#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "measure/fp16.hpp"
#include "measure/stats.hpp"

namespace mpgemm {
namespace {

TEST(Summarize, MedianMinMaxOfRuns) {
  const TimingStats t = summarize({1.5, 1.2, 1.9, 1.3, 1.4}, 3, 5, 20);
  EXPECT_DOUBLE_EQ(t.median_ms, 1.4);
  EXPECT_DOUBLE_EQ(t.min_ms, 1.2);
  EXPECT_DOUBLE_EQ(t.max_ms, 1.9);
  EXPECT_EQ(t.warmup, 3);
  EXPECT_EQ(t.runs, 5);
  EXPECT_EQ(t.iters, 20);
  EXPECT_NEAR(t.spread(), 0.7 / 1.4, 1e-12);
}

TEST(Summarize, EvenCountAveragesTheMiddle) {
  const TimingStats t = summarize({4, 1, 3, 2}, 0, 4, 1);
  EXPECT_DOUBLE_EQ(t.median_ms, 2.5);
}

TEST(Summarize, RejectsBadInput) {
  EXPECT_THROW(summarize({}, 3, 5, 20), Error);
  EXPECT_THROW(summarize({1, 2}, 3, 5, 20), Error);
  EXPECT_THROW(summarize({1, -2}, 3, 2, 20), Error);
  EXPECT_THROW(summarize({1, std::nan("")}, 3, 2, 20), Error);
  EXPECT_THROW(summarize({1}, 3, 1, 0), Error);
}

TEST(Compare, WithinTolerance) {
  const std::vector<float> ref{100.0f, -2.0f, 0.0f, 1000.0f};
  const std::vector<float> out{100.5f, -2.4f, 0.5f, 1001.4f};  // 1000: atol 0.5 + rtol 1.0 -> 1.5 allowed
  const ErrorStats s = compare(out, ref, 0.5, 1e-3);
  EXPECT_EQ(s.bad_count, 0);
  EXPECT_EQ(s.nan_count, 0);
  EXPECT_NEAR(s.max_abs, 1.4, 1e-3);
  EXPECT_NEAR(s.max_rel, 0.2, 1e-6);  // 0.4 / 2; the ref == 0 element is left out of max_rel
  EXPECT_DOUBLE_EQ(s.atol, 0.5);
  EXPECT_DOUBLE_EQ(s.rtol, 1e-3);
}

TEST(Compare, CountsBadElements) {
  const std::vector<float> ref{10.0f, 10.0f, 10.0f};
  const std::vector<float> out{10.0f, 11.0f, 9.0f};  // off by one: |1| > 0.5 + 0.01
  const ErrorStats s = compare(out, ref, 0.5, 1e-3);
  EXPECT_EQ(s.bad_count, 2);
  EXPECT_DOUBLE_EQ(s.max_abs, 1.0);
  EXPECT_DOUBLE_EQ(s.max_rel, 0.1);
}

TEST(Compare, NanAndInfAreAlwaysBad) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> ref{1.0f, 1.0f, 1.0f, 1.0f};
  const std::vector<float> out{nan, inf, -inf, 1.0f};
  const ErrorStats s = compare(out, ref, 1e30, 1e30);  // no tolerance lets a NaN through
  EXPECT_EQ(s.bad_count, 3);
  EXPECT_EQ(s.nan_count, 3);
  EXPECT_DOUBLE_EQ(s.max_abs, 0.0);
}

TEST(Compare, PoisonedOutputIsAllBad) {
  // 0xFFFFFFFF is what cudaMemset(0xFF) leaves in a float: a NaN.
  std::vector<float> out(64);
  const std::uint32_t poison = 0xffffffffu;
  for (auto& f : out) std::memcpy(&f, &poison, sizeof f);
  const std::vector<float> ref(64, 0.0f);
  const ErrorStats s = compare(out, ref, 0.5, 1e-3);
  EXPECT_EQ(s.bad_count, 64);
  EXPECT_EQ(s.nan_count, 64);
}

TEST(Compare, NonFiniteReferenceIsBad) {
  const std::vector<float> ref{std::numeric_limits<float>::infinity()};
  const std::vector<float> out{1.0f};
  EXPECT_EQ(compare(out, ref, 0.5, 1e-3).bad_count, 1);
}

TEST(Compare, RejectsMismatchedSizesAndTolerances) {
  const std::vector<float> a(3), b(4);
  EXPECT_THROW(compare(a, b, 0.5, 1e-3), Error);
  EXPECT_THROW(compare(a, a, -1, 1e-3), Error);
  EXPECT_THROW(compare(a, a, 0.5, std::nan("")), Error);
}

TEST(Tflops, FromShapeAndTime) {
  const Shape s{2048, 2048, 2048};
  EXPECT_NEAR(tflops(s, 1.33), 12.917, 1e-3);  // the writeup's cuBLAS row: 12,896 GFLOPS at 1.33 ms (rounded)
  EXPECT_EQ(tflops(s, 0), 0);
  EXPECT_EQ(tflops(s, -1), 0);
}

// 16-bit outputs (issue 58): FP32 keeps its rule; a correctly rounded BF16 or FP16 result passes where a plain FP32
// comparison would fail it, and an element off by one ulp of the type too many still fails.
TEST(OutputTolerance, WidensByOneRoundingOfTheOutputType) {
  const Tolerance f32 = output_tolerance(ElementType::fp32, 0.5, 1e-3);
  EXPECT_EQ(f32.atol, 0.5);
  EXPECT_EQ(f32.rtol, 1e-3);
  EXPECT_EQ(unit_roundoff(ElementType::fp16), 0x1p-11);
  EXPECT_EQ(unit_roundoff(ElementType::bf16), 0x1p-8);
  // A reference of 1000.3 rounds to 1000 in BF16 (spacing 8 there); the FP32 rule allows 0.5 + 1.0003.
  const std::vector<float> ref{1000.3f};
  const std::vector<float> rounded{bf16_bits_to_float(float_to_bf16_bits(1000.3f))};
  EXPECT_EQ(compare(rounded, ref, 0.5, 1e-3).bad_count, 0);
  const std::vector<float> far_ref{1003.9f};  // rounds to 1000: off by 3.9, more than FP32's 1.5 allows
  EXPECT_EQ(compare(rounded, far_ref, 0.5, 1e-3).bad_count, 1);
  const Tolerance b16 = output_tolerance(ElementType::bf16, 0.5, 1e-3);
  EXPECT_EQ(compare(rounded, far_ref, b16.atol, b16.rtol).bad_count, 0);
  // One BF16 step too far (1008 for 1003.9) is off by 4.1: still inside 0.5 + 4.9; two steps (1016) are not.
  const std::vector<float> two_steps{1016.0f};
  EXPECT_EQ(compare(two_steps, far_ref, b16.atol, b16.rtol).bad_count, 1);
  const Tolerance h16 = output_tolerance(ElementType::fp16, 0.5, 1e-3);
  EXPECT_LT(h16.rtol, b16.rtol);
  EXPECT_GT(h16.rtol, 1e-3);
}

}  // namespace
}  // namespace mpgemm
