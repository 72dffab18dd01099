#include "measure/random_fill.hpp"

#include "measure/fp16.hpp"

namespace mpgemm {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t state = seed ^ (0xd1b54a32d192ed03ull * (stream + 1));
  return splitmix64(state);
}

namespace {
constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

Xoshiro256::Xoshiro256(std::uint64_t seed) {
  std::uint64_t state = seed;
  for (auto& s : s_) s = splitmix64(state);  // splitmix64 never yields four zeros in a row
}

std::uint64_t Xoshiro256::next() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Xoshiro256::uniform_pm1() {
  const double unit = static_cast<double>(next() >> 11) * 0x1.0p-53;  // [0, 1)
  return 2.0 * unit - 1.0;
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
