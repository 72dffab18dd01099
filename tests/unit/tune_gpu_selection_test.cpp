// --gpus parsing (tune/gpu_backend.hpp) on the CPU; starting one worker per GPU is tested with fake workers in
// tests/nvrtc/tune_gpus_test.cpp and on real GPUs by tools/scale_bench.sh.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "tune/gpu_backend.hpp"

namespace mpgemm {
namespace {

TEST(TuneGpuSelection, AllOrAListOfOrdinals) {
  const GpuSelection all = GpuSelection::parse("all");
  EXPECT_TRUE(all.all);
  EXPECT_EQ(all.str(), "all");
  const GpuSelection some = GpuSelection::parse("2,0,5");
  EXPECT_FALSE(some.all);
  EXPECT_EQ(some.ordinals, (std::vector<int>{2, 0, 5}));
  EXPECT_EQ(some.str(), "2,0,5");
  EXPECT_EQ(GpuSelection{}.str(), "0") << "one GPU, the first, by default";
}

TEST(TuneGpuSelection, RefusesWhatIsNotAList) {
  for (const char* bad : {"", "ALL", "1,", ",1", "1,,2", "-1", "x", "1;2", "0,0", "1 2"})
    EXPECT_THROW(GpuSelection::parse(bad), UsageError) << bad;
}

}  // namespace
}  // namespace mpgemm
