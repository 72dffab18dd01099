#include "measure/fp16.hpp"

#include <bit>

namespace mpgemm {

std::uint16_t float_to_half_bits(float value) {
  const auto x = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t exponent = (x >> 23) & 0xffu;
  std::uint32_t mantissa = x & 0x7fffffu;

  if (exponent == 0xffu) {
    if (mantissa == 0) return static_cast<std::uint16_t>(sign | 0x7c00u);  // infinity
    // NaN: keep the top payload bits and force the quiet bit, so a NaN never turns into infinity.
    return static_cast<std::uint16_t>(sign | 0x7e00u | (mantissa >> 13));
  }

  const int half_exponent = static_cast<int>(exponent) - 127 + 15;
  if (half_exponent >= 0x1f) return static_cast<std::uint16_t>(sign | 0x7c00u);  // overflow

  if (half_exponent <= 0) {
    // Subnormal half (or zero): value = significand * 2^(exponent - 150) = q * 2^-24, so q = significand >> shift.
    const int shift = 14 - half_exponent;
    if (shift > 24) return static_cast<std::uint16_t>(sign);  // below half the smallest subnormal: rounds to zero
    const std::uint32_t significand = mantissa | 0x800000u;
    std::uint32_t q = significand >> shift;
    const std::uint32_t rest = significand & ((1u << shift) - 1u);
    const std::uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (q & 1u))) ++q;  // may carry into the smallest normal: still right
    return static_cast<std::uint16_t>(sign | q);
  }

  std::uint32_t result = (static_cast<std::uint32_t>(half_exponent) << 10) | (mantissa >> 13);
  const std::uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (result & 1u)))
    ++result;  // a carry into the exponent is correct,
               // up to and including infinity
  return static_cast<std::uint16_t>(sign | result);
}

float half_bits_to_float(std::uint16_t bits) {
  const std::uint32_t sign = (static_cast<std::uint32_t>(bits) & 0x8000u) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1fu;
  std::uint32_t mantissa = bits & 0x3ffu;

  std::uint32_t out = 0;
  if (exponent == 0x1fu) {
    out = sign | 0x7f800000u | (mantissa << 13);  // infinity or NaN (payload kept)
  } else if (exponent != 0) {
    out = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    out = sign;  // signed zero
  } else {
    // Subnormal half: normalise into a float, which has the range for it.
    int e = -14;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --e;
    }
    mantissa &= 0x3ffu;
    out = sign | (static_cast<std::uint32_t>(e + 127) << 23) | (mantissa << 13);
  }
  return std::bit_cast<float>(out);
}

std::uint16_t float_to_bf16_bits(float value) {
  const auto x = std::bit_cast<std::uint32_t>(value);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x0040u);  // quiet NaN
  // Round to nearest even on the 16 bits dropped; a carry out of the mantissa steps the exponent, up to infinity.
  const std::uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<std::uint16_t>((x + rounding) >> 16);
}

float bf16_bits_to_float(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

}  // namespace mpgemm
