#pragma once
// Near-miss suggestions for error messages ("unknown name 'WX' (did you mean 'WM'?)").
#include <cstddef>
#include <string_view>

namespace mpgemm {

// Levenshtein distance: single-character insertions, deletions and substitutions.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The largest distance at which `name` is still a near miss worth suggesting: 1 for names of up to 3 characters
// (for "WX", every two-letter name is at distance 2), else a third of its length but at least 2.
inline std::size_t suggestion_limit(std::string_view name) {
  if (name.size() <= 3) return 1;
  return name.size() / 3 > 2 ? name.size() / 3 : 2;
}

}  // namespace mpgemm
