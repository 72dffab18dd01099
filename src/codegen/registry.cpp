// The registered kernel families. Adding one: a line in registered(). Test-only families (tests/families) add
// themselves through register_family.
#include <memory>
#include <utility>

#include <fmt/format.h>

#include "codegen/family.hpp"
#include "codegen/wgmma_family.hpp"
#include "codegen/wmma_family.hpp"
#include "common/error.hpp"

namespace mpgemm {
namespace {

// Mutable only through register_family, which runs during static initialisation (before any lookup).
std::vector<std::unique_ptr<const Family>>& registered() {
  static auto all = [] {
    std::vector<std::unique_ptr<const Family>> v;
    v.push_back(std::make_unique<WmmaFamily>());
    v.push_back(std::make_unique<WgmmaFamily>());
    return v;
  }();
  return all;
}

}  // namespace

const Family& family(std::string_view name) {
  for (const auto& f : registered())
    if (f->name() == name) return *f;
  // The families a space may name, and apart from them the test-only ones this build links, so that a user is
  // not offered test_faulty as a kernel.
  std::vector<std::string_view> product, test_only;
  for (const auto& f : registered()) (f->test_only() ? test_only : product).push_back(f->name());
  throw Error(fmt::format(
      "no kernel family named \"{}\" (known: {}{})", name, fmt::join(product, ", "),
      test_only.empty() ? std::string()
                        : fmt::format("; test-only, linked by MPGEMM_TEST_FAMILIES: {}", fmt::join(test_only, ", "))));
}

void register_family(std::unique_ptr<const Family> f) {
  if (!f) throw Error("register_family: no family given");
  for (const auto& known : registered())
    if (known->name() == f->name())
      throw Error(fmt::format("a kernel family named \"{}\" is already registered", f->name()));
  registered().push_back(std::move(f));
}

std::vector<std::string_view> family_names() {
  std::vector<std::string_view> names;
  for (const auto& f : registered()) names.push_back(f->name());
  return names;
}

}  // namespace mpgemm
