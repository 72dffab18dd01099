// --only: substrings select every config that contains them; '=' selects one whole name.
#include <gtest/gtest.h>

#include "tune/only.hpp"

namespace mpgemm {
namespace {

const std::string kPdl = "wgmma_bm128_bn128_bk64_s6_c2_pingpong_cl1x1_m8_tma2_pers_pdl";
const std::string kPdlx = kPdl + "x";

TEST(TuneOnly, ASubstringSelectsEveryNameThatContainsIt) {
  EXPECT_TRUE(only_selects(kPdl, std::nullopt, {"pingpong"}));
  EXPECT_TRUE(only_selects(kPdlx, std::nullopt, {"pingpong"}));
  EXPECT_TRUE(only_selects(kPdlx, std::nullopt, {kPdl}));  // a whole name is a substring of the longer one
  EXPECT_FALSE(only_selects(kPdl, std::nullopt, {"coop"}));
  EXPECT_TRUE(only_selects(kPdl, std::nullopt, {"coop", "pers_pdl"}));  // any entry
}

TEST(TuneOnly, AnEqualsEntrySelectsOnlyThatWholeName) {
  EXPECT_TRUE(only_selects(kPdl, std::nullopt, {"=" + kPdl}));
  EXPECT_FALSE(only_selects(kPdlx, std::nullopt, {"=" + kPdl}));
  EXPECT_FALSE(only_selects(kPdl, std::nullopt, {"=pingpong"}));
  EXPECT_TRUE(only_selects(kPdlx, std::nullopt, {"=" + kPdl, "=" + kPdlx}));
}

TEST(TuneOnly, PointNamesCountLikeConfigNames) {
  const std::optional<std::string> alias = "wmma_cp_async";
  const std::string name = "wmma_cp_async_bm128_bn128_bk32_s2_w64x64_p8x8";
  EXPECT_TRUE(only_selects(name, alias, {"=wmma_cp_async"}));
  EXPECT_TRUE(only_selects(name, alias, {"cp_async"}));
  EXPECT_FALSE(only_selects(name, std::nullopt, {"=wmma_cp_async"}));  // without the point name: not whole
  EXPECT_FALSE(only_selects(name, alias, {"=wmma_cp"}));
}

TEST(TuneOnly, NoEntrySelectsNothing) {
  EXPECT_FALSE(only_selects(kPdl, std::nullopt, {}));
  EXPECT_FALSE(only_selects(kPdl, std::nullopt, {"="}));  // an empty whole name is no config's
}

}  // namespace
}  // namespace mpgemm
