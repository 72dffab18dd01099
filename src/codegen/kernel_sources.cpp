#include "codegen/kernel_sources.hpp"

#include <fmt/format.h>

#include "common/error.hpp"

namespace mpgemm {

std::string_view kernel_source(std::string_view name) {
  for (const auto& s : kernel_sources())
    if (s.name == name) return s.text;
  std::string known;
  for (const auto& s : kernel_sources()) known += (known.empty() ? "" : ", ") + std::string(s.name);
  throw Error(fmt::format("no embedded kernel file named {} (known: {})", name, known));
}

}  // namespace mpgemm
