// The Hopper family on the CPU: names, rules, tensor-map parameters, launch geometry and the tile order the kernel
// walks (kernels/tile_schedule.cuh is compiled here by g++ too).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "codegen/family.hpp"
#include "codegen/wgmma_family.hpp"
#include "common/error.hpp"
#include "support/h200.hpp"
#include "tile_schedule.cuh"

namespace mpgemm {
namespace {

const Family& wgmma() {
  return family("wgmma");
}

Params persistent_point() {
  return WgmmaConfig{}.to_params();
}  // the defaults are the named point wgmma_persistent

Params with(Params p, const std::string& name, Value v) {
  p[name] = std::move(v);
  return p;
}

bool any_contains(const std::vector<std::string>& messages, const std::string& needle) {
  for (const auto& m : messages)
    if (m.find(needle) != std::string::npos) return true;
  return false;
}

DeviceDescription h200() {
  return mpgemm::testing::h200_description();
}

TEST(WgmmaFamily, NameCoversEveryParameterAndRoundTrips) {
  const Params p = persistent_point();
  EXPECT_EQ(wgmma().config_name(p), "wgmma_bm128_bn256_bk64_s4_c2_coop_cl1x1_m8_direct_pers");
  EXPECT_EQ(WgmmaConfig::from_params(p), WgmmaConfig{});
  std::set<std::string> names{wgmma().config_name(p)};
  for (const auto& [name, value] : p) {
    Value other;
    if (name == "RASTER")
      other = std::string("n");
    else if (name == "SCHEDULE")
      other = std::string("pingpong");
    else if (name == "EPILOGUE")
      other = std::string("tma");
    else if (name == "PERSISTENT")
      other = std::int64_t{0};
    else
      other = std::get<std::int64_t>(value) + 1;
    EXPECT_TRUE(names.insert(wgmma().config_name(with(p, name, other))).second) << name;
  }
}

TEST(WgmmaFamily, NameExpressionNamesTheTemplate) {
  Params p = with(with(persistent_point(), "EPILOGUE", std::string("tma")), "RASTER", std::string("n"));
  p = with(with(p, "C_BUFFERS", std::int64_t{3}), "SCHEDULE", std::string("pingpong"));
  EXPECT_EQ(WgmmaConfig::from_params(p).name_expression(),
            "mpgemm::wgmma_gemm<128, 256, 4, 2, 1, 1, 1, 8, 1, 1, 3, 1, 0, 0, 0, 0>");
  EXPECT_EQ(WgmmaConfig::from_params(p).name(), "wgmma_bm128_bn256_bk64_s4_c2_pingpong_cl1x1_n8_tma3_pers");
}

TEST(WgmmaFamily, RejectsWhatTheKernelCannotBuild) {
  const auto problems = [](Params p) { return wgmma().check_config(p); };
  EXPECT_TRUE(problems(persistent_point()).empty());
  EXPECT_TRUE(any_contains(problems(with(persistent_point(), "BM", std::int64_t{64})), "multiple of 64 * CONSUMERS"));
  EXPECT_TRUE(any_contains(problems(with(persistent_point(), "BN", std::int64_t{100})), "multiple of 8 up to 256"));
  EXPECT_TRUE(any_contains(problems(with(persistent_point(), "BM", std::int64_t{512})), "256"));
  EXPECT_TRUE(any_contains(problems(with(persistent_point(), "CONSUMERS", std::int64_t{1})), "accumulators"));
  EXPECT_TRUE(any_contains(problems(with(persistent_point(), "STAGES", std::int64_t{5})), "shared memory"));
  EXPECT_TRUE(any_contains(problems(with(persistent_point(), "STAGES", std::int64_t{1})), "at least 2 stages"));
  const Params tma = with(with(persistent_point(), "EPILOGUE", std::string("tma")), "C_BUFFERS", std::int64_t{2});
  EXPECT_TRUE(any_contains(problems(with(tma, "BN", std::int64_t{208})), "32-column"));
  EXPECT_TRUE(any_contains(problems(with(tma, "C_BUFFERS", std::int64_t{0})), "1 to 16 buffers"));
  EXPECT_TRUE(any_contains(problems(with(persistent_point(), "C_BUFFERS", std::int64_t{2})), "must be 0"));
  const Params pingpong = with(persistent_point(), "SCHEDULE", std::string("pingpong"));
  EXPECT_TRUE(any_contains(problems(pingpong), "accumulators"));  // a whole 128 x 256 tile per consumer
  EXPECT_TRUE(problems(with(pingpong, "BN", std::int64_t{128})).empty());
  EXPECT_TRUE(any_contains(problems(with(with(pingpong, "BN", std::int64_t{128}), "CONSUMERS", std::int64_t{1})),
                           "CONSUMERS must be 2"));
  EXPECT_TRUE(any_contains(problems(with(persistent_point(), "SCHEDULE", std::string("split"))), "\"coop\""));
  EXPECT_TRUE(any_contains(problems(with(persistent_point(), "EPILOGUE", std::string("smem"))),
                           "\"direct\" or \"tma\" or \"rows\""));
  EXPECT_TRUE(any_contains(problems(with(persistent_point(), "PERSISTENT", std::int64_t{3})), "2 (balanced)"));
  EXPECT_TRUE(any_contains(problems(Params{}), "BM"));
}

TEST(WgmmaFamily, RowsEpilogueStagesNothingAndStoresWholeGroupsOfUnsplitTiles) {
  const Params rows =
      with(with(persistent_point(), "EPILOGUE", std::string("rows")), "SCHEDULE", std::string("pingpong"));
  const Params p = with(rows, "BN", std::int64_t{128});
  const WgmmaConfig c = WgmmaConfig::from_params(p);
  EXPECT_EQ(c.epilogue, WgmmaEpilogue::rows);
  EXPECT_EQ(c.name(), "wgmma_bm128_bn128_bk64_s4_c2_pingpong_cl1x1_m8_rows_pers");
  EXPECT_EQ(c.name_expression(), "mpgemm::wgmma_gemm<128, 128, 4, 2, 1, 1, 0, 8, 2, 1, 0, 1, 0, 0, 0, 0>");
  EXPECT_EQ(c.to_params(), p);
  EXPECT_EQ(c.layout().dynamic_smem_bytes(),
            WgmmaConfig::from_params(with(p, "EPILOGUE", std::string("direct"))).layout().dynamic_smem_bytes())
      << "no staging buffers";
  const auto problems = [](Params q) { return wgmma().check_config(q); };
  EXPECT_TRUE(problems(p).empty());
  EXPECT_TRUE(any_contains(problems(with(p, "C_BUFFERS", std::int64_t{2})), "rows epilogue stages nothing"));
  EXPECT_TRUE(any_contains(problems(with(p, "BN", std::int64_t{120})), "EPILOGUE=\"rows\" stores 32-column groups"));
  EXPECT_TRUE(any_contains(problems(with(p, "SPLIT_K", std::int64_t{2})), "split-K adds its slices in the direct"));
  EXPECT_TRUE(any_contains(
      problems(with(with(with(p, "SWAP_AB", std::int64_t{1}), "BM", std::int64_t{16}), "BN", std::int64_t{128})),
      "swapped tiles go out through the direct epilogue"));
}

TEST(WgmmaFamily, SwapABIsAnOptionalParameterWithItsOwnRules) {
  // Swapped, the wgmmas cut BN into 64-row blocks and BM is their N: a 16 x 128 tile is two m64n16 blocks, one per
  // consumer, 8 accumulators each.
  Params p =
      with(with(with(persistent_point(), "SWAP_AB", std::int64_t{1}), "BM", std::int64_t{16}), "BN", std::int64_t{128});
  const WgmmaConfig c = WgmmaConfig::from_params(p);
  EXPECT_TRUE(c.swap_ab);
  EXPECT_EQ(c.name(), "wgmma_bm16_bn128_bk64_s4_c2_coop_cl1x1_m8_direct_pers_swab");
  EXPECT_EQ(c.name_expression(), "mpgemm::wgmma_gemm<16, 128, 4, 2, 1, 1, 0, 8, 0, 0, 0, 1, 0, 1, 0, 0>");
  EXPECT_EQ(c.to_params(), p);
  EXPECT_EQ(c.layout().m_blocks(), 1);
  EXPECT_EQ(c.layout().accumulators(), 8);
  EXPECT_EQ(c.layout().a_stage_bytes(), 16 * 128);
  EXPECT_TRUE(wgmma().check_config(p).empty());
  // Unswapped configs keep their parameters; SWAP_AB = 0 reads as absent.
  EXPECT_EQ(WgmmaConfig{}.to_params().count("SWAP_AB"), 0u);
  EXPECT_EQ(WgmmaConfig::from_params(with(persistent_point(), "SWAP_AB", std::int64_t{0})), WgmmaConfig{});
  const auto problems = [](Params q) { return wgmma().check_config(q); };
  EXPECT_TRUE(any_contains(problems(with(p, "SWAP_AB", std::int64_t{2})), "SWAP_AB must be 0 or 1"));
  EXPECT_TRUE(any_contains(problems(with(p, "BN", std::int64_t{64})), "BN=64 is not a multiple of 64 * CONSUMERS"));
  EXPECT_TRUE(any_contains(problems(with(p, "BM", std::int64_t{12})), "BM=12 is not a multiple of 8 up to 256"));
  EXPECT_TRUE(any_contains(problems(with(p, "BN", std::int64_t{384})), "BN=384 is over 256"));
  EXPECT_TRUE(any_contains(problems(with(with(p, "EPILOGUE", std::string("tma")), "C_BUFFERS", std::int64_t{2})),
                           "swapped tiles go out through the direct epilogue"));
  EXPECT_TRUE(any_contains(problems(with(with(p, "BM", std::int64_t{256}), "CONSUMERS", std::int64_t{1})),
                           "accumulators"));  // 128 rows of the tile's columns x N = 256, for one consumer
}

TEST(WgmmaFamily, L2PromotionIsAnOptionalTensorMapSetting) {
  const Shape shape{3000, 3000, 3000};
  EXPECT_EQ(tensor_map_specs(WgmmaConfig{}, shape).a.l2_promotion, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
  const Params p = with(persistent_point(), "L2_PROMOTION", std::int64_t{128});
  const WgmmaConfig c = WgmmaConfig::from_params(p);
  EXPECT_EQ(c.name(), "wgmma_bm128_bn256_bk64_s4_c2_coop_cl1x1_m8_direct_pers_l2p128");
  EXPECT_EQ(c.name_expression(), WgmmaConfig{}.name_expression()) << "the kernel is the same";
  EXPECT_EQ(c.to_params(), p);
  const WgmmaTensorMaps maps = tensor_map_specs(c, shape);
  EXPECT_EQ(maps.a.l2_promotion, CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
  EXPECT_EQ(maps.b.l2_promotion, CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
  EXPECT_EQ(maps.c.l2_promotion, CU_TENSOR_MAP_L2_PROMOTION_NONE);
  EXPECT_EQ(tensor_map_specs(WgmmaConfig::from_params(with(p, "L2_PROMOTION", std::int64_t{0})), shape).b.l2_promotion,
            CU_TENSOR_MAP_L2_PROMOTION_NONE);
  EXPECT_EQ(WgmmaConfig::from_params(with(p, "L2_PROMOTION", std::int64_t{256})), WgmmaConfig{});
  EXPECT_TRUE(any_contains(wgmma().check_config(with(p, "L2_PROMOTION", std::int64_t{100})), "0, 64, 128 or 256"));
}

TEST(WgmmaFamily, DependentLaunchIsAKernelAndLaunchChoice) {
  const Shape shape{512, 512, 512};
  const Params p = with(persistent_point(), "PDL", std::int64_t{1});
  const WgmmaConfig c = WgmmaConfig::from_params(p);
  EXPECT_EQ(c.dependent_launch, DependentLaunch::early);
  EXPECT_EQ(c.name(), "wgmma_bm128_bn256_bk64_s4_c2_coop_cl1x1_m8_direct_pers_pdl");
  EXPECT_EQ(c.name_expression(), "mpgemm::wgmma_gemm<128, 256, 4, 2, 1, 1, 0, 8, 0, 0, 0, 1, 0, 0, 1, 0>");
  EXPECT_EQ(WgmmaConfig{}.name_expression(), "mpgemm::wgmma_gemm<128, 256, 4, 2, 1, 1, 0, 8, 0, 0, 0, 1, 0, 0, 0, 0>");
  EXPECT_EQ(c.to_params(), p);
  EXPECT_TRUE(wgmma().check_config(p).empty());
  EXPECT_TRUE(wgmma().launch_geometry(p, shape, h200()).dependent_launch);
  EXPECT_FALSE(wgmma().launch_geometry(persistent_point(), shape, h200()).dependent_launch);
  // Configs without it keep their parameters and names; PDL = 0 reads as absent.
  EXPECT_EQ(WgmmaConfig{}.to_params().count("PDL"), 0u);
  EXPECT_EQ(WgmmaConfig::from_params(with(p, "PDL", std::int64_t{0})), WgmmaConfig{});
  const Params at_exit = with(persistent_point(), "PDL", std::int64_t{2});
  const WgmmaConfig x = WgmmaConfig::from_params(at_exit);
  EXPECT_EQ(x.dependent_launch, DependentLaunch::at_exit);
  EXPECT_EQ(x.name(), "wgmma_bm128_bn256_bk64_s4_c2_coop_cl1x1_m8_direct_pers_pdlx");
  EXPECT_EQ(x.name_expression(), "mpgemm::wgmma_gemm<128, 256, 4, 2, 1, 1, 0, 8, 0, 0, 0, 1, 0, 0, 2, 0>");
  EXPECT_EQ(x.to_params(), at_exit);
  EXPECT_TRUE(wgmma().launch_geometry(at_exit, shape, h200()).dependent_launch);
  EXPECT_TRUE(any_contains(wgmma().check_config(with(p, "PDL", std::int64_t{3})), "PDL must be 0"));
}

TEST(WgmmaFamily, L2HintsAreAKernelChoiceNamedOnlyWhenSet) {
  const Params p = with(persistent_point(), "L2_HINTS", std::string("c_first"));
  const WgmmaConfig c = WgmmaConfig::from_params(p);
  EXPECT_EQ(c.l2_hints, L2Hints::c_first);
  EXPECT_EQ(c.name(), "wgmma_bm128_bn256_bk64_s4_c2_coop_cl1x1_m8_direct_pers_cfirst");
  EXPECT_EQ(c.name_expression(), "mpgemm::wgmma_gemm<128, 256, 4, 2, 1, 1, 0, 8, 0, 0, 0, 1, 0, 0, 0, 1>");
  EXPECT_EQ(c.to_params(), p);
  EXPECT_TRUE(wgmma().check_config(p).empty());
  const Params both =
      with(with(persistent_point(), "PDL", std::int64_t{1}), "L2_HINTS", std::string("c_first_ab_last"));
  const WgmmaConfig b = WgmmaConfig::from_params(both);
  EXPECT_EQ(b.name(), "wgmma_bm128_bn256_bk64_s4_c2_coop_cl1x1_m8_direct_pers_pdl_cfirst_ablast");
  EXPECT_EQ(b.name_expression(), "mpgemm::wgmma_gemm<128, 256, 4, 2, 1, 1, 0, 8, 0, 0, 0, 1, 0, 0, 1, 2>");
  EXPECT_EQ(b.to_params(), both);
  // Configs without hints keep their parameters and names; "none" reads as absent.
  EXPECT_EQ(WgmmaConfig{}.to_params().count("L2_HINTS"), 0u);
  EXPECT_EQ(WgmmaConfig::from_params(with(persistent_point(), "L2_HINTS", std::string("none"))),
            WgmmaConfig::from_params(persistent_point()));
  EXPECT_TRUE(any_contains(wgmma().check_config(with(persistent_point(), "L2_HINTS", std::string("c_last"))),
                           "L2_HINTS must be"));
}

TEST(WgmmaFamily, SharedMemoryComesFromTheKernelsLayout) {
  // 4 stages of 128 x 64 A and 4 chunks of 64 x 64 B (FP16), the full, empty and order barriers, and 1 KiB to reach
  // 1024-byte alignment.
  EXPECT_EQ(WgmmaConfig{}.layout().dynamic_smem_bytes(), 4 * (128 * 128 + 4 * 8192) + (2 * 4 + 2) * 8 + 1024);
  WgmmaConfig tma;
  tma.epilogue = WgmmaEpilogue::tma;
  tma.c_buffers = 3;
  EXPECT_EQ(tma.layout().dynamic_smem_bytes() - WgmmaConfig{}.layout().dynamic_smem_bytes(), 2 * 3 * 64 * 32 * 4);
  EXPECT_EQ(tma.layout().releasing_warps(), 8);
  tma.schedule = WgmmaSchedule::pingpong;
  EXPECT_EQ(tma.layout().releasing_warps(), 4);  // only the consumer that owns the tile reads a stage
  EXPECT_EQ(tma.layout().accumulators(), 256);
  WgmmaConfig odd;
  odd.bn = 208;  // four 64-column chunks of B: the last one partly used
  EXPECT_EQ(odd.layout().b_stage_bytes(), 4 * 8192);
}

TEST(WgmmaFamily, DeviceMustBeHopper) {
  const Params p = persistent_point();
  EXPECT_EQ(wgmma().check_device(p, h200()), std::nullopt);
  DeviceDescription ampere = h200();
  ampere.name = "NVIDIA GeForce RTX 3050";
  ampere.arch = Arch{8, 6, false};
  const auto why = wgmma().check_device(p, ampere);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("sm_90"), std::string::npos) << *why;
  EXPECT_NE(why->find("sm_86"), std::string::npos) << *why;
  DeviceDescription target;  // compile-only: the target arch alone
  target.arch = Arch{9, 0, true};
  EXPECT_EQ(wgmma().check_device(p, target), std::nullopt);
}

TEST(WgmmaFamily, CompilesForSm90aOnly) {
  const KernelSpec spec = wgmma().kernel_spec(persistent_point(), Arch{9, 0, false});
  EXPECT_EQ(spec.arch.str(), "sm_90a");
  EXPECT_EQ(spec.source, "#include \"wgmma_gemm.cuh\"\n");
  EXPECT_EQ(spec.name_expression, "mpgemm::wgmma_gemm<128, 256, 4, 2, 1, 1, 0, 8, 0, 0, 0, 1, 0, 0, 0, 0>");
  EXPECT_EQ(wgmma().kernel_spec(persistent_point(), Arch{9, 0, true}).arch.str(), "sm_90a");
  EXPECT_THROW(wgmma().kernel_spec(with(persistent_point(), "BN", std::int64_t{7}), Arch{9, 0, false}), Error);
}

TEST(WgmmaFamily, ShapesNeedTmaStrides) {
  const Params p = persistent_point();
  EXPECT_EQ(wgmma().check_shape(p, Shape{3000, 3000, 3000}), std::nullopt);
  EXPECT_EQ(wgmma().check_shape(p, Shape{1000, 1000, 1000}), std::nullopt);
  EXPECT_EQ(wgmma().check_shape(p, Shape{1001, 1000, 1000}), std::nullopt);  // M is free
  EXPECT_TRUE(
      wgmma().check_shape(p, Shape{1000, 1001, 1000}).value_or("").starts_with("N=1001 is not a multiple of 8"));
  EXPECT_TRUE(
      wgmma().check_shape(p, Shape{1000, 1000, 1004}).value_or("").starts_with("K=1004 is not a multiple of 8"));
  EXPECT_TRUE(wgmma().check_shape(p, Shape{0, 8, 8}).value_or("").starts_with("M=0 must be positive"));
  EXPECT_TRUE(wgmma().check_shape(p, Shape{8, 8, 1LL << 32}).value_or("").find("int") != std::string::npos);
}

TEST(WgmmaFamily, DeepStagesAreAKernelChoiceNamedByBK) {
  const Params p = with(with(persistent_point(), "BK", std::int64_t{128}), "STAGES", std::int64_t{2});
  const WgmmaConfig c = WgmmaConfig::from_params(p);
  EXPECT_EQ(c.bk, 128);
  EXPECT_EQ(c.name(), "wgmma_bm128_bn256_bk128_s2_c2_coop_cl1x1_m8_direct_pers");
  EXPECT_EQ(c.name_expression(), "mpgemm::wgmma_gemm<128, 256, 2, 2, 1, 1, 0, 8, 0, 0, 0, 1, 0, 0, 0, 0, 128>");
  EXPECT_EQ(c.to_params(), p);
  EXPECT_TRUE(wgmma().check_config(p).empty());
  // BK 64 reads as absent: every config before deep stages keeps its parameters, name and kernel.
  EXPECT_EQ(WgmmaConfig::from_params(with(persistent_point(), "BK", std::int64_t{64})), WgmmaConfig{});
  EXPECT_EQ(WgmmaConfig{}.to_params().count("BK"), 0u);
  // A stage holds two k-blocks of A (BM rows each) and of every B chunk.
  EXPECT_EQ(c.layout().a_stage_bytes(), 2 * WgmmaConfig{}.layout().a_stage_bytes());
  EXPECT_EQ(c.layout().b_stage_bytes(), 2 * WgmmaConfig{}.layout().b_stage_bytes());
  const auto problems = [&](const Params& q) { return wgmma().check_config(q); };
  EXPECT_TRUE(any_contains(problems(with(p, "BK", std::int64_t{96})), "BK 64, 128 or 256"));
  EXPECT_TRUE(any_contains(problems(with(p, "BK", std::int64_t{512})), "BK 64, 128 or 256"));
  EXPECT_TRUE(
      any_contains(problems(with(with(p, "CLUSTER_N", std::int64_t{2}), "BM", std::int64_t{128})), "not multicast"));
  EXPECT_TRUE(any_contains(problems(with(p, "L2_HINTS", std::string("c_first_ab_last"))), "no L2 hint"));
  EXPECT_TRUE(problems(with(p, "L2_HINTS", std::string("c_first"))).empty());
  EXPECT_TRUE(problems(with(p, "CLUSTER_M", std::int64_t{2})).empty());
  // A through a 3-D view of 64-column blocks, two per copy; B boxes two k-blocks deep (split by a cluster along M).
  const WgmmaTensorMaps maps =
      tensor_map_specs(WgmmaConfig::from_params(with(p, "CLUSTER_M", std::int64_t{2})), Shape{3000, 1000, 576});
  EXPECT_EQ(maps.a, (TensorMapSpec{CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                                   {576, 3000},
                                   1152,
                                   {64, 128},
                                   CU_TENSOR_MAP_SWIZZLE_128B,
                                   CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                   2}));
  EXPECT_EQ(maps.b.box, (std::array<std::uint32_t, 2>{64, 64}));
  EXPECT_EQ(maps.b.depth, 1u);
  EXPECT_EQ(tensor_map_specs(c, Shape{3000, 1000, 576}).b.box, (std::array<std::uint32_t, 2>{64, 128}));
  EXPECT_EQ(tensor_map_specs(WgmmaConfig{}, Shape{3000, 1000, 576}).a.depth, 1u);
  // The view's planes are whole 64-column blocks: K must be a multiple of 64 (a partial last stage is fine).
  EXPECT_EQ(wgmma().check_shape(p, Shape{3000, 1000, 576}), std::nullopt);
  EXPECT_TRUE(wgmma().check_shape(p, Shape{3000, 1000, 520}).value_or("").find("k-blocks of 64") != std::string::npos);
  EXPECT_EQ(wgmma().check_shape(persistent_point(), Shape{3000, 1000, 520}), std::nullopt);
  // Split-K shares out stages: K = 512 is four stages of 128, too few for eight slices.
  const Params split = with(p, "SPLIT_K", std::int64_t{8});
  EXPECT_TRUE(wgmma().check_shape(split, Shape{512, 512, 512}).value_or("").find("4 k-blocks of 128") !=
              std::string::npos);
  EXPECT_EQ(wgmma().check_shape(split, Shape{512, 512, 1024}), std::nullopt);
}

TEST(WgmmaFamily, TensorMapsDescribeTheOperands) {
  WgmmaConfig c;
  c.cluster_m = 2;  // B is multicast: each CTA loads half of the 64 K rows
  const WgmmaTensorMaps maps = tensor_map_specs(c, Shape{3000, 1000, 520});
  EXPECT_EQ(maps.a, (TensorMapSpec{CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                                   {520, 3000},
                                   1040,
                                   {64, 128},
                                   CU_TENSOR_MAP_SWIZZLE_128B,
                                   CU_TENSOR_MAP_L2_PROMOTION_L2_256B}));
  EXPECT_EQ(maps.b, (TensorMapSpec{CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                                   {1000, 520},
                                   2000,
                                   {64, 32},
                                   CU_TENSOR_MAP_SWIZZLE_128B,
                                   CU_TENSOR_MAP_L2_PROMOTION_L2_256B}));
  EXPECT_EQ(maps.c, (TensorMapSpec{CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                                   {1000, 3000},
                                   4000,
                                   {32, 64},
                                   CU_TENSOR_MAP_SWIZZLE_128B,
                                   CU_TENSOR_MAP_L2_PROMOTION_NONE}));
  c.cluster_m = 1;
  c.cluster_n = 2;  // A is multicast: each CTA loads half of the BM rows
  EXPECT_EQ(tensor_map_specs(c, Shape{3000, 1000, 520}).a.box, (std::array<std::uint32_t, 2>{64, 64}));
  // The 128-byte swizzle takes boxes whose inner side is at most 128 bytes, and TMA boxes at most 256 per side.
  for (const auto& s : {maps.a, maps.b, maps.c}) {
    const int bytes = s.dtype == CU_TENSOR_MAP_DATA_TYPE_FLOAT32 ? 4 : 2;
    EXPECT_LE(s.box[0] * bytes, 128u);
    EXPECT_LE(s.box[1], 256u);
    EXPECT_EQ(s.row_stride_bytes % 16, 0u);
  }
}

TEST(WgmmaFamily, EncodingWithoutADriverIsAClearError) {
  const WgmmaTensorMaps maps = tensor_map_specs(WgmmaConfig{}, Shape{64, 64, 64});
  try {
    encode_tensor_map(maps.a, reinterpret_cast<const void*>(0x1000), nullptr, "A");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cuTensorMapEncodeTiled"), std::string::npos) << e.what();
  }
}

TEST(WgmmaFamily, PersistentGridComesFromTheDevice) {
  const Shape s{4096, 4096, 4096};
  LaunchGeometry g = wgmma().launch_geometry(persistent_point(), s, h200());  // 512 tiles, 132 SMs
  EXPECT_EQ(g.grid.x, 132u);
  EXPECT_EQ(g.block.x, 384u);
  EXPECT_EQ(g.cluster.count(), 1u);
  EXPECT_TRUE(g.persistent);
  EXPECT_EQ(g.dynamic_smem_bytes, static_cast<std::uint32_t>(WgmmaConfig{}.layout().dynamic_smem_bytes()));

  DeviceDescription small = h200();
  small.sm_count = 7;
  g = wgmma().launch_geometry(with(persistent_point(), "CLUSTER_M", std::int64_t{2}), s, small);
  EXPECT_EQ(g.grid.x, 6u);  // three clusters of two
  EXPECT_EQ(g.cluster.x, 2u);

  g = wgmma().launch_geometry(with(persistent_point(), "PERSISTENT", std::int64_t{0}), s, h200());
  EXPECT_EQ(g.grid.x, 512u);
  EXPECT_FALSE(g.persistent);

  g = wgmma().launch_geometry(persistent_point(), Shape{1000, 1000, 1000}, h200());  // 8 x 4 tiles, fewer than SMs
  EXPECT_EQ(g.grid.x, 32u);
  g = wgmma().launch_geometry(persistent_point(), s, DeviceDescription{});  // SM count unknown: one CTA per tile
  EXPECT_EQ(g.grid.x, 512u);
}

TEST(WgmmaFamily, BalancedGridGivesEveryCtaTheSameTileCount) {
  const Params balanced = with(persistent_point(), "PERSISTENT", std::int64_t{2});
  EXPECT_EQ(WgmmaConfig::from_params(balanced).name(), "wgmma_bm128_bn256_bk64_s4_c2_coop_cl1x1_m8_direct_bal");
  EXPECT_EQ(WgmmaConfig::from_params(balanced).to_params(), balanced);
  // 4096^3: 512 tiles of 128 x 256 take 4 rounds on 132 SMs, and 4 rounds on 128 CTAs.
  LaunchGeometry g = wgmma().launch_geometry(balanced, Shape{4096, 4096, 4096}, h200());
  EXPECT_EQ(g.grid.x, 128u);
  EXPECT_TRUE(g.persistent);
  EXPECT_EQ(g.balanced_units, 512u);
  // 8192^3: 2048 tiles, 16 rounds: 128 CTAs. 2048 x 4096: 256 tiles, 2 rounds: 128.
  EXPECT_EQ(wgmma().launch_geometry(balanced, Shape{8192, 8192, 8192}, h200()).grid.x, 128u);
  EXPECT_EQ(wgmma().launch_geometry(balanced, Shape{2048, 4096, 512}, h200()).grid.x, 128u);
  // 3000^3: 24 x 12 = 288 tiles, 3 rounds of 96.
  EXPECT_EQ(wgmma().launch_geometry(balanced, Shape{3000, 3000, 3000}, h200()).grid.x, 96u);
  // Clusters of two: 256 cluster tiles on 66 clusters = 4 rounds: 64 clusters, 128 CTAs.
  g = wgmma().launch_geometry(with(balanced, "CLUSTER_M", std::int64_t{2}), Shape{4096, 4096, 4096}, h200());
  EXPECT_EQ(g.grid.x, 128u);
  EXPECT_EQ(g.balanced_units, 256u);
  // The unbalanced persistent grid keeps one CTA per SM and no units.
  EXPECT_EQ(wgmma().launch_geometry(persistent_point(), Shape{4096, 4096, 4096}, h200()).balanced_units, 0u);
}

TEST(TileSchedule, EveryTileExactlyOnce) {
  for (int raster : {kRasterM, kRasterN})
    for (int group : {1, 3, 8, 16})
      for (auto [tm, tn] : {std::pair{1, 1}, {7, 5}, {16, 16}, {5, 23}, {32, 3}}) {
        std::set<std::pair<int, int>> seen;
        for (int i = 0; i < tm * tn; ++i) {
          const TileCoord t = tile_at(i, tm, tn, raster, group);
          ASSERT_TRUE(t.m >= 0 && t.m < tm && t.n >= 0 && t.n < tn) << i;
          seen.insert({t.m, t.n});
        }
        EXPECT_EQ(seen.size(), static_cast<std::size_t>(tm * tn)) << raster << " " << group << " " << tm << "x" << tn;
      }
}

TEST(TileSchedule, GroupedOrders) {
  // Raster along M, bands of 2 tile rows of a 3 x 3 grid: down the band's rows, then along N; the last band is
  // one row high.
  const int expected_m[][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}, {1, 2}, {2, 0}, {2, 1}, {2, 2}};
  for (int i = 0; i < 9; ++i) {
    const TileCoord t = tile_at(i, 3, 3, kRasterM, 2);
    EXPECT_EQ(t.m, expected_m[i][0]) << i;
    EXPECT_EQ(t.n, expected_m[i][1]) << i;
  }
  // Bands one tile wide: raster along M is row-major order, raster along N column-major.
  for (int i = 0; i < 12; ++i) {
    const TileCoord row_major = tile_at(i, 3, 4, kRasterM, 1), column_major = tile_at(i, 3, 4, kRasterN, 1);
    EXPECT_EQ(row_major.m, i / 4);
    EXPECT_EQ(row_major.n, i % 4);
    EXPECT_EQ(column_major.m, i % 3);
    EXPECT_EQ(column_major.n, i / 3);
  }
}

}  // namespace
}  // namespace mpgemm
