#pragma once
// One reading of a whole number from command-line text (--shard I/N, --gpus 0,1, --shapes MxNxK): the whole of the
// text, decimal digits only, no sign, no spaces, in range of the type.
#include <charconv>
#include <optional>
#include <string_view>
#include <system_error>

namespace mpgemm {

// The value `text` spells, or nullopt when it is empty, has anything but digits, or overflows Int.
template <class Int>
std::optional<Int> parse_whole_number(std::string_view text) {
  if (text.empty() || text.front() < '0' || text.front() > '9') return std::nullopt;
  Int value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace mpgemm
