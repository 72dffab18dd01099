#include "measure/random_fill.hpp"

#include "measure/fp16.hpp"

namespace mpgemm {

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t state = seed ^ (0xd1b54a32d192ed03ull * (stream + 1));
  return splitmix64(state);
}

void fill_random_halves(std::span<std::uint16_t> out, std::uint64_t seed) {
  Xoshiro256 rng(seed);
  for (auto& h : out) {
    std::uint16_t bits = 0;
    // Values within 2^-25 of zero round to a signed zero in FP16; draw again (about one draw in 2^24).
    do {
      bits = float_to_half_bits(static_cast<float>(rng.uniform_pm1()));
    } while ((bits & 0x7fffu) == 0);
    h = bits;
  }
}

void fill_random_floats(std::span<float> out, std::uint64_t seed) {
  Xoshiro256 rng(seed);
  for (auto& f : out) {
    float v = 0;
    do {
      v = static_cast<float>(rng.uniform_pm1());
    } while (v == 0.0f);
    f = v;
  }
}

}  // namespace mpgemm
