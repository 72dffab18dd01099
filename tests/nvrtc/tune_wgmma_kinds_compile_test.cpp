// Without a GPU: the Hopper kernel compiles for sm_90a under NVRTC for every problem kind the family computes
// (A stored M x K or K x M, B stored K x N or N x K, FP16 or BF16 in, FP32, FP16 or BF16 out, beta or not), and
// what it compiles is that kind. Every kind on every config would be thousands of compiles; CI's two cores get a sample
// of one config per kind, rotating through the suite space's named points and configs cut like its winners (every
// epilogue, swap-AB with deep stages, pingpong, a 2x1 cluster's multicast, split-K and stream-K), so that each config
// meets several kinds. Each cubin: the bf16 wgmma exactly when the inputs are BF16, transposed wgmma operands (tnspA,
// tnspB) as the layouts ask, no spill, no local memory, no ptxas warning; a 16-bit D converted by packing instructions
// and stored in 16-bit or packed form (no FP32 pair or quad store, but for a split tile's FP32 partial sums); C read
// exactly when the kind reads it (or a split tile's slices read the partial sums). A combination the family refuses (A
// stored K x M swapped) is not compiled, and says why.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "codegen/family.hpp"
#include "codegen/wgmma_family.hpp"
#include "compile/compile_pool.hpp"
#include "space/space.hpp"
#include "support/run_command.hpp"
#include "support/sass.hpp"
#include "tune/candidates.hpp"

using namespace mpgemm;
using namespace mpgemm::testing;

