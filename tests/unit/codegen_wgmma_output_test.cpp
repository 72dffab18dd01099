// The wgmma kernel's output arithmetic on the CPU (kernels/wgmma_output.cuh, compiled here by g++ as the kernel's
// NVRTC compiles it): D = alpha * acc + beta * C in FP32, one fused multiply-add, rounded once to D's type with
// round-to-nearest-even; FP16 and BF16 pairs packed low half first; C read back from D's type (as the kernel reads
// C, which may be D itself). The expected bits are written out from the formats' definitions, not from the toolkit's
// conversions that the header calls.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "wgmma_output.cuh"

namespace mpgemm {
namespace {

using wgmma_output::add_beta;
using Fp16 = wgmma_output::Out<kElementFp16>;
using Bf16 = wgmma_output::Out<kElementBf16>;

float from_bits(std::uint32_t u) {
  return std::bit_cast<float>(u);
}

TEST(WgmmaOutput, Fp16RoundsToNearestEven) {
  EXPECT_EQ(Fp16::round(1.0f), 0x3C00);
  EXPECT_EQ(Fp16::round(-2.0f), 0xC000);
  // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: ties go to the even significand (1).
  EXPECT_EQ(Fp16::round(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  // 1 + 3 * 2^-11 lies halfway between 1 + 2^-10 (odd) and 1 + 2^-9 (even): up.
  EXPECT_EQ(Fp16::round(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  // Just above the tie rounds up, just below rounds down.
  EXPECT_EQ(Fp16::round(std::nextafter(1.0f + std::ldexp(1.0f, -11), 2.0f)), 0x3C01);
  EXPECT_EQ(Fp16::round(std::nextafter(1.0f + 3 * std::ldexp(1.0f, -11), 0.0f)), 0x3C01);
  EXPECT_EQ(Fp16::round(65504.0f), 0x7BFF);               // the largest finite FP16
  EXPECT_EQ(Fp16::round(65520.0f), 0x7C00);               // halfway to 2^16: rounds to infinity
  EXPECT_EQ(Fp16::round(std::ldexp(1.0f, -24)), 0x0001);  // the smallest subnormal
  EXPECT_EQ(Fp16::round(std::ldexp(1.0f, -25)), 0x0000);  // half of it: a tie, to even (zero)
  EXPECT_EQ(Fp16::round(std::numeric_limits<float>::quiet_NaN()) & 0x7C00, 0x7C00);
  EXPECT_NE(Fp16::round(std::numeric_limits<float>::quiet_NaN()) & 0x03FF, 0);
}

TEST(WgmmaOutput, Bf16RoundsToNearestEven) {
  EXPECT_EQ(Bf16::round(1.0f), 0x3F80);
  // BF16 keeps FP32's top 16 bits: 0x3F808000 is halfway between 0x3F80 (even) and 0x3F81: down.
  EXPECT_EQ(Bf16::round(from_bits(0x3F808000u)), 0x3F80);
  EXPECT_EQ(Bf16::round(from_bits(0x3F818000u)), 0x3F82);  // halfway between 0x3F81 (odd) and 0x3F82: up
  EXPECT_EQ(Bf16::round(from_bits(0x3F808001u)), 0x3F81);  // above the tie: up
  EXPECT_EQ(Bf16::round(from_bits(0x3F807FFFu)), 0x3F80);  // below it: down
  EXPECT_EQ(Bf16::round(from_bits(0x7F7FFFFFu)), 0x7F80);  // FP32's largest rounds up to infinity
  EXPECT_EQ(Bf16::round(-0.0f), 0x8000);
  const unsigned short nan = Bf16::round(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7F80, 0x7F80);
  EXPECT_NE(nan & 0x007F, 0);
}

TEST(WgmmaOutput, PairsPackTheLowerAddressInTheLowHalfAndWidenBack) {
  EXPECT_EQ(Fp16::pack2(1.0f, -2.0f), 0xC0003C00u);
  EXPECT_EQ(Bf16::pack2(1.0f, -2.0f), 0xC0003F80u);
  // Each half of a pair is rounded on its own, as a single element is.
  const float x = 1.0f + 3 * std::ldexp(1.0f, -11), y = from_bits(0x3F818000u);
  EXPECT_EQ(Fp16::pack2(x, y) & 0xFFFFu, Fp16::round(x));
  EXPECT_EQ(Fp16::pack2(x, y) >> 16, Fp16::round(y));
  EXPECT_EQ(Bf16::pack2(x, y) & 0xFFFFu, Bf16::round(x));
  EXPECT_EQ(Bf16::pack2(x, y) >> 16, Bf16::round(y));
  const float2 h = Fp16::unpack2(0xC0003C00u);
  EXPECT_EQ(h.x, 1.0f);
  EXPECT_EQ(h.y, -2.0f);
  const float2 b = Bf16::unpack2(0x3F813F80u);
  EXPECT_EQ(b.x, 1.0f);
  EXPECT_EQ(b.y, from_bits(0x3F810000u));
  // Widening is exact: every FP16 and BF16 value is an FP32 value.
  for (unsigned u = 0; u < 0x10000u; u += 0x0101u) {
    const auto s = static_cast<unsigned short>(u);
    if ((s & 0x7C00) != 0x7C00) {
      EXPECT_EQ(Fp16::round(Fp16::widen(s)), s) << std::hex << u;
    }
    if ((s & 0x7F80) != 0x7F80) {
      EXPECT_EQ(Bf16::round(Bf16::widen(s)), s) << std::hex << u;
    }
  }
}

TEST(WgmmaOutput, BetaIsOneFusedMultiplyAddAfterAlpha) {
  EXPECT_EQ(add_beta(2.0f * 3.0f, 0.5f, 4.0f), 8.0f);
  EXPECT_EQ(add_beta(1.5f, 0.0f, 1e30f), 1.5f);
  // Fused: beta * c + scaled rounds once. With beta = c = 1 + 2^-12 the product is 1 + 2^-11 + 2^-24, a tie in
  // FP32 that a separate multiply would round to 1 + 2^-11 (even), leaving 0 once 1 + 2^-11 is taken away.
  const float c = 1.0f + std::ldexp(1.0f, -12);
  ASSERT_EQ(c * c, 1.0f + std::ldexp(1.0f, -11)) << "the unfused product rounds";
  EXPECT_EQ(add_beta(-(1.0f + std::ldexp(1.0f, -11)), c, c), std::ldexp(1.0f, -24));
}

// What the epilogue does to one element of D when C is D (beta read in place): read C in D's type, widen it,
// combine in FP32, round once, write it back.
template <class O>
unsigned short in_place(unsigned short d, float acc, float alpha, float beta) {
  return O::round(add_beta(alpha * acc, beta, O::widen(d)));
}

TEST(WgmmaOutput, BetaReadsCInDsTypeAndRoundsOnce) {
  // D = 2 * 1.25 + 0.5 * C with C = 3 (exact in both types): 4.
  EXPECT_EQ(in_place<Fp16>(Fp16::round(3.0f), 1.25f, 2.0f, 0.5f), Fp16::round(4.0f));
  EXPECT_EQ(in_place<Bf16>(Bf16::round(3.0f), 1.25f, 2.0f, 0.5f), Bf16::round(4.0f));
  // One rounding: alpha * acc + beta * C = 1 + 2^-11 + 2^-13 exactly in FP32, just above FP16's tie at 1 + 2^-11,
  // so it rounds up to 1 + 2^-10; rounding alpha * acc to FP16 first (1 + 2^-11 -> 1) and adding C's 2^-13 would
  // give 1.
  const unsigned short c = Fp16::round(std::ldexp(1.0f, -13));
  EXPECT_EQ(in_place<Fp16>(c, 1.0f + std::ldexp(1.0f, -11), 1.0f, 1.0f), 0x3C01);
}

}  // namespace
}  // namespace mpgemm
