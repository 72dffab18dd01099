#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "codegen/family.hpp"
#include "codegen/kernel_sources.hpp"
#include "codegen/wmma_family.hpp"
#include "common/error.hpp"

namespace mpgemm {
namespace {

Params point(int bm, int bn, int bk, int wm, int wn, int stages, const char* load, int pad_a, int pad_b) {
  return Params{{"BM", std::int64_t{bm}},    {"BN", std::int64_t{bn}},       {"BK", std::int64_t{bk}},
                {"WM", std::int64_t{wm}},    {"WN", std::int64_t{wn}},       {"STAGES", std::int64_t{stages}},
                {"LOAD", std::string(load)}, {"PAD_A", std::int64_t{pad_a}}, {"PAD_B", std::int64_t{pad_b}}};
}
const Params kNaive = point(16, 16, 16, 16, 16, 1, "direct", 0, 0);
const Params kShared = point(128, 64, 64, 32, 32, 1, "sync", 0, 0);
const Params kCpAsync = point(128, 64, 32, 32, 32, 2, "cp_async", 8, 8);

const Family& wmma() {
  return family("wmma");
}

Params with(Params p, const std::string& name, Value v) {
  p[name] = std::move(v);
  return p;
}

bool any_contains(const std::vector<std::string>& messages, const std::string& needle) {
  for (const auto& m : messages)
    if (m.find(needle) != std::string::npos) return true;
  return false;
}

TEST(WmmaFamily, NamesOfThePublishedPoints) {
  EXPECT_EQ(wmma().config_name(kNaive), "wmma_direct_bm16_bn16_bk16_s1_w16x16_p0x0");
  EXPECT_EQ(wmma().config_name(kShared), "wmma_sync_bm128_bn64_bk64_s1_w32x32_p0x0");
  EXPECT_EQ(wmma().config_name(kCpAsync), "wmma_cp_async_bm128_bn64_bk32_s2_w32x32_p8x8");
}

TEST(WmmaFamily, NameIsStableAndCoversEveryParameter) {
  EXPECT_EQ(wmma().config_name(kCpAsync), wmma().config_name(WmmaConfig::from_params(kCpAsync).to_params()));
  for (const auto& [name, value] : kCpAsync) {
    Params changed = kCpAsync;
    changed[name] = name == "LOAD" ? Value{std::string("sync")} : Value{std::get<std::int64_t>(value) + 16};
    EXPECT_NE(wmma().config_name(changed), wmma().config_name(kCpAsync)) << name;
  }
}

TEST(WmmaFamily, PublishedPointsAreValid) {
  for (const auto& p : {kNaive, kShared, kCpAsync})
    EXPECT_TRUE(wmma().check_config(p).empty()) << wmma().config_name(p);
}

TEST(WmmaFamily, KernelSpecIsPure) {
  const Arch sm86{8, 6, false};
  const KernelSpec a = wmma().kernel_spec(kCpAsync, sm86), b = wmma().kernel_spec(kCpAsync, sm86);
  EXPECT_EQ(a.program_name, b.program_name);
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.name_expression, b.name_expression);
  EXPECT_EQ(a.options, b.options);
  EXPECT_EQ(a.arch, b.arch);
  EXPECT_EQ(a.program_name, "wmma_cp_async_bm128_bn64_bk32_s2_w32x32_p8x8.cu");
  EXPECT_EQ(a.source, "#include \"wmma_gemm.cuh\"\n");
  EXPECT_EQ(a.name_expression, "mpgemm::wmma_gemm<128, 64, 32, 32, 32, 2, 2, 8, 8>");
  EXPECT_EQ(wmma().kernel_spec(kNaive, sm86).name_expression, "mpgemm::wmma_gemm<16, 16, 16, 16, 16, 1, 0, 0, 0>");
  for (const auto& o : a.options) EXPECT_EQ(o.find("fast_math"), std::string::npos) << o;
  const Arch sm90a{9, 0, true};
  EXPECT_EQ(wmma().kernel_spec(kCpAsync, sm90a).arch, sm90a);
}

TEST(WmmaFamily, KernelSpecRejectsInvalidConfig) {
  EXPECT_THROW(wmma().kernel_spec(with(kCpAsync, "STAGES", std::int64_t{1}), Arch{}), Error);
}

TEST(WmmaFamily, KernelFileIsEmbedded) {
  EXPECT_FALSE(kernel_source(wmma().kernel_file()).empty());
}

TEST(WmmaFamily, LaunchGeometryOfThePublishedPoints) {
  const Shape s{2048, 2048, 2048};
  const DeviceDescription unknown;  // the geometry does not depend on the device
  LaunchGeometry g = wmma().launch_geometry(kCpAsync, s, unknown);
  EXPECT_EQ(g.grid.x, 32u);
  EXPECT_EQ(g.grid.y, 16u);
  EXPECT_EQ(g.block.x, 256u);
  EXPECT_EQ(g.block.count(), 256u);
  EXPECT_EQ(g.cluster.count(), 1u);
  EXPECT_EQ(g.dynamic_smem_bytes, 29696u);  // 2 * (128*40 + 32*72) * 2
  EXPECT_FALSE(g.persistent);
  g = wmma().launch_geometry(kShared, s, unknown);
  EXPECT_EQ(g.grid.x, 32u);
  EXPECT_EQ(g.grid.y, 16u);
  EXPECT_EQ(g.block.x, 256u);
  EXPECT_EQ(g.dynamic_smem_bytes, 24576u);  // (128*64 + 64*64) * 2
  g = wmma().launch_geometry(kNaive, s, unknown);
  EXPECT_EQ(g.grid.x, 128u);
  EXPECT_EQ(g.grid.y, 128u);
  EXPECT_EQ(g.block.x, 32u);
  EXPECT_EQ(g.dynamic_smem_bytes, 0u);
}

TEST(WmmaFamily, LaunchGeometryRoundsUpAndCountsTheStagingTile) {
  LaunchGeometry g = wmma().launch_geometry(kCpAsync, Shape{1000, 999, 64}, DeviceDescription{});
  EXPECT_EQ(g.grid.x, 16u);  // ceil(999 / 64)
  EXPECT_EQ(g.grid.y, 8u);   // ceil(1000 / 128)
  // 16 warps of 16x16: ring (64*16 + 16*64) * 2 = 4096 bytes < staging 16 * 1024.
  g = wmma().launch_geometry(point(64, 64, 16, 16, 16, 1, "sync", 0, 0), Shape{}, DeviceDescription{});
  EXPECT_EQ(g.block.x, 512u);
  EXPECT_EQ(g.dynamic_smem_bytes, 16384u);
}

TEST(WmmaFamily, CheckDeviceNamesTheArchAnInstructionNeeds) {
  auto on = [](const char* arch) {
    DeviceDescription d;  // as in compile-only mode: only the target is known
    d.arch = *Arch::parse(arch);
    return d;
  };
  for (const char* arch : {"sm_80", "sm_86", "sm_90", "sm_90a", "sm_100"})
    for (const auto& p : {kNaive, kShared, kCpAsync})
      EXPECT_EQ(wmma().check_device(p, on(arch)), std::nullopt) << arch << " " << wmma().config_name(p);
  EXPECT_EQ(wmma().check_device(kShared, on("sm_75")), std::nullopt);
  EXPECT_EQ(wmma().check_device(kCpAsync, on("sm_75")),
            std::optional<std::string>("cp.async needs sm_80 (Ampere) or newer; the device is sm_75"));
  EXPECT_EQ(wmma().check_device(kNaive, on("sm_61")),
            std::optional<std::string>("WMMA needs sm_70 (Volta) or newer; the device is sm_61"));
  // What the device cannot hold is the worker's finding (resources_exceeded), not a reason to skip the config.
  DeviceDescription small = on("sm_86");
  small.smem_per_block_optin = 1024;
  EXPECT_EQ(wmma().check_device(kCpAsync, small), std::nullopt);
}

TEST(WmmaFamily, CheckConfigMessages) {
  auto problems = [](const Params& p) { return wmma().check_config(p); };
  EXPECT_TRUE(any_contains(problems(with(kCpAsync, "WM", std::int64_t{24})), "WM=24 is not a multiple of 16"));
  EXPECT_TRUE(any_contains(problems(with(with(kCpAsync, "BM", std::int64_t{96}), "WM", std::int64_t{64})),
                           "BM=96 is not a multiple of WM=64"));
  EXPECT_TRUE(any_contains(problems(with(kCpAsync, "BK", std::int64_t{24})), "BK=24 is not a multiple of 16"));
  EXPECT_TRUE(any_contains(problems(with(kCpAsync, "PAD_A", std::int64_t{4})), "BK+PAD_A=36 is not a multiple of 8"));
  EXPECT_TRUE(any_contains(problems(with(kCpAsync, "PAD_B", std::int64_t{2})), "BN+PAD_B=66 is not a multiple of 8"));
  EXPECT_TRUE(any_contains(problems(with(kCpAsync, "STAGES", std::int64_t{1})), "STAGES must be >= 2, got 1"));
  EXPECT_TRUE(any_contains(problems(with(kShared, "STAGES", std::int64_t{2})), "STAGES must be 1, got 2"));
  EXPECT_TRUE(any_contains(problems(with(kNaive, "PAD_A", std::int64_t{8})), "PAD_A and PAD_B must be 0"));
  EXPECT_TRUE(any_contains(problems(point(256, 256, 16, 16, 16, 1, "sync", 0, 0)), "8192 threads per block"));
  EXPECT_TRUE(any_contains(problems(point(256, 256, 128, 64, 128, 4, "cp_async", 8, 8)), "bytes of shared memory"));
  EXPECT_TRUE(any_contains(problems(with(kCpAsync, "BN", std::int64_t{0})), "BN=0 must be positive"));
  EXPECT_TRUE(any_contains(problems(with(kCpAsync, "LOAD", std::string("tma"))), "got \"tma\""));
  Params missing = kCpAsync;
  missing.erase("STAGES");
  EXPECT_TRUE(any_contains(problems(missing), "STAGES is missing"));
  EXPECT_TRUE(any_contains(problems(with(kCpAsync, "BM", std::string("128"))), "BM must be an integer"));
}

TEST(WmmaFamily, CheckShape) {
  EXPECT_EQ(wmma().check_shape(kNaive, Shape{1000, 2048, 2048}),
            "M=1000 is not a multiple of 16 (wmma_direct loads 16x16 fragments straight from global memory)");
  EXPECT_TRUE(wmma().check_shape(kNaive, Shape{2048, 2040, 2048}).value_or("").starts_with("N=2040 is not"));
  EXPECT_EQ(wmma().check_shape(kNaive, Shape{48, 80, 32}), std::nullopt);
  EXPECT_EQ(wmma().check_shape(kCpAsync, Shape{1000, 999, 1000}), std::nullopt);
  EXPECT_TRUE(
      wmma().check_shape(kCpAsync, Shape{1024, 1024, 1001}).value_or("").starts_with("K=1001 is not a multiple of 8"));
  EXPECT_TRUE(wmma().check_shape(kShared, Shape{1024, 1024, 1001}).has_value());
  EXPECT_TRUE(wmma().check_shape(kCpAsync, Shape{0, 16, 16}).value_or("").starts_with("M=0 must be positive"));
  EXPECT_TRUE(wmma().check_shape(kCpAsync, Shape{128LL * 65536, 64, 64}).value_or("").find("grid") !=
              std::string::npos);
}

TEST(WmmaConfig, JsonRoundTrip) {
  const WmmaConfig c = WmmaConfig::from_params(kCpAsync);
  const nlohmann::json j = c;
  EXPECT_EQ(j.at("LOAD"), "cp_async");
  EXPECT_EQ(j.at("PAD_B"), 8);
  EXPECT_EQ(j.get<WmmaConfig>(), c);
  EXPECT_EQ(c.to_params(), kCpAsync);
  EXPECT_EQ(WmmaConfig{}, c);  // the defaults are the writeup's wmma_cp_async
  nlohmann::json bad = j;
  bad["LOAD"] = "tma";
  EXPECT_THROW(bad.get<WmmaConfig>(), Error);
}

TEST(WmmaFamily, ProblemArgsCheckAlignment) {
  ProblemBuffers buffers;
  buffers.a = reinterpret_cast<const void*>(0x10000);
  buffers.b = reinterpret_cast<const void*>(0x20000);
  buffers.c = reinterpret_cast<void*>(0x30000);
  KernelArgs args;
  wmma().append_problem_args(kCpAsync, buffers, DriverFunctions{}, args);
  EXPECT_EQ(args.pointers().size(), 6u);
  EXPECT_EQ(*static_cast<const void* const*>(args.pointers()[0]), buffers.a);
  EXPECT_EQ(*static_cast<int*>(args.pointers()[5]), 2048);

  ProblemBuffers misaligned = buffers;
  misaligned.b = reinterpret_cast<const void*>(0x20008);
  KernelArgs none;
  try {
    wmma().append_problem_args(kCpAsync, misaligned, DriverFunctions{}, none);
    FAIL() << "expected mpgemm::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("B (0x20008) is not 16-byte aligned"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(none.pointers().empty());
  misaligned.b = reinterpret_cast<const void*>(0x20010);  // 16-byte aligned: fine for cp.async, not for direct WMMA
  EXPECT_NO_THROW(wmma().append_problem_args(kCpAsync, misaligned, DriverFunctions{}, none));
  EXPECT_THROW(wmma().append_problem_args(kNaive, misaligned, DriverFunctions{}, none), Error);
}

TEST(Registry, LooksUpFamiliesByName) {
  EXPECT_EQ(family("wmma").name(), "wmma");
  const auto names = family_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "wmma"), names.end());
  try {
    family("tma");
    FAIL() << "expected mpgemm::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("known: wmma"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace mpgemm
