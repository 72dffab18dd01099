#include "common/hash.hpp"

#include <fmt/format.h>

namespace mpgemm {

std::uint64_t fnv1a64(std::string_view data, std::uint64_t seed) {
  std::uint64_t h = seed;
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

Hasher& Hasher::add(std::string_view part) {
  // Length-prefix each part so ("ab","c") and ("a","bc") differ.
  state_ = fnv1a64(std::to_string(part.size()) + ":", state_);
  state_ = fnv1a64(part, state_);
  return *this;
}

Hasher& Hasher::add(std::int64_t value) {
  return add(std::to_string(value));
}

std::string Hasher::hex() const {
  return fmt::format("{:016x}", state_);
}

}  // namespace mpgemm
