#pragma once
// IEEE 754 binary16 <-> binary32 on the host, bit-exact with the GPU's cvt.rn.f16.f32: round to nearest even,
// subnormals kept, overflow to infinity, NaN stays NaN (quiet). No CUDA headers, so it builds and tests anywhere.
#include <cstdint>

namespace mpgemm {

std::uint16_t float_to_half_bits(float value);
float half_bits_to_float(std::uint16_t bits);

// bfloat16 (binary32's top 16 bits) likewise, bit-exact with cvt.rn.bf16.f32: round to nearest even, overflow to
// infinity, NaN stays NaN (quiet); the widening is exact.
std::uint16_t float_to_bf16_bits(float value);
float bf16_bits_to_float(std::uint16_t bits);

}  // namespace mpgemm
