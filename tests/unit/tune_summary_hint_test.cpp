// TuneSummary::idle_hint: said when the GPU waited on compiling, and only then.
#include <gtest/gtest.h>

#include "tune/tuner.hpp"

namespace mpgemm {
namespace {

// A real compile-bound run: the model strategy over 24 transformer shapes on an H200, whose GPU sat idle 83% of
// the run while new configs compiled.
TuneSummary compile_bound() {
  TuneSummary s;
  s.mode = "gpu";
  s.compiled_now = 782;
  s.cubins_cached = 41;
  s.wall_s = 336.4;
  s.device_busy_s = {57.2};  // idle 83%
  return s;
}

TEST(TuneSummaryHint, AGpuRunThatWaitedOnCompilingIsToldToFillTheCacheFirst) {
  const auto hint = compile_bound().idle_hint();
  ASSERT_TRUE(hint.has_value());
  EXPECT_NE(hint->find("waited 83% of the run while 782 of its 823 configs were compiled"), std::string::npos) << *hint;
  EXPECT_NE(hint->find("--compile-only --cubin-cache DIR"), std::string::npos) << *hint;
}

TEST(TuneSummaryHint, NoHintForABusyGpuACachedRunOrARunWithoutAGpu) {
  TuneSummary busy = compile_bound();
  busy.device_busy_s = {365.1 * 0.81};  // v20's exhaustive suite run: idle 19%
  busy.wall_s = 365.1;
  EXPECT_EQ(busy.idle_hint(), std::nullopt);

  TuneSummary cached = compile_bound();
  cached.compiled_now = 10;
  cached.cubins_cached = 813;  // idle for another reason: compiling is not it
  EXPECT_EQ(cached.idle_hint(), std::nullopt);

  for (const char* mode : {"replay", "compile-only"}) {
    TuneSummary other = compile_bound();
    other.mode = mode;
    EXPECT_EQ(other.idle_hint(), std::nullopt) << mode;
  }
}

}  // namespace
}  // namespace mpgemm
