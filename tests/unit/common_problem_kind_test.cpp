// ProblemKind (issue 58): the name round trip for every kind, the default kind's empty key (every existing result
// key stays), every field changing the name and the key, and one-line refusals naming the part that is wrong.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "common/problem_kind.hpp"

namespace mpgemm {
namespace {

TEST(ProblemKind, TheDefaultIsTodaysProblemWithAnEmptyKey) {
  const ProblemKind kind;
  EXPECT_TRUE(kind.is_default());
  EXPECT_EQ(kind.name(), "mk_kn_fp16_fp32");
  EXPECT_EQ(kind.key(), "");
  EXPECT_EQ(ProblemKind::all().front(), kind);
}

TEST(ProblemKind, EveryKindsNameParsesBackToIt) {
  const auto kinds = ProblemKind::all();
  EXPECT_EQ(kinds.size(), 2u * 2 * 2 * 3 * 2);
  std::set<std::string> seen_names, seen_keys;
  for (const ProblemKind& kind : kinds) {
    std::string why;
    const auto back = ProblemKind::parse(kind.name(), &why);
    ASSERT_TRUE(back) << kind.name() << ": " << why;
    EXPECT_EQ(*back, kind) << kind.name();
    EXPECT_TRUE(seen_names.insert(kind.name()).second) << "two kinds named " << kind.name();
    EXPECT_TRUE(seen_keys.insert(kind.key()).second) << "two kinds keyed " << kind.key();
    if (!kind.is_default()) {
      EXPECT_EQ(kind.key(), "problem=" + kind.name());
    }
  }
}

// A linear layer's forward pass, its two backward GEMMs, and a 16-bit output reading C.
TEST(ProblemKind, TheKindsALinearLayerRuns) {
  EXPECT_EQ((ProblemKind{ALayout::mk, BLayout::nk, ElementType::bf16, ElementType::bf16}).name(), "mk_nk_bf16_bf16");
  EXPECT_EQ((ProblemKind{ALayout::mk, BLayout::kn, ElementType::bf16, ElementType::bf16}).name(), "mk_kn_bf16_bf16");
  EXPECT_EQ((ProblemKind{ALayout::km, BLayout::kn, ElementType::bf16, ElementType::fp32}).name(), "km_kn_bf16_fp32");
  EXPECT_EQ((ProblemKind{ALayout::mk, BLayout::kn, ElementType::fp16, ElementType::fp16, true}).name(),
            "mk_kn_fp16_fp16_beta");
  EXPECT_EQ(bytes_of(ElementType::bf16), 2);
  EXPECT_EQ(bytes_of(ElementType::fp32), 4);
}

TEST(ProblemKind, EachFieldChangesTheKey) {
  const ProblemKind base;
  ProblemKind k = base;
  k.a = ALayout::km;
  EXPECT_NE(k.key(), base.key());
  k = base;
  k.b = BLayout::nk;
  EXPECT_NE(k.key(), base.key());
  k = base;
  k.in = ElementType::bf16;
  EXPECT_NE(k.key(), base.key());
  k = base;
  k.out = ElementType::bf16;
  EXPECT_NE(k.key(), base.key());
  k = base;
  k.beta = true;
  EXPECT_NE(k.key(), base.key());
  k = base;
  k.epilogue = Epilogue::bias;
  EXPECT_NE(k.key(), base.key());
}

// Issue 60's epilogues: every kind with each one names and parses back, none adds nothing to a name, and an
// epilogue follows "_beta" (the name's order is the arithmetic's: beta * C, then bias, then the activation).
TEST(ProblemKind, EveryEpilogueNamesItsKindAndParsesBack) {
  const auto kinds = ProblemKind::all_with_epilogues();
  EXPECT_EQ(kinds.size(), ProblemKind::all().size() * 5);
  EXPECT_EQ(kinds.front(), ProblemKind{});
  std::set<std::string> names;
  for (const ProblemKind& kind : kinds) {
    std::string why;
    const auto back = ProblemKind::parse(kind.name(), &why);
    ASSERT_TRUE(back) << kind.name() << ": " << why;
    EXPECT_EQ(*back, kind) << kind.name();
    EXPECT_TRUE(names.insert(kind.name()).second) << kind.name();
    EXPECT_EQ(kind.has_bias(), kind.epilogue != Epilogue::none);
  }
  ProblemKind k{ALayout::mk, BLayout::nk, ElementType::bf16, ElementType::bf16};
  k.epilogue = Epilogue::bias_gelu_tanh;
  EXPECT_EQ(k.name(), "mk_nk_bf16_bf16_bias_gelu_tanh");
  k.beta = true;
  k.epilogue = Epilogue::bias;
  EXPECT_EQ(k.name(), "mk_nk_bf16_bf16_beta_bias");
  EXPECT_EQ(k.key(), "problem=mk_nk_bf16_bf16_beta_bias");
  EXPECT_EQ(to_string(Epilogue::bias_gelu), "bias_gelu");
  EXPECT_EQ(to_string(Epilogue::bias_relu), "bias_relu");
}

TEST(ProblemKind, WhatIsNotAKindIsRefusedNamingThePart) {
  const auto why = [](const std::string& text) {
    std::string reason;
    EXPECT_FALSE(ProblemKind::parse(text, &reason)) << text;
    return reason;
  };
  EXPECT_NE(why("mk_kn_fp16").find("3 parts, expected 4 or more"), std::string::npos);
  EXPECT_NE(why("nm_kn_fp16_fp32").find("A's layout 'nm' is none of mk, km"), std::string::npos);
  EXPECT_NE(why("mk_mk_fp16_fp32").find("B's layout 'mk' is none of kn, nk"), std::string::npos);
  EXPECT_NE(why("mk_kn_fp32_fp32").find("the input type 'fp32' is none of fp16, bf16"), std::string::npos);
  EXPECT_NE(why("mk_kn_fp16_fp8").find("the output type 'fp8' is none of fp32, fp16, bf16"), std::string::npos);
  EXPECT_NE(why("mk_kn_fp16_fp32_alpha")
                .find("'alpha' where only 'beta' and then an epilogue (bias, bias_relu, bias_gelu_tanh, bias_gelu) "
                      "may follow"),
            std::string::npos);
  EXPECT_NE(why("mk_kn_fp16_fp32_bias_beta").find("'bias_beta' where only 'beta' and then an epilogue"),
            std::string::npos);
  EXPECT_NE(why("mk_kn_fp16_fp32_beta_gelu").find("'gelu' where only an epilogue (bias,"), std::string::npos);
  EXPECT_FALSE(ProblemKind::parse("mk_kn_fp16_fp32_none"));
  EXPECT_FALSE(ProblemKind::parse("mk_kn_fp16_fp32_bias_"));
  EXPECT_FALSE(ProblemKind::parse("mk_kn_fp16_fp32_bias_bias"));
  EXPECT_NE(why("MK_KN_FP16_FP32").find("the default is mk_kn_fp16_fp32"), std::string::npos);
  EXPECT_NE(why("").find("is not a problem kind"), std::string::npos);
  EXPECT_FALSE(ProblemKind::parse("mk_kn_fp16_fp32_beta_beta"));
  EXPECT_FALSE(ProblemKind::parse("mk_kn_fp16_fp32 "));
}

// The strides each layout implies, and how a problem is named: a default-kind problem as today's shape.
// The vendor computes FP16 -> FP16/FP32 and BF16 -> BF16/FP32; the crossed 16-bit kinds have no reference.
TEST(ProblemKind, TheCrossed16BitKindsHaveNoReference) {
  int gaps = 0;
  for (const ProblemKind& k : ProblemKind::all()) {
    const auto gap = k.reference_gap();
    const bool crossed = k.out != ElementType::fp32 && k.out != k.in;
    EXPECT_EQ(gap.has_value(), crossed) << k.name();
    if (gap) {
      EXPECT_NE(gap->find(k.name()), std::string::npos) << *gap;
      ++gaps;
    }
  }
  EXPECT_EQ(gaps, 16);  // 2 crossed type pairs x 4 layouts x beta or not
  EXPECT_FALSE(ProblemKind::parse("mk_nk_bf16_bf16")->reference_gap());
  EXPECT_TRUE(ProblemKind::parse("mk_nk_bf16_fp16")->reference_gap());
  // A fused epilogue has a reference (the vendor's GEMM, then the epilogue); the crossed types still have none.
  EXPECT_FALSE(ProblemKind::parse("mk_nk_bf16_bf16_bias_gelu")->reference_gap());
  EXPECT_TRUE(ProblemKind::parse("mk_nk_bf16_fp16_bias")->reference_gap());
}

TEST(GemmProblem, StridesFollowTheLayoutsAndTheDefaultKindPrintsAsAShape) {
  GemmProblem p{Shape{128, 4096, 11008}, ProblemKind{}};
  EXPECT_EQ(p.str(), "128x4096x11008");
  EXPECT_EQ(p.lda(), 11008);  // A stored M x K
  EXPECT_EQ(p.ldb(), 4096);   // B stored K x N
  EXPECT_EQ(p.ldd(), 4096);
  EXPECT_DOUBLE_EQ(p.compulsory_bytes(), (128.0 * 11008 + 11008.0 * 4096) * 2 + 128.0 * 4096 * 4);
  p.kind = *ProblemKind::parse("km_nk_bf16_bf16_beta");
  EXPECT_EQ(p.str(), "128x4096x11008 km_nk_bf16_bf16_beta");
  EXPECT_EQ(p.lda(), 128);    // A stored K x M
  EXPECT_EQ(p.ldb(), 11008);  // B stored N x K: a linear layer's weight
  EXPECT_DOUBLE_EQ(p.compulsory_bytes(), (128.0 * 11008 + 11008.0 * 4096) * 2 + 128.0 * 4096 * 2 * 2);
  p.kind.epilogue = Epilogue::bias_relu;  // the bias: N values of D's type
  EXPECT_DOUBLE_EQ(p.compulsory_bytes(), (128.0 * 11008 + 11008.0 * 4096) * 2 + 128.0 * 4096 * 2 * 2 + 4096.0 * 2);
}

}  // namespace
}  // namespace mpgemm
