// Family::check_kind, a family's answer to "does it compute this problem kind?" (issue 58): every registered family
// computes the default kind, and refuses every other kind naming itself and the kind, until its kernels take them.
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
      if (kind.is_default()) continue;
      const auto why = f.check_kind(kind);
      ASSERT_TRUE(why.has_value()) << name << " " << kind.name();
      EXPECT_NE(why->find(std::string(name)), std::string::npos) << *why;
      EXPECT_NE(why->find(kind.name()), std::string::npos) << *why;
    }
  }
}

}  // namespace
}  // namespace mpgemm
