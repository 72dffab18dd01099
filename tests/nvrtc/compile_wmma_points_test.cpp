// The writeup's three kernels compile for sm_86 and sm_90 with plausible resources and no spills.
#include <gtest/gtest.h>

#include <string>

#include "codegen/wmma_family.hpp"
#include "common/types.hpp"
#include "compile/nvrtc_compile.hpp"

namespace mpgemm {
namespace {

struct Point {
  const char* alias;
  WmmaConfig config;
};

std::vector<Point> published_points() {
  return {{"wmma_naive", WmmaConfig{16, 16, 16, 16, 16, 1, WmmaLoad::direct, 0, 0}},
          {"wmma_shared", WmmaConfig{128, 64, 64, 32, 32, 1, WmmaLoad::sync, 0, 0}},
          {"wmma_cp_async", WmmaConfig{128, 64, 32, 32, 32, 2, WmmaLoad::cp_async, 8, 8}}};
}

class PublishedPoints : public ::testing::TestWithParam<const char*> {};

TEST_P(PublishedPoints, CompileWithoutSpills) {
  const Arch arch = *Arch::parse(GetParam());
  const WmmaFamily family;
  for (const auto& [alias, config] : published_points()) {
    SCOPED_TRACE(std::string(alias) + " for " + arch.str());
    const CompileResult r = compile(family.kernel_spec(config.to_params(), arch));
    ASSERT_EQ(r.status, Status::ok) << r.log;
    EXPECT_EQ(r.arch, arch);
    ASSERT_GE(r.cubin.size(), 4u);
    EXPECT_EQ(std::string(r.cubin.data(), 4),
              "\x7f"
              "ELF");
    EXPECT_TRUE(r.lowered_name.starts_with("_ZN6mpgemm9wmma_gemmI")) << r.lowered_name;
    EXPECT_GE(r.registers, 16);
    EXPECT_LE(r.registers, 255);
    EXPECT_EQ(r.spill_store_bytes, 0);
    EXPECT_EQ(r.spill_load_bytes, 0);
    EXPECT_EQ(r.stack_bytes, 0);
    EXPECT_EQ(r.shared_bytes, 0);  // all shared memory is dynamic
    EXPECT_GT(r.compile_ms, 0.0);
    EXPECT_EQ(r.compile_key.size(), 16u);
    EXPECT_NE(r.log.find("Used"), std::string::npos) << r.log;
  }
}

INSTANTIATE_TEST_SUITE_P(Archs, PublishedPoints, ::testing::Values("sm_86", "sm_90"));

TEST(WmmaKernel, StaticAssertsRejectWhatCheckConfigRejects) {
  KernelSpec spec = WmmaFamily{}.kernel_spec(WmmaConfig{}.to_params(), Arch{8, 6, false});
  spec.name_expression = "mpgemm::wmma_gemm<128, 64, 32, 32, 32, 1, 2, 8, 8>";  // cp_async with one stage
  const CompileResult r = compile(spec);
  EXPECT_EQ(r.status, Status::compile_failed);
  EXPECT_NE(r.log.find("cp_async needs STAGES >= 2"), std::string::npos) << r.log;
  EXPECT_TRUE(r.cubin.empty());
}

TEST(WmmaKernel, CpAsyncNeedsSm80) {
  const CompileResult r = compile(WmmaFamily{}.kernel_spec(WmmaConfig{}.to_params(), Arch{7, 5, false}));
  EXPECT_EQ(r.status, Status::compile_failed);
  EXPECT_NE(r.log.find("cp.async needs sm_80 or newer"), std::string::npos) << r.log;

  // WmmaFamily::check_device says so before compiling, and what it accepts on sm_75 compiles there.
  DeviceDescription turing;
  turing.arch = Arch{7, 5, false};
  EXPECT_TRUE(WmmaFamily{}.check_device(WmmaConfig{}.to_params(), turing));
  WmmaConfig sync;
  sync.load = WmmaLoad::sync;
  sync.stages = 1;
  ASSERT_TRUE(sync.problems().empty());
  EXPECT_EQ(WmmaFamily{}.check_device(sync.to_params(), turing), std::nullopt);
  const CompileResult s = compile(WmmaFamily{}.kernel_spec(sync.to_params(), turing.arch));
  EXPECT_EQ(s.status, Status::ok) << s.log;
}

}  // namespace
}  // namespace mpgemm
