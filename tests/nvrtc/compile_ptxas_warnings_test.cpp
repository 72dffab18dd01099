// ptxas's performance diagnostics reach CompileResult::warnings through compile(): one small sm_90a kernel
// per diagnostic (tests/kernels/wgmma_test_kernels.hpp), each compiled by NVRTC here, and two clean kernels
// that must give none.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "compile/nvrtc_compile.hpp"
#include "kernels/wgmma_test_kernels.hpp"

namespace mpgemm {
namespace {

// Distinct kinds and codes in order of first appearance: ptxas repeats a diagnostic once per place.
template <class T, class F>
std::vector<T> distinct(const std::vector<PtxasWarning>& warnings, F field) {
  std::vector<T> out;
  for (const auto& w : warnings)
    if (std::find(out.begin(), out.end(), field(w)) == out.end()) out.push_back(field(w));
  return out;
}

class PtxasWarningKernels : public ::testing::TestWithParam<test::WgmmaTestKernel> {};

TEST_P(PtxasWarningKernels, CompileReportsTheExpectedKinds) {
  const test::WgmmaTestKernel& k = GetParam();
  const CompileResult r = compile(k.spec());
  ASSERT_EQ(r.status, Status::ok) << r.log;
  EXPECT_EQ(r.lowered_name, k.name);
  EXPECT_EQ(distinct<PtxasWarningKind>(r.warnings, [](const PtxasWarning& w) { return w.kind; }), k.kinds) << r.log;
  EXPECT_EQ(distinct<std::string>(r.warnings, [](const PtxasWarning& w) { return w.code; }), k.codes) << r.log;
  for (const auto& w : r.warnings) {
    EXPECT_NE(r.log.find(w.message), std::string::npos) << w.message;  // the text is ptxas's, whole
    if (w.kind != PtxasWarningKind::setmaxnreg_ignored) {              // setmaxnreg's diagnostics name no function
      EXPECT_NE(w.message.find("'" + k.name + "'"), std::string::npos) << w.message;
    }
  }
}

TEST(PtxasWarningKernelsSpills, TightRegistersSpillAndSerialize) {
  for (const auto& k : test::wgmma_test_kernels()) {
    if (k.name != "wgmma_tight_registers") continue;
    const CompileResult r = compile(k.spec());
    ASSERT_EQ(r.status, Status::ok) << r.log;
    EXPECT_EQ(r.registers, 64);
    EXPECT_GT(r.spill_store_bytes, 0) << r.log;
    EXPECT_GT(r.spill_load_bytes, 0) << r.log;
    return;
  }
  FAIL() << "no wgmma_tight_registers kernel";
}

TEST(PtxasWarningKernelsSetmaxnreg, LaunchBoundsLetTheSplitHappen) {
  for (const auto& k : test::wgmma_test_kernels()) {
    if (k.name != "setmaxnreg_launch_bounds") continue;
    const CompileResult r = compile(k.spec());
    ASSERT_EQ(r.status, Status::ok) << r.log;
    EXPECT_EQ(r.registers, 232) << r.log;  // the consumer's setmaxnreg.inc count: the reallocation took effect
    EXPECT_TRUE(r.warnings.empty()) << r.log;
    return;
  }
  FAIL() << "no setmaxnreg_launch_bounds kernel";
}

INSTANTIATE_TEST_SUITE_P(Sm90a, PtxasWarningKernels, ::testing::ValuesIn(test::wgmma_test_kernels()),
                         [](const ::testing::TestParamInfo<test::WgmmaTestKernel>& p) { return p.param.name; });

}  // namespace
}  // namespace mpgemm
