#pragma once
// The one portable random generator: xoshiro256** (Blackman and Vigna) seeded through splitmix64. The same seed
// gives the same draws on every machine, compiler and standard library (std::uniform_int_distribution does not),
// so test inputs and a strategy's seed replay exactly.
#include <cstdint>

namespace mpgemm {

// splitmix64: advances `state` and returns the next value; seeds the generator and derives independent seeds.
std::uint64_t splitmix64(std::uint64_t& state);

class Xoshiro256 {
 public:
  explicit Xoshiro256(std::uint64_t seed);
  std::uint64_t next();
  std::uint64_t below(std::uint64_t n);  // uniform in [0, n), n > 0, without modulo bias
  double uniform();                      // uniform in [0, 1), 53 random bits
  double uniform_pm1();                  // uniform in [-1, 1)

 private:
  std::uint64_t s_[4];
};

}  // namespace mpgemm
