#include <gtest/gtest.h>

#include "tune/prune.hpp"

using namespace mpgemm;

namespace {

CompileResult compiled(int registers, int shared, int spill_store, int spill_load) {
  CompileResult r;
  r.status = Status::ok;
  r.registers = registers;
  r.shared_bytes = shared;
  r.spill_store_bytes = spill_store;
  r.spill_load_bytes = spill_load;
  return r;
}

LaunchGeometry block(std::uint32_t threads, std::uint32_t dynamic_smem) {
  LaunchGeometry g;
  g.block.x = threads;
  g.dynamic_smem_bytes = dynamic_smem;
  return g;
}

DeviceDescription h200() {
  DeviceDescription d;
  d.smem_per_block_optin = 232448;
  return d;
}

}  // namespace

TEST(Prune, KeepsAKernelWithinEveryLimit) {
  EXPECT_FALSE(prune(compiled(128, 0, 0, 0), block(256, 200 * 1024), h200(), {}));
}

TEST(Prune, SpillsArePrunedUnlessKept) {
  auto v = prune(compiled(255, 0, 16, 8), block(128, 0), h200(), {});
  ASSERT_TRUE(v);
  EXPECT_EQ(v->reason, PruneReason::spills);
  EXPECT_NE(v->message.find("16 B of stores"), std::string::npos) << v->message;
  EXPECT_FALSE(prune(compiled(255, 0, 16, 8), block(128, 0), h200(), PruneRules{.spills = false}));
}

TEST(Prune, RegistersBeyondABlockCannotLaunch) {
  // 255 registers round up to 8192 per warp; 32 warps need 262144 > 65536.
  auto v = prune(compiled(255, 0, 0, 0), block(1024, 0), h200(), {});
  ASSERT_TRUE(v);
  EXPECT_EQ(v->reason, PruneReason::over_limits);
  // 64 registers x 1024 threads is exactly 65536: it fits.
  EXPECT_FALSE(prune(compiled(64, 0, 0, 0), block(1024, 0), h200(), {}));
}

TEST(Prune, SharedMemoryBeyondTheOptInCannotLaunch) {
  auto v = prune(compiled(64, 4096, 0, 0), block(128, 230 * 1024), h200(), {});
  ASSERT_TRUE(v);
  EXPECT_EQ(v->reason, PruneReason::over_limits);
  EXPECT_NE(v->message.find("239616 bytes of shared memory per block"), std::string::npos) << v->message;
}

TEST(Prune, UnknownFiguresNeverPrune) {
  DeviceDescription unknown;  // smem_per_block_optin 0: unknown
  EXPECT_FALSE(prune(compiled(-1, -1, -1, -1), block(1024, 1 << 20), unknown, {}));
}
