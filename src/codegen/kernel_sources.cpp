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

namespace {
void collect_includes(std::string_view text, std::vector<KernelSource>& out) {
  std::size_t pos = 0;
  while ((pos = text.find("#include \"", pos)) != std::string_view::npos) {
    pos += 10;
    const auto end = text.find('"', pos);
    if (end == std::string_view::npos) break;
    const std::string_view name = text.substr(pos, end - pos);
    for (const auto& file : kernel_sources()) {
      if (file.name != name) continue;
      bool seen = false;
      for (const auto& s : out) seen = seen || s.name == name;
      if (!seen) {
        out.push_back(file);
        collect_includes(file.text, out);
      }
    }
  }
}
}  // namespace

std::vector<KernelSource> included_sources(std::string_view text) {
  std::vector<KernelSource> out;
  collect_includes(text, out);
  return out;
}

}  // namespace mpgemm
