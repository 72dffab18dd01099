#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "measure/fp16.hpp"
#include "measure/random_fill.hpp"

namespace mpgemm {
namespace {

bool is_half_nan(std::uint16_t h) {
  return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0;
}

TEST(Fp16, KnownValues) {
  EXPECT_EQ(float_to_half_bits(0.0f), 0x0000);
  EXPECT_EQ(float_to_half_bits(-0.0f), 0x8000);
  EXPECT_EQ(float_to_half_bits(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half_bits(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half_bits(65504.0f), 0x7bff);   // largest finite
  EXPECT_EQ(float_to_half_bits(65519.99f), 0x7bff);  // below the rounding boundary
  EXPECT_EQ(float_to_half_bits(65520.0f), 0x7c00);   // the tie rounds to even: infinity
  EXPECT_EQ(float_to_half_bits(1e10f), 0x7c00);
  EXPECT_EQ(float_to_half_bits(-1e10f), 0xfc00);
  EXPECT_EQ(float_to_half_bits(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(float_to_half_bits(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(float_to_half_bits(std::ldexp(1.0f, -25)), 0x0000);  // tie between 0 and 1 ulp: even is 0
  EXPECT_EQ(float_to_half_bits(std::ldexp(1.5f, -25)), 0x0001);  // above the tie
  EXPECT_EQ(float_to_half_bits(std::ldexp(3.0f, -25)), 0x0002);  // tie between 1 and 2: even is 2
  EXPECT_EQ(float_to_half_bits(std::ldexp(1.0f, -30)), 0x0000);
  EXPECT_EQ(float_to_half_bits(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(float_to_half_bits(1.0f + std::ldexp(1.0f, -11)), 0x3c00);      // tie: even
  EXPECT_EQ(float_to_half_bits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);  // tie: even (up)
  EXPECT_EQ(float_to_half_bits(std::ldexp(2047.0f, -25)), 0x0400);          // subnormal rounding carries to normal
  EXPECT_EQ(float_to_half_bits(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(float_to_half_bits(-std::numeric_limits<float>::infinity()), 0xfc00);
  EXPECT_TRUE(is_half_nan(float_to_half_bits(std::numeric_limits<float>::quiet_NaN())));
  // A NaN whose payload lives only in the low bits must not turn into infinity.
  EXPECT_TRUE(is_half_nan(float_to_half_bits(std::bit_cast<float>(0x7f800001u))));
  EXPECT_EQ(half_bits_to_float(0x3555), 0.333251953125f);
  EXPECT_EQ(half_bits_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(half_bits_to_float(0x03ff), std::ldexp(1023.0f, -24));
  EXPECT_TRUE(std::isinf(half_bits_to_float(0xfc00)));
  EXPECT_TRUE(std::signbit(half_bits_to_float(0x8000)));
}

TEST(Fp16, EveryHalfRoundTrips) {
  for (std::uint32_t h = 0; h <= 0xffff; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    const float f = half_bits_to_float(bits);
    if (is_half_nan(bits)) {
      EXPECT_TRUE(std::isnan(f)) << h;
      EXPECT_TRUE(is_half_nan(float_to_half_bits(f))) << h;
    } else {
      EXPECT_EQ(float_to_half_bits(f), bits) << h;
    }
  }
}

// Between two neighbouring halves: below the midpoint goes down, above goes up, the midpoint goes to the even one.
TEST(Fp16, RoundsToNearestEvenEverywhere) {
  for (std::uint32_t h = 0; h < 0x7bff; ++h) {
    const auto lo = static_cast<std::uint16_t>(h);
    const auto hi = static_cast<std::uint16_t>(h + 1);
    const float a = half_bits_to_float(lo);
    const float b = half_bits_to_float(hi);
    const float mid = 0.5f * (a + b);  // exact: halves carry 11 significant bits
    ASSERT_EQ(float_to_half_bits(mid), (lo & 1u) == 0 ? lo : hi) << h;
    ASSERT_EQ(float_to_half_bits(std::nextafter(mid, 0.0f)), lo) << h;
    ASSERT_EQ(float_to_half_bits(std::nextafter(mid, 1e30f)), hi) << h;
    ASSERT_EQ(float_to_half_bits(-mid), static_cast<std::uint16_t>(float_to_half_bits(mid) | 0x8000u)) << h;
  }
}

// BF16 (issue 58's inputs and outputs): every finite pattern round-trips, midpoints go to the even neighbour,
// overflow goes to infinity and NaN stays NaN.
TEST(Bf16, RoundsToNearestEvenAndRoundTrips) {
  EXPECT_EQ(float_to_bf16_bits(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bf16_bits(-2.0f), 0xc000);
  EXPECT_EQ(float_to_bf16_bits(std::numeric_limits<float>::max()), 0x7f80);  // rounds up to infinity
  EXPECT_EQ(float_to_bf16_bits(std::numeric_limits<float>::infinity()), 0x7f80);
  EXPECT_EQ(float_to_bf16_bits(1.0f + std::ldexp(1.0f, -8)), 0x3f80);      // the tie below goes to the even 1.0
  EXPECT_EQ(float_to_bf16_bits(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);  // the tie above 1 + 2^-7: even
  EXPECT_TRUE(std::isnan(bf16_bits_to_float(float_to_bf16_bits(std::numeric_limits<float>::quiet_NaN()))));
  for (std::uint32_t h = 0; h <= 0xffff; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    const float f = bf16_bits_to_float(bits);
    if (std::isnan(f)) continue;
    ASSERT_EQ(float_to_bf16_bits(f), bits) << h;
  }
  for (std::uint32_t h = 0; h < 0x7f7f; ++h) {
    const auto lo = static_cast<std::uint16_t>(h);
    const auto hi = static_cast<std::uint16_t>(h + 1);
    const float mid = std::bit_cast<float>((static_cast<std::uint32_t>(lo) << 16) | 0x8000u);
    ASSERT_EQ(float_to_bf16_bits(mid), (lo & 1u) == 0 ? lo : hi) << h;
    ASSERT_EQ(float_to_bf16_bits(std::nextafter(mid, 0.0f)), lo) << h;
    ASSERT_EQ(float_to_bf16_bits(std::nextafter(mid, std::numeric_limits<float>::infinity())), hi) << h;
  }
}

TEST(RandomFill, Bf16IsInRangeNeverZeroAndFp16IsTheHalvesFill) {
  std::vector<std::uint16_t> b(1 << 16), h(1 << 16), halves(1 << 16);
  fill_random_16bit(b, 3, true);
  fill_random_16bit(h, 3, false);
  fill_random_halves(halves, 3);
  EXPECT_EQ(h, halves);
  double sum = 0;
  for (auto bits : b) {
    const float v = bf16_bits_to_float(bits);
    ASSERT_NE(bits & 0x7fffu, 0u);
    ASSERT_GE(v, -1.0f);
    ASSERT_LE(v, 1.0f);
    sum += v;
  }
  EXPECT_NEAR(sum / static_cast<double>(b.size()), 0.0, 0.02);
  EXPECT_NE(b, h);
}

TEST(RandomFill, DeterministicPerSeed) {
  std::vector<std::uint16_t> a(1000), b(1000), c(1000);
  fill_random_halves(a, 42);
  fill_random_halves(b, 42);
  fill_random_halves(c, 43);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(derive_seed(7, 0), derive_seed(7, 1));
  EXPECT_EQ(derive_seed(7, 1), derive_seed(7, 1));
  // Pinned so a change of generator (and with it every stored measurement's inputs) is a visible decision.
  Xoshiro256 rng(0);
  const std::uint64_t first = rng.next();
  Xoshiro256 again(0);
  EXPECT_EQ(first, again.next());
  std::uint64_t state = 0;
  EXPECT_EQ(splitmix64(state), 0xe220a8397b1dcdafull);
}

TEST(RandomFill, TheSameForEveryThreadCount) {
  // Three whole blocks and part of a fourth.
  const std::size_t count = 3 * kRandomFillBlock + 12345;
  std::vector<std::uint16_t> one(count), two(count), seven(count), any(count);
  fill_random_halves(one, 5, 1);
  fill_random_halves(two, 5, 2);
  fill_random_halves(seven, 5, 7);
  fill_random_halves(any, 5);
  EXPECT_EQ(one, two);
  EXPECT_EQ(one, seven);
  EXPECT_EQ(one, any);
  // Pinned, like the generator below: a change of what a seed fills is a visible decision.
  EXPECT_EQ(one[0], 0x3343) << "seed 5";
  std::vector<std::uint16_t> pinned(2 * kRandomFillBlock + 3);
  fill_random_halves(pinned, 42);
  EXPECT_EQ(pinned[0], 0xab24);
  EXPECT_EQ(pinned[1], 0x3656);
  EXPECT_EQ(pinned[kRandomFillBlock], 0x3b20);
  EXPECT_EQ(pinned[2 * kRandomFillBlock + 2], 0x354d);
  // Blocks are drawn from different generators, not the same one restarted.
  EXPECT_FALSE(std::equal(one.begin(), one.begin() + 1000, one.begin() + kRandomFillBlock));
}

TEST(RandomFill, UniformInRangeAndNeverZero) {
  std::vector<std::uint16_t> h(1 << 18);
  fill_random_halves(h, 1);
  double sum = 0, lo = 1, hi = -1;
  std::size_t negatives = 0;
  for (auto bits : h) {
    const float v = half_bits_to_float(bits);
    ASSERT_NE(bits & 0x7fffu, 0u);
    ASSERT_GE(v, -1.0f);
    ASSERT_LE(v, 1.0f);
    sum += v;
    lo = std::min<double>(lo, v);
    hi = std::max<double>(hi, v);
    negatives += v < 0;
  }
  EXPECT_NEAR(sum / static_cast<double>(h.size()), 0.0, 0.01);
  EXPECT_LT(lo, -0.99);
  EXPECT_GT(hi, 0.99);
  EXPECT_NEAR(static_cast<double>(negatives) / static_cast<double>(h.size()), 0.5, 0.01);

  std::vector<float> f(4096);
  fill_random_floats(f, 9);
  for (float v : f) {
    ASSERT_NE(v, 0.0f);
    ASSERT_GE(v, -1.0f);
    ASSERT_LE(v, 1.0f);
  }
}

}  // namespace
}  // namespace mpgemm
