#include "tune/keys.hpp"

#include <set>
#include <string_view>

#include <fmt/format.h>

#include "codegen/kernel_sources.hpp"
#include "common/hash.hpp"

namespace mpgemm {

namespace {
// Adds `text` and, recursively, every embedded kernel file it includes with #include "name", once each: a change
// to another family's file must not invalidate this family's results.
void add_with_includes(Hasher& h, std::string_view text, std::set<std::string>& seen) {
  h.add(text);
  std::size_t pos = 0;
  while ((pos = text.find("#include \"", pos)) != std::string_view::npos) {
    pos += 10;
    auto end = text.find('"', pos);
    if (end == std::string_view::npos) break;
    std::string name(text.substr(pos, end - pos));
    for (const auto& file : kernel_sources()) {
      if (file.name == name && seen.insert(name).second) {
        h.add(name);
        add_with_includes(h, file.text, seen);
      }
    }
  }
}
}  // namespace

std::string source_hash(const KernelSpec& spec) {
  Hasher h;
  std::set<std::string> seen;
  add_with_includes(h, spec.source, seen);
  h.add(spec.name_expression);
  return h.hex();
}

std::string result_key(const Candidate& candidate, const std::string& compile_key, const DeviceDescription& device,
                       const Shape& shape, const MeasureSettings& settings) {
  Hasher h;
  h.add(candidate.family).add(to_json(candidate.params).dump()).add(compile_key);
  h.add(device.name).add(device.arch.str()).add(device.driver_version).add(device.cublas_version);
  h.add(shape.m).add(shape.n).add(shape.k);
  h.add(fmt::format("{:.9g}/{:.9g}", settings.atol, settings.rtol));
  h.add(settings.warmup).add(settings.runs).add(settings.iters);
  return h.hex();
}

}  // namespace mpgemm
