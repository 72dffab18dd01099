#pragma once
// Deterministic inputs from a 64-bit seed: the same seed gives the same matrices on every machine, build and
// thread count (the block layout below is part of what a seed means: changing it changes every seed's values).
// Values are uniform in [-1, 1] and never exactly zero, so an unwritten or mis-indexed output cannot hide behind
// zeros (and data-dependent power saving cannot flatter a kernel).
#include <cstddef>
#include <cstdint>
#include <span>

#include "common/random.hpp"  // splitmix64, Xoshiro256

namespace mpgemm {

// The seed of stream `stream` (0 for A, 1 for B, ...) of a problem seeded with `seed`.
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream);

// Elements per block of fill_random_halves: block b is drawn from its own generator, seeded with
// derive_seed(seed, b), so blocks fill in parallel and the values do not depend on how many threads filled them.
inline constexpr std::size_t kRandomFillBlock = std::size_t{1} << 20;

// FP16 bit patterns of values uniform in [-1, 1], none of them +0 or -0, block by block (kRandomFillBlock) on up
// to `threads` threads (0: one per hardware thread, at most 16); the same for every thread count.
void fill_random_halves(std::span<std::uint16_t> out, std::uint64_t seed, unsigned threads = 0);

// The same for BF16 bit patterns (ElementType::bf16) or FP16 (fp16: exactly fill_random_halves), each value drawn as
// for FP16 and rounded to the type, none of them zero.
void fill_random_16bit(std::span<std::uint16_t> out, std::uint64_t seed, bool bf16, unsigned threads = 0);

// Floats uniform in [-1, 1], none of them zero.
void fill_random_floats(std::span<float> out, std::uint64_t seed);

}  // namespace mpgemm
