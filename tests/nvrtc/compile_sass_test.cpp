// Which tensor-core instructions a cubin holds, from its SASS (cuobjdump --dump-sass): a wgmma kernel
// compiled by NVRTC for sm_90a through compile() must hold HGMMA, the warpgroup MMA; the wmma family's
// cp.async point for plain sm_90 holds HMMA and no HGMMA, which proves the check can fail. No cuobjdump is a
// failure, not a skip: tools/bootstrap.sh installs one. A dependent-launch wgmma config holds the grid-dependency
// wait (ACQBULK), and with PDL 1 the early trigger (PREEXIT); the same config without it holds neither.
#include <gtest/gtest.h>

#include <span>
#include <string>

#include "codegen/wgmma_family.hpp"
#include "codegen/wmma_family.hpp"
#include "compile/nvrtc_compile.hpp"
#include "kernels/wgmma_test_kernels.hpp"
#include "support/sass.hpp"

namespace mpgemm {
namespace {

std::string sass_of(const CompileResult& r) {
  return testing::disassemble(std::span<const char>(r.cubin));
}

TEST(Sass, CuobjdumpWasFound) {
  ASSERT_FALSE(testing::cuobjdump_path().empty()) << "no cuobjdump: run tools/bootstrap.sh (it installs "
                                                     "PyPI's nvidia-cuda-cuobjdump when the toolkit lacks "
                                                     "it) and re-run cmake";
}

TEST(Sass, WgmmaKernelForSm90aHoldsHgmma) {
  ASSERT_FALSE(testing::cuobjdump_path().empty()) << "no cuobjdump: run tools/bootstrap.sh";
  const auto kernels = test::wgmma_test_kernels();
  const auto clean = std::find_if(kernels.begin(), kernels.end(), [](auto& k) { return k.name == "wgmma_clean"; });
  ASSERT_NE(clean, kernels.end());
  const CompileResult r = compile(clean->spec());
  ASSERT_EQ(r.status, Status::ok) << r.log;
  const std::string sass = sass_of(r);
  EXPECT_NE(sass.find("Function : wgmma_clean"), std::string::npos) << sass;
  EXPECT_NE(sass.find("HGMMA.64x64x16.F32"), std::string::npos) << sass;
}

TEST(Sass, WmmaKernelForSm90HoldsHmmaNotHgmma) {
  ASSERT_FALSE(testing::cuobjdump_path().empty()) << "no cuobjdump: run tools/bootstrap.sh";
  const WmmaConfig cp_async{128, 64, 32, 32, 32, 2, WmmaLoad::cp_async, 8, 8};
  const CompileResult r = compile(WmmaFamily{}.kernel_spec(cp_async.to_params(), *Arch::parse("sm_90")));
  ASSERT_EQ(r.status, Status::ok) << r.log;
  const std::string sass = sass_of(r);
  EXPECT_NE(sass.find("HMMA"), std::string::npos) << sass;
  EXPECT_EQ(sass.find("HGMMA"), std::string::npos) << sass;
}

TEST(Sass, DependentLaunchWgmmaKernelWaitsForThePreviousGridAndTriggersTheNext) {
  ASSERT_FALSE(testing::cuobjdump_path().empty()) << "no cuobjdump: run tools/bootstrap.sh";
  WgmmaConfig c;
  c.bm = 64;
  c.bn = 64;
  c.consumers = 1;
  for (const DependentLaunch mode : {DependentLaunch::early, DependentLaunch::at_exit, DependentLaunch::none}) {
    c.dependent_launch = mode;
    const CompileResult r = compile(WgmmaFamily{}.kernel_spec(c.to_params(), *Arch::parse("sm_90a")));
    ASSERT_EQ(r.status, Status::ok) << r.log;
    const std::string sass = sass_of(r);
    EXPECT_NE(sass.find("HGMMA"), std::string::npos) << c.name();
    EXPECT_EQ(sass.find("ACQBULK") != std::string::npos, mode != DependentLaunch::none)
        << c.name() << ": griddepcontrol.wait";
    EXPECT_EQ(sass.find("PREEXIT") != std::string::npos, mode == DependentLaunch::early)
        << c.name() << ": griddepcontrol.launch_dependents";
  }
}

TEST(Sass, GarbageIsAnError) {
  ASSERT_FALSE(testing::cuobjdump_path().empty()) << "no cuobjdump: run tools/bootstrap.sh";
  const std::string garbage = "not a cubin";
  EXPECT_THROW(testing::disassemble(std::span<const char>(garbage.data(), garbage.size())), std::runtime_error);
}

}  // namespace
}  // namespace mpgemm
