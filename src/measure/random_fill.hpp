#pragma once
// Deterministic inputs from a 64-bit seed: the same seed gives the same matrices on every machine and build.
// Values are uniform in [-1, 1] and never exactly zero, so an unwritten or mis-indexed output cannot hide behind
// zeros (and data-dependent power saving cannot flatter a kernel).
#include <cstdint>
#include <span>

#include "common/random.hpp"  // splitmix64, Xoshiro256

namespace mpgemm {

// The seed of stream `stream` (0 for A, 1 for B, ...) of a problem seeded with `seed`.
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream);

// FP16 bit patterns of values uniform in [-1, 1], none of them +0 or -0.
void fill_random_halves(std::span<std::uint16_t> out, std::uint64_t seed);

// Floats uniform in [-1, 1], none of them zero.
void fill_random_floats(std::span<float> out, std::uint64_t seed);

}  // namespace mpgemm
