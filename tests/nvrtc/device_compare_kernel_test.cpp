// The comparison kernel (device/device_compare.cpp) compiles with NVRTC for the archs mpgemm measures on, without a
// GPU: a worker that cannot build it compares on the host, slowly, and only says so on stderr.
#include <gtest/gtest.h>

#include "compile/nvrtc_compile.hpp"
#include "device/device_compare.hpp"

namespace mpgemm {
namespace {

TEST(DeviceCompareKernel, CompilesForEveryMeasuredArch) {
  for (const char* name : {"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100"}) {
    const Arch arch = *Arch::parse(name);
    const KernelSpec spec = device_compare_spec(arch);
    EXPECT_FALSE(spec.arch.arch_specific) << name;  // the generic variant: it needs nothing arch-specific
    const CompileResult r = compile(spec);
    EXPECT_EQ(r.status, Status::ok) << name << ": " << r.log;
    EXPECT_FALSE(r.cubin.empty()) << name;
    EXPECT_FALSE(r.lowered_name.empty()) << name;
    EXPECT_EQ(r.spill_store_bytes, 0) << name << ": " << r.log;
  }
}

}  // namespace
}  // namespace mpgemm
