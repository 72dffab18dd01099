// Without a GPU: the Hopper family's space compiles for sm_90a under NVRTC, and what it compiles is the wgmma path.
// The whole of configs/sm90a.json (thousands of configs at ~1.5 s each) would take CI's two cores hours, so the test
// compiles its named points plus a fixed, seeded sample of its enumerated configs, as its name says. Every cubin must
// hold HGMMA (warpgroup MMA) and no HMMA (the mma.sync path), spill nothing and draw no ptxas performance warning.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

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

constexpr std::uint32_t kSampleSeed = 20261130;
constexpr std::size_t kSampleSize = 24;

// The named points, then kSampleSize enumerated configs drawn without replacement by a fixed seed.
std::vector<Candidate> points_and_sample(const std::string& space_file) {
  const Space space = load_space(source(space_file));
  std::vector<Candidate> all = build_candidates(space, family(space.family));
  std::vector<Candidate> out, rest;
  for (auto& c : all) (c.alias ? out : rest).push_back(std::move(c));
  std::mt19937 rng(kSampleSeed);
  std::shuffle(rest.begin(), rest.end(), rng);
  rest.resize(std::min(rest.size(), kSampleSize));
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

// Compiles the space's named points and seeded sample (no cache) and checks every cubin is the wgmma path.
// `also`: SASS every cubin must hold besides HGMMA (empty: nothing more).
void expect_points_and_sample_compile_to_hgmma(const std::string& space_file, std::size_t named_points,
                                               const std::string& also = "") {
  const std::vector<Candidate> candidates = points_and_sample(space_file);
  ASSERT_EQ(candidates.size(), named_points + kSampleSize);
  const Family& fam = family("wgmma");
  std::vector<KernelSpec> specs;
  for (const auto& c : candidates) specs.push_back(fam.kernel_spec(c.params, Arch{9, 0, false}));
  // No cache: NVRTC compiles every spec here, which is what this test checks.
  const std::vector<PooledCompile> results = compile_all(specs);
  ASSERT_EQ(results.size(), candidates.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    ASSERT_FALSE(results[i].from_cache);
    const CompileResult& r = results[i].result;
    const std::string& name = candidates[i].name;
    ASSERT_EQ(r.status, Status::ok) << name << "\n" << r.log;
    EXPECT_EQ(r.arch.str(), "sm_90a") << name;
    EXPECT_EQ(r.spill_store_bytes, 0) << name;
    EXPECT_EQ(r.spill_load_bytes, 0) << name;
    EXPECT_EQ(r.stack_bytes, 0) << name;
    EXPECT_TRUE(r.warnings.empty()) << name << ": " << r.warnings.front().message;
    EXPECT_GT(r.registers, 0) << name;
    const std::string sass = disassemble(r.cubin);
    EXPECT_NE(sass.find("HGMMA.64x"), std::string::npos) << name << " has no warpgroup MMA";
    EXPECT_EQ(sass.find("HMMA"), std::string::npos) << name << " uses the mma.sync path";
    EXPECT_EQ(sass.find("LDL"), std::string::npos) << name << " reads local memory";
    if (!also.empty()) {
      EXPECT_NE(sass.find(also), std::string::npos) << name << " has no " << also;
    }
  }
}

}  // namespace

TEST(WgmmaSpaceCompile, NamedPointsAndASeededSampleOfSm90aCompileToHgmma) {
  expect_points_and_sample_compile_to_hgmma("configs/sm90a.json", 6);
}

TEST(WgmmaSpaceCompile, NamedPointsAndASeededSampleOfTheSuiteSpaceCompileToHgmma) {
  // configs/sm90a_suite.json: small tiles and split-K (most of the sample is split).
  expect_points_and_sample_compile_to_hgmma("configs/sm90a_suite.json", 7);
}

