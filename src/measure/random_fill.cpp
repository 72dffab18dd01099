#include "measure/random_fill.hpp"

#include <algorithm>
#include <thread>
#include <vector>

#include "measure/fp16.hpp"

namespace mpgemm {

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t state = seed ^ (0xd1b54a32d192ed03ull * (stream + 1));
  return splitmix64(state);
}

namespace {

void fill_block(std::span<std::uint16_t> out, std::uint64_t seed, bool bf16) {
  Xoshiro256 rng(seed);
  for (auto& h : out) {
    std::uint16_t bits = 0;
    // Values within 2^-25 of zero round to a signed zero in FP16; draw again (about one draw in 2^24). BF16 keeps
    // FP32's exponent range: only an exact zero would.
    do {
      const auto v = static_cast<float>(rng.uniform_pm1());
      bits = bf16 ? float_to_bf16_bits(v) : float_to_half_bits(v);
    } while ((bits & 0x7fffu) == 0);
    h = bits;
  }
}

}  // namespace

void fill_random_halves(std::span<std::uint16_t> out, std::uint64_t seed, unsigned threads) {
  fill_random_16bit(out, seed, false, threads);
}

void fill_random_16bit(std::span<std::uint16_t> out, std::uint64_t seed, bool bf16, unsigned threads) {
  const std::size_t blocks = (out.size() + kRandomFillBlock - 1) / kRandomFillBlock;
  const auto fill = [&](std::size_t b) {
    fill_block(out.subspan(b * kRandomFillBlock, std::min(kRandomFillBlock, out.size() - b * kRandomFillBlock)),
               derive_seed(seed, b), bf16);
  };
  if (threads == 0) threads = std::clamp(std::thread::hardware_concurrency(), 1u, 16u);
  const std::size_t workers = std::min<std::size_t>(threads, blocks);
  if (workers <= 1) {
    for (std::size_t b = 0; b < blocks; ++b) fill(b);
    return;
  }
  // Block b goes to worker b % workers: every block is filled once, by its own generator.
  std::vector<std::jthread> pool;
  for (std::size_t w = 0; w < workers; ++w)
    pool.emplace_back([&, w] {
      for (std::size_t b = w; b < blocks; b += workers) fill(b);
    });
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