namespace {

constexpr int kConfigsPerKind = 1;  // 48 compiles: about a minute and a half on two cores

// The suite space's named points, then configs cut like the suite's winners and its split points.
std::vector<WgmmaConfig> sample_configs() {
  std::vector<WgmmaConfig> out;
  const Space space = load_space(source("configs/sm90a_suite.json"));
  for (const auto& c : build_candidates(space, family(space.family)))
    if (c.alias) out.push_back(WgmmaConfig::from_params(c.params));
  const auto config = [](int bm, int bn, int stages, int consumers, WgmmaSchedule schedule, WgmmaEpilogue epilogue,
                         int c_buffers) {
    WgmmaConfig c;
    c.bm = bm;
    c.bn = bn;
    c.stages = stages;
    c.consumers = consumers;
    c.schedule = schedule;
    c.epilogue = epilogue;
    c.c_buffers = c_buffers;
    c.l2_promotion = 128;
    return c;
  };
  using S = WgmmaSchedule;
  using E = WgmmaEpilogue;
  WgmmaConfig deep_swap = config(16, 64, 5, 1, S::cooperative, E::direct, 0);
  deep_swap.swap_ab = true;
  deep_swap.bk = 256;
  deep_swap.dependent_launch = DependentLaunch::early;
  out.push_back(deep_swap);
  WgmmaConfig swap = config(64, 128, 9, 2, S::cooperative, E::direct, 0);
  swap.swap_ab = true;
  out.push_back(swap);
  out.push_back(config(64, 64, 12, 2, S::pingpong, E::direct, 0));
  out.push_back(config(128, 64, 9, 2, S::cooperative, E::rows, 0));
  WgmmaConfig cluster = config(128, 192, 4, 2, S::cooperative, E::tma, 2);
  cluster.cluster_m = 2;
  out.push_back(cluster);
  out.push_back(config(128, 128, 5, 2, S::pingpong, E::tma, 4));
  WgmmaConfig split = config(128, 128, 6, 2, S::cooperative, E::direct, 0);
  split.split_k = 4;
  out.push_back(split);
  WgmmaConfig stream = config(128, 128, 6, 2, S::cooperative, E::direct, 0);
  stream.split_mode = SplitMode::stream;
  out.push_back(stream);
  // Without repeats: some of the cuts above are also named points (linear_small_m, linear_decode_deep).
  std::vector<WgmmaConfig> unique;
  for (const WgmmaConfig& c : out)
    if (std::find(unique.begin(), unique.end(), c) == unique.end()) unique.push_back(c);
  return unique;
}

struct Case {
  WgmmaConfig config;
  ProblemKind kind;
};

// A compile that succeeded cleanly: no spill, no stack, no ptxas warning, no local memory in `sass` (its SASS,
// disassembled here). Fatal when it did not compile.
void expect_clean(const CompileResult& r, const std::string& name, std::string& sass) {
  ASSERT_EQ(r.status, Status::ok) << name << "\n" << r.log;
  EXPECT_EQ(r.spill_store_bytes, 0) << name;
  EXPECT_EQ(r.spill_load_bytes, 0) << name;
  EXPECT_EQ(r.stack_bytes, 0) << name;
  EXPECT_TRUE(r.warnings.empty()) << name << ": " << r.warnings.front().message;
  sass = disassemble(r.cubin);
  EXPECT_EQ(sass.find("LDL"), std::string::npos) << name << " reads local memory";
  EXPECT_EQ(sass.find("STL"), std::string::npos) << name << " writes local memory";
}

// Global loads (LDG; not the TMA's UTMALDG).
bool loads_global(const std::string& sass) {
  static const std::regex ldg(R"(\sLDG\.)");
  return std::regex_search(sass, ldg);
}

TEST(WgmmaKindsCompile, EveryKindOnASampleOfSuiteConfigsCompilesToThatKind) {
  const std::vector<WgmmaConfig> configs = sample_configs();
  ASSERT_EQ(configs.size(), 13u);
  const Family& fam = family("wgmma");
  const Shape shape{4096, 4096, 4096};
  std::vector<Case> cases;
  std::vector<KernelSpec> specs;
  std::size_t refused = 0, index = 0;
  for (const ProblemKind& kind : ProblemKind::all()) {
    // Kind i starts at config 7i (7 is prime to the configs' count, so each config starts some kind's search).
    std::size_t next = 7 * index++;
    ASSERT_EQ(fam.check_kind(kind), std::nullopt) << kind.name();
    for (int taken = 0; taken < kConfigsPerKind;) {
      const WgmmaConfig c = configs[next++ % configs.size()];
      if (const auto why = fam.check_problem(c.to_params(), {shape, kind})) {
        ++refused;
        EXPECT_TRUE(c.swap_ab && kind.a == ALayout::km) << c.name() << " " << kind.name() << ": " << *why;
        EXPECT_NE(why->find(kind.name()), std::string::npos) << *why;
        continue;
      }
      cases.push_back({c, kind});
      specs.push_back(fam.kernel_spec(c.to_params(), Arch{9, 0, false}, kind));
      ++taken;
    }
  }
  EXPECT_EQ(cases.size(), 48u * kConfigsPerKind);
  EXPECT_GT(refused, 0u) << "the sample meets swap-AB with A stored K x M";
  EXPECT_GE(std::count_if(cases.begin(), cases.end(),
                          [](const Case& c) { return c.config.splits() && c.kind.out != ElementType::fp32; }),
            2)
      << "the sample meets split-K with a 16-bit D";
  std::set<std::string> configs_met;
  for (const auto& c : cases) configs_met.insert(c.config.name());
  EXPECT_EQ(configs_met.size(), configs.size()) << "every sampled config meets some kind";

  const std::vector<PooledCompile> results = compile_all(specs);
  ASSERT_EQ(results.size(), cases.size());
  const std::regex hgmma(R"(HGMMA\.64x(\d+)x16\.F32(\.BF16)?)");
  for (std::size_t i = 0; i < results.size(); ++i) {
    const CompileResult& r = results[i].result;
    const WgmmaConfig& c = cases[i].config;
    const ProblemKind& kind = cases[i].kind;
    const std::string name = c.name() + " " + kind.name();
    std::string sass;
    expect_clean(r, name, sass);
    if (HasFatalFailure()) return;
    EXPECT_EQ(r.arch.str(), "sm_90a") << name;
    // The wgmma of the kind's input type, of the config's N (BN, or BM when swapped), and no other.
    const bool bf16 = kind.in == ElementType::bf16;
    std::size_t wgmmas = 0;
    for (std::sregex_iterator it(sass.begin(), sass.end(), hgmma), end; it != end; ++it, ++wgmmas) {
      EXPECT_EQ((*it)[2].matched, bf16) << name << ": " << it->str();
      EXPECT_EQ(std::stoi((*it)[1].str()), c.swap_ab ? c.bm : c.bn) << name << ": " << it->str();
    }
    EXPECT_GT(wgmmas, 0u) << name << " has no warpgroup MMA";
    // The operands' major-ness as the SASS shows it: the wgmma A is transposed (M-major) when A is stored K x M, or
    // swapped when B is stored K x N; the wgmma B (N-major) when B is stored K x N, unswapped.
    const bool kn = kind.b == BLayout::kn;
    EXPECT_EQ(sass.find(".tnspA") != std::string::npos, c.swap_ab ? kn : kind.a == ALayout::km) << name;
    EXPECT_EQ(sass.find(".tnspB") != std::string::npos, !c.swap_ab && kn) << name;
    // D's conversion and stores.
    const std::string pack = kind.out == ElementType::bf16 ? "F2FP.BF16.F32.PACK_AB" : "F2FP.F16.F32.PACK_AB";
    if (kind.out == ElementType::fp32) {
      EXPECT_EQ(sass.find("F2FP"), std::string::npos) << name << " converts an FP32 D";
    } else {
      EXPECT_NE(sass.find(pack), std::string::npos) << name << " has no " << pack;
      EXPECT_EQ(sass.find("STG.E.128"), std::string::npos) << name << " stores FP32 quads";
      if (c.epilogue == WgmmaEpilogue::direct) {
        // Split: the earlier slices' FP32 partial sums go to the workspace in pairs (single floats when swapped);
        // else no FP32 pair is stored.
        EXPECT_EQ(sass.find("STG.E.64") != std::string::npos, c.splits() && !c.swap_ab) << name << " FP32 pair stores";
      }
      if (c.epilogue == WgmmaEpilogue::direct && c.swap_ab) {
        EXPECT_NE(sass.find("STG.E.U16"), std::string::npos) << name << ": swapped, single 16-bit stores";
      }
      if (c.epilogue == WgmmaEpilogue::rows) {
        EXPECT_NE(sass.find("STG.E.64"), std::string::npos) << name << ": 4 16-bit columns per lane";
      }
      if (c.epilogue == WgmmaEpilogue::tma) {
        EXPECT_NE(sass.find("UTMASTG"), std::string::npos) << name << ": TMA stores of 16-bit sub-tiles";
      }
    }
    // C is read exactly when the kind reads it, besides a split tile's later slices reading D or the partial sums.
    const bool reads = kind.beta || c.splits();
    EXPECT_EQ(loads_global(sass), reads) << name;
  }
}

// Issue 60's fused epilogues on every way out of the kernel: each epilogue on three configs of the sample (rotating
// through the direct, swapped, rows, tma, split-K and stream-K ones) and a linear layer's kinds. Each cubin: no spill,
// no local memory, no ptxas warning; the bias read (global loads, where the same config and kind without an epilogue
// may read none); the exponential of the GELU forms (MUFU.EX2), and none without them.
TEST(WgmmaKindsCompile, EveryEpilogueOnEveryWayOutCompiles) {
  const std::vector<WgmmaConfig> configs = sample_configs();
  const Family& fam = family("wgmma");
  const Shape shape{4096, 4096, 4096};
  const std::vector<std::string> bases = {"mk_nk_bf16_bf16", "mk_nk_fp16_fp16", "mk_kn_fp16_fp32",
                                          "mk_nk_bf16_bf16_beta"};
  std::vector<Case> cases;
  std::vector<KernelSpec> specs;
  std::set<WgmmaEpilogue> ways;
  bool split = false, swapped = false;
  std::size_t next = 0;
  for (const Epilogue e : {Epilogue::bias, Epilogue::bias_relu, Epilogue::bias_gelu_tanh, Epilogue::bias_gelu}) {
    for (int taken = 0; taken < 3; ++next) {
      const WgmmaConfig c = configs[(5 * next + 1) % configs.size()];
      ProblemKind kind = *ProblemKind::parse(bases[next % bases.size()]);
      kind.epilogue = e;
      if (fam.check_problem(c.to_params(), {shape, kind})) continue;
      cases.push_back({c, kind});
      specs.push_back(fam.kernel_spec(c.to_params(), Arch{9, 0, false}, kind));
      ways.insert(c.epilogue);
      split = split || c.splits();
      swapped = swapped || c.swap_ab;
      ++taken;
    }
  }
  ASSERT_EQ(cases.size(), 12u);
  EXPECT_EQ(ways.size(), 3u) << "direct, tma and rows all meet an epilogue";
  EXPECT_TRUE(split) << "a split config meets an epilogue";
  EXPECT_TRUE(swapped) << "a swapped config meets an epilogue";

  const std::vector<PooledCompile> results = compile_all(specs);
  ASSERT_EQ(results.size(), cases.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    const CompileResult& r = results[i].result;
    const ProblemKind& kind = cases[i].kind;
    const std::string name = cases[i].config.name() + " " + kind.name();
    std::string sass;
    expect_clean(r, name, sass);
    if (HasFatalFailure()) return;
    EXPECT_NE(sass.find("HGMMA.64x"), std::string::npos) << name;
    EXPECT_TRUE(loads_global(sass)) << name << " never reads its bias";
    const bool gelu = kind.epilogue == Epilogue::bias_gelu_tanh || kind.epilogue == Epilogue::bias_gelu;
    EXPECT_EQ(sass.find("MUFU.EX2") != std::string::npos, gelu) << name;
  }
}

}  // namespace
