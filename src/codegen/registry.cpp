// The registered kernel families. Adding one: a line in registered().
#include <memory>

#include <fmt/format.h>

#include "codegen/family.hpp"
#include "codegen/wmma_family.hpp"
#include "common/error.hpp"

namespace mpgemm {
namespace {

const std::vector<std::unique_ptr<const Family>>& registered() {
  static const auto all = [] {
    std::vector<std::unique_ptr<const Family>> v;
    v.push_back(std::make_unique<WmmaFamily>());
    return v;
  }();
  return all;
}

}  // namespace

const Family& family(std::string_view name) {
  for (const auto& f : registered())
    if (f->name() == name) return *f;
  throw Error(fmt::format("no kernel family named \"{}\" (known: {})", name, fmt::join(family_names(), ", ")));
}

std::vector<std::string_view> family_names() {
  std::vector<std::string_view> names;
  for (const auto& f : registered()) names.push_back(f->name());
  return names;
}

}  // namespace mpgemm
