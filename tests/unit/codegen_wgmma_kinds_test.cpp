// The Hopper family's problem kinds on the CPU (issue 58): which kinds it computes, which combinations of a config
// and a kind it refuses and why (one line naming the parameter and the kind), the row-stride rules of each layout,
// the name expression (the default kind's unchanged), the tensor maps per kind and the kernel's arguments.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "codegen/family.hpp"
#include "codegen/wgmma_family.hpp"
#include "common/error.hpp"

namespace mpgemm {
namespace {

const Family& wgmma() {
  return family("wgmma");
}

ProblemKind kind_of(std::string_view name) {
  std::string why;
  const auto k = ProblemKind::parse(name, &why);
  if (!k) throw Error(why);
  return *k;
}

bool has(const std::optional<std::string>& why, const std::string& needle) {
  return why && why->find(needle) != std::string::npos;
}

// A 256^3 problem of `kind` at made-up device addresses (nothing is launched).
ProblemBuffers buffers_of(std::string_view kind) {
  ProblemBuffers buffers;
  buffers.a = reinterpret_cast<const void*>(0x10000);
  buffers.b = reinterpret_cast<const void*>(0x20000);
  buffers.c = reinterpret_cast<void*>(0x30000);
  buffers.shape = Shape{256, 256, 256};
  buffers.kind = kind_of(kind);
  return buffers;
}

// One point per shape of refusal: the default point is direct, unsplit, BN 256.
WgmmaConfig split(int k) {
  WgmmaConfig c;
  c.split_k = k;
  return c;
}

TEST(WgmmaKinds, ComputesEveryKindButAnFp32Input) {
  int computed = 0;
  for (const ProblemKind& kind : ProblemKind::all_with_epilogues()) {
    EXPECT_EQ(wgmma().check_kind(kind), std::nullopt) << kind.name();
    ++computed;
  }
  EXPECT_EQ(computed, 48 * 5) << "2 A layouts x 2 B layouts x 2 input types x 3 output types x beta or not, "
                                 "x 5 epilogues (none, bias, bias_relu, bias_gelu_tanh, bias_gelu)";
  ProblemKind fp32_in;
  fp32_in.in = ElementType::fp32;
  EXPECT_TRUE(has(wgmma().check_kind(fp32_in), "its wgmma takes FP16 or BF16"));
}

TEST(WgmmaKinds, AStoredKByMIsUnswappedAndMulticastInWholeSwizzleAtomsOfBk) {
  const Shape s{1024, 1024, 1024};
  WgmmaConfig swapped;
  swapped.bm = 64;
  swapped.bn = 128;
  swapped.swap_ab = true;
  ASSERT_TRUE(swapped.problems().empty()) << swapped.problems().front();
  const auto why = wgmma().check_problem(swapped.to_params(), {s, kind_of("km_kn_bf16_bf16")});
  EXPECT_TRUE(has(why, "SWAP_AB=1 with km_kn_bf16_bf16")) << why.value_or("accepted");
  EXPECT_EQ(wgmma().check_problem(swapped.to_params(), {s, kind_of("mk_kn_bf16_bf16")}), std::nullopt);
  WgmmaConfig cluster;
  cluster.cluster_n = 16;
  cluster.bm = 128;
  cluster.bn = 128;
  ASSERT_TRUE(cluster.problems().empty()) << cluster.problems().front();
  EXPECT_TRUE(
      has(wgmma().check_problem(cluster.to_params(), {s, kind_of("km_nk_fp16_fp32")}), "BK=64 with km_nk_fp16_fp32"));
  cluster.cluster_n = 2;
  EXPECT_EQ(wgmma().check_problem(cluster.to_params(), {s, kind_of("km_nk_fp16_fp32")}), std::nullopt);
  // Its rows are M long.
  EXPECT_TRUE(has(wgmma().check_problem(WgmmaConfig{}.to_params(), {{1001, 1024, 1024}, kind_of("km_kn_fp16_fp32")}),
                  "M=1001 is not a multiple of 8: TMA needs rows of A (stored K x M)"));
  const WgmmaTensorMaps km = tensor_map_specs(cluster, {1000, 3000, 2048}, kind_of("km_kn_bf16_bf16"));
  EXPECT_EQ(km.a.dims, (std::array<std::uint64_t, 2>{1000, 2048}));  // {M, K}: rows of M
  EXPECT_EQ(km.a.row_stride_bytes, 1000u * 2);
  EXPECT_EQ(km.a.box, (std::array<std::uint32_t, 2>{64, 32}));  // 64 of M, BK / CLUSTER_N rows of K
  EXPECT_EQ(km.a.depth, 1u);
  EXPECT_EQ(km.a.dtype, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
}

TEST(WgmmaKinds, SplitKWithA16BitOutputKeepsFp32PartialSumsInTheWorkspace) {
  // A 16-bit D is computed split too: the slices add in FP32 in the workspace, after the flags' megabyte.
  const GemmProblem fp16{{1024, 1024, 4096}, kind_of("mk_nk_fp16_fp16")};
  EXPECT_EQ(wgmma().check_problem(split(4).to_params(), fp16), std::nullopt);
  WgmmaConfig stream;
  stream.split_mode = SplitMode::stream;
  stream.persistent = true;
  const GemmProblem bf16{{1024, 1024, 4096}, kind_of("mk_kn_bf16_bf16_beta")};
  EXPECT_EQ(wgmma().check_problem(stream.to_params(), bf16), std::nullopt);
  EXPECT_EQ(wgmma().check_problem(split(4).to_params(), {{1024, 1024, 4096}, kind_of("mk_nk_bf16_fp32_beta")}),
            std::nullopt);

  // The bytes asked for: the flags, and one BM x BN block of floats per CTA of each tile that may be split.
  WgmmaConfig all = split(4);  // 128 x 256 tiles, mode all: every tile
  all.persistent = true;
  const auto bytes = [&](const WgmmaConfig& c, const GemmProblem& p, unsigned grid_x) {
    LaunchGeometry g;
    g.grid.x = grid_x;
    return wgmma().workspace_bytes(c.to_params(), p, g);
  };
  const std::size_t block = std::size_t{128} * 256 * sizeof(float);
  EXPECT_EQ(bytes(all, fp16, 132), kWorkspaceBytes + 8 * 4 * block);  // 1024 x 1024: 8 x 4 tiles
  EXPECT_EQ(bytes(all, {{1024, 1024, 4096}, kind_of("mk_nk_fp16_fp32")}, 132), kWorkspaceBytes);
  EXPECT_EQ(bytes(WgmmaConfig{}, fp16, 132), 0u) << "unsplit: none";
  // Tail: under one wave of the grid's clusters, or every tile when there are fewer.
  WgmmaConfig tail = all;
  tail.split_mode = SplitMode::tail;
  const GemmProblem big{{4096, 4096, 4096}, kind_of("mk_nk_bf16_bf16")};  // 32 x 16 = 512 tiles
  EXPECT_EQ(bytes(tail, big, 132), kWorkspaceBytes + 131 * block);
  EXPECT_EQ(bytes(tail, fp16, 132), kWorkspaceBytes + 32 * block);
  // Stream: the partial wave and one whole wave; clusters of two CTAs count by the cluster.
  EXPECT_EQ(bytes(stream, big, 132), kWorkspaceBytes + 263 * block);
  WgmmaConfig paired = stream;
  paired.cluster_m = 2;
  EXPECT_EQ(bytes(paired, big, 132),
            kWorkspaceBytes + std::size_t{2 * 65 + 1} * 2 * static_cast<std::size_t>(paired.bm * paired.bn) * 4);

  // Mode all splits every tile: past 256 MiB of partial sums the shape is refused, with the modes that need less.
  const GemmProblem huge{{16384, 16384, 4096}, kind_of("mk_nk_bf16_bf16")};  // 128 x 64 tiles of 128 KiB: 1 GiB
  const auto why = wgmma().check_problem(all.to_params(), huge);
  EXPECT_TRUE(has(why, "SPLIT_K=4 splits all 8192 tiles")) << why.value_or("accepted");
  EXPECT_TRUE(has(why, "1024 MiB")) << *why;
  EXPECT_EQ(wgmma().check_problem(all.to_params(), {huge.shape, kind_of("mk_nk_bf16_fp32")}), std::nullopt);
  EXPECT_EQ(wgmma().check_problem(tail.to_params(), huge), std::nullopt);
}

TEST(WgmmaKinds, SplitConfigsNeedAtLeastTheFlagsWorkspace) {
  ProblemBuffers buffers = buffers_of("mk_kn_bf16_bf16");
  buffers.workspace = reinterpret_cast<void*>(0x40000);
  buffers.workspace_bytes = 4096;  // not even the flags
  KernelArgs args;
  WgmmaConfig c = split(2);
  c.persistent = true;
  try {
    wgmma().append_problem_args(c.to_params(), buffers, DriverFunctions{}, args);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("needs at least 1048576 bytes of workspace"), std::string::npos) << e.what();
  }
}

TEST(WgmmaKinds, TmaEpilogueWith16BitOutputNeeds64ColumnSubTiles) {
  WgmmaConfig tma;
  tma.epilogue = WgmmaEpilogue::tma;
  tma.c_buffers = 2;
  tma.bn = 96;
  tma.bm = 128;
  const Shape s{1024, 1024, 1024};
  ASSERT_TRUE(tma.problems().empty());
  const auto why = wgmma().check_problem(tma.to_params(), {s, kind_of("mk_kn_fp16_bf16")});
  EXPECT_TRUE(has(why, "EPILOGUE=\"tma\" with mk_kn_fp16_bf16")) << why.value_or("accepted");
  EXPECT_TRUE(has(why, "BN=96 is not a multiple of 64")) << *why;
  EXPECT_EQ(wgmma().check_problem(tma.to_params(), {s, kind_of("mk_kn_fp16_fp32_beta")}), std::nullopt);
  tma.bn = 128;
  EXPECT_EQ(wgmma().check_problem(tma.to_params(), {s, kind_of("mk_nk_bf16_bf16_beta")}), std::nullopt);
  // The rows epilogue stores 4 columns per lane, 8 bytes in 16 bits: any BN it takes.
  WgmmaConfig rows;
  rows.epilogue = WgmmaEpilogue::rows;
  rows.bn = 96;
  EXPECT_EQ(wgmma().check_problem(rows.to_params(), {s, kind_of("mk_nk_fp16_fp16_beta")}), std::nullopt);
}

TEST(WgmmaKinds, BStoredNByKIsMulticastInWholeSwizzleAtomsOfBn) {
  WgmmaConfig c;
  c.bn = 8;
  c.bm = 128;
  c.consumers = 2;
  c.swap_ab = false;
  c.cluster_m = 2;
  ASSERT_TRUE(c.problems().empty()) << c.problems().front();
  const Shape s{1024, 1024, 1024};
  const auto why = wgmma().check_problem(c.to_params(), {s, kind_of("mk_nk_fp16_fp32")});
  EXPECT_TRUE(has(why, "BN=8 with mk_nk_fp16_fp32")) << why.value_or("accepted");
  EXPECT_TRUE(has(why, "8 * CLUSTER_M = 16")) << *why;
  EXPECT_EQ(wgmma().check_problem(c.to_params(), {s, kind_of("mk_kn_fp16_fp32")}), std::nullopt);
  // Deep stages and swap-AB take B stored N x K: one 2-D copy per k-block, and a K-major wgmma A when swapped.
  WgmmaConfig deep;
  deep.bm = 16;
  deep.bn = 64;
  deep.consumers = 1;
  deep.swap_ab = true;
  deep.bk = 256;
  deep.stages = 5;
  ASSERT_TRUE(deep.problems().empty()) << deep.problems().front();
  EXPECT_EQ(wgmma().check_problem(deep.to_params(), {{16, 4096, 4096}, kind_of("mk_nk_bf16_bf16_beta")}), std::nullopt);
}

TEST(WgmmaKinds, RowStridesFollowEachOperandsLayout) {
  const Params p = WgmmaConfig{}.to_params();
  // K: rows of A (and of B stored N x K); N: rows of B stored K x N and of D.
  EXPECT_TRUE(has(wgmma().check_problem(p, {{256, 256, 100}, kind_of("mk_nk_bf16_bf16")}),
                  "K=100 is not a multiple of 8: TMA needs rows of A and of B (stored N x K)"));
  EXPECT_TRUE(has(wgmma().check_problem(p, {{256, 100, 256}, kind_of("mk_nk_bf16_bf16")}),
                  "N=100 is not a multiple of 8: TMA needs rows of D"));
  EXPECT_TRUE(has(wgmma().check_problem(p, {{256, 100, 256}, kind_of("mk_kn_bf16_bf16")}),
                  "N=100 is not a multiple of 8: TMA needs rows of B and of D"));
  EXPECT_EQ(wgmma().check_problem(p, {{250, 256, 256}, kind_of("mk_nk_bf16_bf16")}), std::nullopt) << "any M";
  // The default kind's reasons are check_shape's.
  EXPECT_EQ(wgmma().check_problem(p, {{256, 100, 256}, ProblemKind{}}), wgmma().check_shape(p, {256, 100, 256}));
  // The config's refusal of the kind comes before the shape's.
  WgmmaConfig swapped;
  swapped.bm = 64;
  swapped.bn = 128;
  swapped.swap_ab = true;
  EXPECT_TRUE(
      has(wgmma().check_problem(swapped.to_params(), {{256, 100, 256}, kind_of("km_kn_fp16_fp16")}), "SWAP_AB=1"));
}

TEST(WgmmaKinds, NameExpressionGainsTheKindOnlyWhenNotTheDefault) {
  const WgmmaConfig c;
  const std::string base = "mpgemm::wgmma_gemm<128, 256, 4, 2, 1, 1, 0, 8, 0, 0, 0, 1, 0, 0, 0, 0";
  EXPECT_EQ(c.name_expression(), base + ">");
  EXPECT_EQ(c.name_expression(ProblemKind{}), base + ">");
  EXPECT_EQ(c.name_expression(kind_of("mk_nk_bf16_bf16")), base + ", 64, 0, 1, 1, 1, 0>");
  EXPECT_EQ(c.name_expression(kind_of("mk_kn_fp16_fp32_beta")), base + ", 64, 0, 0, 0, 2, 1>");
  EXPECT_EQ(c.name_expression(kind_of("mk_nk_fp16_fp16")), base + ", 64, 0, 1, 0, 0, 0>");
  const KernelSpec def = wgmma().kernel_spec(c.to_params(), Arch{9, 0, false});
  EXPECT_EQ(def.name_expression, base + ">");
  EXPECT_EQ(def.program_name, c.name() + ".cu");
  EXPECT_EQ(wgmma().kernel_spec(c.to_params(), Arch{9, 0, false}, ProblemKind{}).name_expression, def.name_expression);
  const KernelSpec bf16 = wgmma().kernel_spec(c.to_params(), Arch{9, 0, false}, kind_of("mk_nk_bf16_bf16_beta"));
  EXPECT_EQ(bf16.name_expression, base + ", 64, 0, 1, 1, 1, 1>");
  EXPECT_EQ(bf16.program_name, c.name() + "_mk_nk_bf16_bf16_beta.cu");
  EXPECT_EQ(bf16.source, def.source);
  EXPECT_EQ(bf16.options, def.options);
  // A refused combination is never built.
  WgmmaConfig swapped;
  swapped.bm = 64;
  swapped.bn = 128;
  swapped.swap_ab = true;
  EXPECT_THROW(wgmma().kernel_spec(swapped.to_params(), Arch{9, 0, false}, kind_of("km_kn_fp16_fp32")), Error);
  EXPECT_EQ(wgmma().kernel_spec(c.to_params(), Arch{9, 0, false}, kind_of("km_kn_fp16_fp32")).name_expression,
            base + ", 64, 1, 0, 0, 2, 0>");
  // The fused epilogue's operation (epilogue_ops.cuh's kOp*) comes last, only when there is one.
  EXPECT_EQ(c.name_expression(kind_of("mk_nk_bf16_bf16_bias")), base + ", 64, 0, 1, 1, 1, 0, 1>");
  EXPECT_EQ(c.name_expression(kind_of("mk_nk_bf16_bf16_bias_relu")), base + ", 64, 0, 1, 1, 1, 0, 2>");
  EXPECT_EQ(c.name_expression(kind_of("mk_nk_fp16_fp16_beta_bias_gelu_tanh")), base + ", 64, 0, 1, 0, 0, 1, 3>");
  EXPECT_EQ(c.name_expression(kind_of("mk_kn_fp16_fp32_bias_gelu")), base + ", 64, 0, 0, 0, 2, 0, 4>");
  const KernelSpec gelu = wgmma().kernel_spec(c.to_params(), Arch{9, 0, false}, kind_of("mk_nk_bf16_bf16_bias_gelu"));
  EXPECT_EQ(gelu.program_name, c.name() + "_mk_nk_bf16_bf16_bias_gelu.cu");
  EXPECT_EQ(gelu.source, def.source);
}

TEST(WgmmaKinds, TensorMapsTakeTheKindsTypesAndBsLayout) {
  WgmmaConfig c;
  c.bm = 128;
  c.bn = 192;
  c.cluster_m = 2;
  const Shape s{1000, 3000, 2048};
  const WgmmaTensorMaps def = tensor_map_specs(c, s);
  const WgmmaTensorMaps def_kind = tensor_map_specs(c, s, ProblemKind{});
  EXPECT_TRUE(def.a == def_kind.a && def.b == def_kind.b && def.c == def_kind.c);
  EXPECT_EQ(def.b.dims, (std::array<std::uint64_t, 2>{3000, 2048}));
  const WgmmaTensorMaps nk = tensor_map_specs(c, s, kind_of("mk_nk_bf16_bf16"));
  EXPECT_EQ(nk.a.dtype, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
  EXPECT_EQ(nk.a.dims, def.a.dims);
  EXPECT_EQ(nk.a.box, def.a.box);
  EXPECT_EQ(nk.b.dtype, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
  EXPECT_EQ(nk.b.dims, (std::array<std::uint64_t, 2>{2048, 3000}));  // {K, N}: rows of K
  EXPECT_EQ(nk.b.row_stride_bytes, 2048u * 2);
  EXPECT_EQ(nk.b.box, (std::array<std::uint32_t, 2>{64, 96}));  // 64 of K, BN / CLUSTER_M rows
  EXPECT_EQ(nk.b.depth, 1u);
  EXPECT_EQ(nk.c.dtype, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
  EXPECT_EQ(nk.c.row_stride_bytes, 3000u * 2);
  EXPECT_EQ(nk.c.box, (std::array<std::uint32_t, 2>{64, 64}));  // 128-byte rows of 16-bit D
  EXPECT_EQ(def.c.box, (std::array<std::uint32_t, 2>{32, 64}));
  const WgmmaTensorMaps fp16 = tensor_map_specs(c, s, kind_of("mk_kn_fp16_fp16_beta"));
  EXPECT_EQ(fp16.b, def.b);
  EXPECT_EQ(fp16.c.dtype, CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
}

TEST(WgmmaKinds, SharedMemoryOfBStoredNByKIsItsRowsOnly) {
  WgmmaConfig c;
  c.bn = 96;  // two 64-column chunks when stored K x N, 96 rows when N x K
  c.bk = 128;
  c.swap_ab = false;
  const wgmma_layout::Layout kn = c.layout(), nk = c.layout(kind_of("mk_nk_fp16_fp32"));
  EXPECT_EQ(kn.b_stage_bytes(), 2 * 128 * 128);
  EXPECT_EQ(nk.b_stage_bytes(), 2 * 96 * 128);
  EXPECT_EQ(nk.a_stage_bytes(), kn.a_stage_bytes());
  EXPECT_LE(nk.dynamic_smem_bytes(), kn.dynamic_smem_bytes()) << "the launch's (the default layout's) is enough";
  EXPECT_EQ(nk.b_stage_bytes() % wgmma_layout::kAlign, 0);
}

// A driver that encodes nothing and records what it was asked.
std::vector<CUtensorMapDataType> encoded;
CUresult fake_encode(CUtensorMap* map, CUtensorMapDataType dtype, cuuint32_t, void*, const cuuint64_t*,
                     const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                     CUtensorMapL2promotion, CUtensorMapFloatOOBfill) {
  encoded.push_back(dtype);
  std::memset(map, 0, sizeof(*map));
  return CUDA_SUCCESS;
}

template <class T>
T arg(KernelArgs& args, std::size_t i) {
  T v;
  std::memcpy(&v, args.pointers().at(i), sizeof(T));
  return v;
}

TEST(WgmmaKinds, KernelArgumentsEndInAlphaBetaAndC) {
  ProblemBuffers buffers = buffers_of("mk_nk_bf16_fp16_beta");
  buffers.alpha = 2.0f;
  buffers.beta = -0.5f;
  DriverFunctions driver;
  driver.tensor_map_encode_tiled = fake_encode;
  {
    KernelArgs args;
    EXPECT_THROW(wgmma().append_problem_args(WgmmaConfig{}.to_params(), buffers, driver, args), Error)
        << "beta without C";
  }
  buffers.c_in = buffers.c;  // C may be D
  encoded.clear();
  KernelArgs args;
  wgmma().append_problem_args(WgmmaConfig{}.to_params(), buffers, driver, args);
  ASSERT_EQ(args.pointers().size(), 12u) << "a_map, b_map, c_map, D, workspace, M, N, K, alpha, beta, C, bias";
  EXPECT_EQ(encoded,
            (std::vector<CUtensorMapDataType>{CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
                                              CU_TENSOR_MAP_DATA_TYPE_FLOAT16}));
  EXPECT_EQ(arg<void*>(args, 3), buffers.c);
  EXPECT_EQ(arg<int>(args, 5), 256);
  EXPECT_EQ(arg<float>(args, 8), 2.0f);
  EXPECT_EQ(arg<float>(args, 9), -0.5f);
  EXPECT_EQ(arg<const void*>(args, 10), buffers.c);
  // The default kind: alpha 1, beta 0, no C.
  ProblemBuffers plain;
  plain.a = buffers.a;
  plain.b = buffers.b;
  plain.c = buffers.c;
  plain.shape = buffers.shape;
  KernelArgs defaults;
  wgmma().append_problem_args(WgmmaConfig{}.to_params(), plain, driver, defaults);
  ASSERT_EQ(defaults.pointers().size(), 12u);
  EXPECT_EQ(arg<float>(defaults, 8), 1.0f);
  EXPECT_EQ(arg<float>(defaults, 9), 0.0f);
  EXPECT_EQ(arg<const void*>(defaults, 10), nullptr);
  // A refused combination is never launched.
  buffers.kind = kind_of("mk_kn_fp16_bf16");
  KernelArgs refused;
  EXPECT_THROW(wgmma().append_problem_args(split(2).to_params(), buffers, driver, refused), Error);
}

// The bias is the kernel's last argument: null for a kind without an epilogue (even when the caller gives one), the
// caller's for a kind with one, which must give one, 16-byte aligned.
TEST(WgmmaKinds, KernelArgumentsEndInTheBiasOfAnEpilogueKind) {
  DriverFunctions driver;
  driver.tensor_map_encode_tiled = fake_encode;
  ProblemBuffers plain = buffers_of("mk_nk_bf16_bf16");
  plain.bias = reinterpret_cast<const void*>(0x40000);
  KernelArgs args;
  wgmma().append_problem_args(WgmmaConfig{}.to_params(), plain, driver, args);
  ASSERT_EQ(args.pointers().size(), 12u) << "a_map, b_map, c_map, D, workspace, M, N, K, alpha, beta, C, bias";
  EXPECT_EQ(arg<const void*>(args, 11), nullptr);

  ProblemBuffers fused = buffers_of("mk_nk_bf16_bf16_bias_gelu_tanh");
  const auto error_of = [&](const ProblemBuffers& b) {
    KernelArgs a;
    try {
      wgmma().append_problem_args(WgmmaConfig{}.to_params(), b, driver, a);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error_of(fused).find("adds a bias, and no bias was given"), std::string::npos) << error_of(fused);
  fused.bias = reinterpret_cast<const void*>(0x40008);
  EXPECT_NE(error_of(fused).find("its bias must be 16-byte aligned"), std::string::npos) << error_of(fused);
  fused.bias = reinterpret_cast<const void*>(0x40010);
  KernelArgs with_bias;
  wgmma().append_problem_args(WgmmaConfig{}.to_params(), fused, driver, with_bias);
  ASSERT_EQ(with_bias.pointers().size(), 12u);
  EXPECT_EQ(arg<const void*>(with_bias, 11), fused.bias);
}

}  // namespace
}  // namespace mpgemm