TEST(WgmmaSpaceCompile, SuiteSpaceIsInsideTheFamilySplitsStreamsAndSwaps) {
  const Space space = load_space(source("configs/sm90a_suite.json"));
  const std::vector<Candidate> all = build_candidates(space, family(space.family));
  EXPECT_EQ(all.size(), 2818u) << "the enumerated configs in three launch modes and the named points";
  std::size_t split = 0, tail = 0, stream = 0, swapped = 0, swapped_small = 0, rows = 0, four_buffers = 0;
  // L2 promotion 128 besides 256, of the tiles that stream B (results/h200/ceilings/b_stream/).
  std::size_t swapped_128 = 0, bm64 = 0, bm64_128 = 0;
  // Deep stages (BK 128 and 256) for unsplit swapped tiles only (results/h200/suite/v22/).
  std::size_t deep = 0;
  std::map<DependentLaunch, std::size_t> modes;
  for (const auto& c : all) {
    EXPECT_TRUE(family("wgmma").check_config(c.params).empty()) << c.name;
    const WgmmaConfig config = WgmmaConfig::from_params(c.params);
    ++modes[config.dependent_launch];
    if (config.dependent_launch != DependentLaunch::none) continue;  // the same configs again, launched otherwise
    if (config.bk != 64) {
      ++deep;
      EXPECT_TRUE(config.swap_ab && !config.splits()) << c.name << ": deep stages are for unsplit, swapped tiles";
    }
    if (config.epilogue == WgmmaEpilogue::tma && config.c_buffers == 4) ++four_buffers;
    if (config.epilogue == WgmmaEpilogue::rows) {
      ++rows;
      EXPECT_FALSE(config.swap_ab || config.splits()) << c.name << ": rows is for unsplit, unswapped tiles";
    }
    if (config.swap_ab) {
      ++swapped;
      if (config.l2_promotion == 128) ++swapped_128;
      if (config.bm < 64) ++swapped_small;
      continue;
    }
    if (config.bm == 64) {
      ++bm64;
      if (config.l2_promotion == 128) ++bm64_128;
    }
    if (config.split_mode == SplitMode::stream) ++stream;
    if (config.split_k > 1) ++split;
    if (config.split_k > 1 && config.split_mode == SplitMode::tail) ++tail;
  }
  EXPECT_GT(split, 100u);
  EXPECT_EQ(tail * 2, split) << "every split count in both modes";
  EXPECT_GT(swapped_small, 100u) << "16- and 32-row swapped tiles for skinny M";
  EXPECT_GT(swapped, swapped_small);
  EXPECT_EQ(swapped_128 * 2, swapped) << "every swapped tile with L2 promotion 128 and 256";
  EXPECT_EQ(bm64_128 * 2, bm64) << "every unswapped 64-row tile with L2 promotion 128 and 256";
  EXPECT_EQ(stream, 11u) << "stream-K for the 128-row tiles";
  EXPECT_EQ(rows, 64u) << "the rows epilogue beside direct for every unsplit, unswapped tile, with L2 "
                          "promotion 128 and 256";
  EXPECT_EQ(four_buffers, 65u) << "the tma epilogue with 4 staging buffers beside 2 for every unsplit, unswapped "
                                  "tile with L2 promotion 128 and 256, and the named point "
                                  "suite_square_coop_tma (a balanced grid)";
  EXPECT_EQ(deep, 72u) << "BK 128 and 256 for the unsplit swapped tiles, each with a ring of 12 k-blocks and "
                          "with the deepest ring that fits";
  EXPECT_EQ(modes[DependentLaunch::none], 940u) << "939 enumerated, 1 named point outside the enumeration";
  EXPECT_EQ(modes[DependentLaunch::early], 939u);
  EXPECT_EQ(modes[DependentLaunch::at_exit], 939u);
}

TEST(WgmmaSpaceCompile, NamedPointsAndASeededSampleOfTheSwapABTestSpaceCompileToHgmma) {
  // tests/data/spaces/wgmma_swap_ab.json (the GPU test's): the transposed wgmma operands, 8- to 64-row tiles.
  expect_points_and_sample_compile_to_hgmma("tests/data/spaces/wgmma_swap_ab.json", 0);
}

TEST(WgmmaSpaceCompile, NamedPointsAndASeededSampleOfTheDeepStageTestSpaceCompileToHgmma) {
  // tests/data/spaces/wgmma_deep_stages.json (the GPU test's): 3-D copies of A, B boxes of 128 and 256 rows.
  expect_points_and_sample_compile_to_hgmma("tests/data/spaces/wgmma_deep_stages.json", 0, "UTMALDG.3D");
}

TEST(WgmmaSpaceCompile, FocusSpaceIsInsideTheFamily) {
  // The benchmark's space: every config of it is a config of the family (loading checks the family's rules).
  const Space space = load_space(source("configs/sm90a_focus.json"));
  const std::vector<Candidate> all = build_candidates(space, family(space.family));
  EXPECT_EQ(all.size(), 168u);
  for (const auto& c : all) EXPECT_TRUE(family("wgmma").check_config(c.params).empty()) << c.name;
}
