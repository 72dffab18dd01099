// Family::check_kind, a family's answer to "does it compute this problem kind?" (issue 58): every registered family
// computes the default kind, and refuses the kinds its kernels do not take naming itself and the kind. The wgmma
// family computes every kind (either layout of A and of B, FP16 or BF16 in, any output, beta or not); the others
// compute the default kind only.
#include <gtest/gtest.h>

#include <string>

#include "codegen/family.hpp"

namespace mpgemm {
namespace {

TEST(FamilyKinds, EveryFamilyComputesTheDefaultKindAndNamesWhatItRefuses) {
  ASSERT_FALSE(family_names().empty());
  for (const std::string_view name : family_names()) {
    const Family& f = family(name);
    EXPECT_EQ(f.check_kind(ProblemKind{}), std::nullopt) << name;
    for (const ProblemKind& kind : ProblemKind::all()) {
      const auto why = f.check_kind(kind);
      const bool computes = kind.is_default() || name == "wgmma";
      EXPECT_EQ(!why.has_value(), computes) << name << " " << kind.name() << ": " << why.value_or("computes it");
      if (!why) continue;
      EXPECT_NE(why->find(std::string(name)), std::string::npos) << *why;
      EXPECT_NE(why->find(kind.name()), std::string::npos) << *why;
    }
  }
}

}  // namespace
}  // namespace mpgemm
