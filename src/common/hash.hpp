#pragma once
// Content hashes used as keys: a config's source hash, a compilation key, a measurement's result key.
// FNV-1a 64-bit, printed as 16 hex digits: stable across machines and builds, not cryptographic.
#include <cstdint>
#include <string>
#include <string_view>

namespace mpgemm {

std::uint64_t fnv1a64(std::string_view data, std::uint64_t seed = 14695981039346656037ull);

// Hashes the parts in order with a separator that cannot be confused with their content.
class Hasher {
 public:
  Hasher& add(std::string_view part);
  Hasher& add(std::int64_t value);
  std::string hex() const;  // 16 lowercase hex digits

 private:
  std::uint64_t state_ = 14695981039346656037ull;
};

}  // namespace mpgemm
