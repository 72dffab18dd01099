#pragma once
// The space loader's contract on any input, shared by the libFuzzer harness (fuzz/space_fuzz.cpp) and the
// corpus replay that CI runs without clang (unit/space_corpus_test.cpp): parse_space, and enumerate when the
// file loads, either succeed or throw a SpaceError whose what() is the one line
// "label:line:column: at /path: message". Anything else is a bug in src/space.
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>

#include "fuzz/contract.hpp"
#include "space/enumerate.hpp"
#include "space/space.hpp"

namespace mpgemm::fuzz {

// Enumeration is linear in the product (the loader refuses above 10M); above this many configs the input
// is only loaded, which keeps the fuzzer fast. Loading has already searched the product for a valid config.
inline constexpr std::uint64_t kMaxEnumerated = 100'000;

// Whether `what` is one line starting "<label>:<line>:<column>: at /".
inline bool well_formed(std::string_view what, std::string_view label) {
  if (what.find('\n') != std::string_view::npos || !what.starts_with(label)) return false;
  std::string_view rest = what.substr(label.size());
  for (int field = 0; field < 2; ++field) {
    if (!rest.starts_with(':')) return false;
    std::size_t digits = 1;
    while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
    if (digits == 1) return false;
    rest.remove_prefix(digits);
  }
  return rest.starts_with(": at /");
}

// Empty when the loader kept its contract on `text`; otherwise what it did wrong.
inline std::string check_space_input(std::string_view text) {
  try {
    Space space = parse_space(text, std::string(kLabel));
    if (product_size(space) <= kMaxEnumerated) enumerate(space);
  } catch (const SpaceError& e) {
    if (!well_formed(e.what(), kLabel)) return std::string("malformed SpaceError: ") + e.what();
  } catch (const std::exception& e) {
    return "threw " + type_name(e) + " instead of SpaceError: " + e.what();
  } catch (...) {
    return "threw something that is not a std::exception";
  }
  return "";
}

}  // namespace mpgemm::fuzz
