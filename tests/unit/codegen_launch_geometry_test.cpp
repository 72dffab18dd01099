// LaunchGeometry::persistent: what the launcher may do to a persistent kernel's grid (lower_persistent_grid).
#include <gtest/gtest.h>

#include "codegen/family.hpp"

namespace mpgemm {
namespace {

LaunchGeometry persistent(std::uint32_t grid_x, std::uint32_t cluster_x = 1) {
  LaunchGeometry g;
  g.grid = {grid_x, 1, 1};
  g.block = {384, 1, 1};
  g.cluster = {cluster_x, 1, 1};
  g.dynamic_smem_bytes = 200704;
  g.persistent = true;
  return g;
}

TEST(LaunchGeometry, PersistentGridIsLoweredToWhatIsCoResident) {
  const LaunchGeometry g = lower_persistent_grid(persistent(1024), 132);  // 1 block per SM on 132 SMs
  EXPECT_EQ(g.grid.x, 132u);
  EXPECT_EQ(g.grid.y, 1u);
  EXPECT_EQ(g.grid.z, 1u);
  // Everything else is left as it was.
  EXPECT_EQ(g.block.x, 384u);
  EXPECT_EQ(g.cluster.x, 1u);
  EXPECT_EQ(g.dynamic_smem_bytes, 200704u);
  EXPECT_TRUE(g.persistent);
}

TEST(LaunchGeometry, PersistentGridIsNeverRaised) {
  EXPECT_EQ(lower_persistent_grid(persistent(64), 132).grid.x, 64u);
  EXPECT_EQ(lower_persistent_grid(persistent(132), 132).grid.x, 132u);
  EXPECT_EQ(lower_persistent_grid(persistent(64, 2), 132).grid.x, 64u);
}

TEST(LaunchGeometry, PersistentGridIsAWholeNumberOfClusters) {
  // 66 clusters of 2 co-resident: 132 blocks.
  EXPECT_EQ(lower_persistent_grid(persistent(1024, 2), 132).grid.x, 132u);
  // 131 blocks (an odd count the caller should not produce, but must survive) are 65 clusters of 2.
  EXPECT_EQ(lower_persistent_grid(persistent(1024, 2), 131).grid.x, 130u);
  EXPECT_EQ(lower_persistent_grid(persistent(1024, 4), 130).grid.x, 128u);
  // A cluster counts all its dimensions.
  LaunchGeometry g = persistent(1024);
  g.cluster = {2, 2, 1};
  EXPECT_EQ(lower_persistent_grid(g, 130).grid.x, 128u);
}

TEST(LaunchGeometry, NothingCoResidentGivesAnEmptyGridForTheCallerToReport) {
  EXPECT_EQ(lower_persistent_grid(persistent(1024), 0).grid.x, 0u);
  EXPECT_EQ(lower_persistent_grid(persistent(1024, 2), 1).grid.x, 0u);
}

TEST(LaunchGeometry, AKernelThatIsNotPersistentKeepsItsGrid) {
  LaunchGeometry g = persistent(1024, 2);
  g.persistent = false;
  g.grid.y = 16;
  const LaunchGeometry same = lower_persistent_grid(g, 132);
  EXPECT_EQ(same.grid.x, 1024u);
  EXPECT_EQ(same.grid.y, 16u);
  EXPECT_FALSE(same.persistent);
}

TEST(LaunchGeometry, ABalancedGridStaysBalancedWhenLowered) {
  LaunchGeometry g = persistent(132);
  g.balanced_units = 512;  // 4 rounds on 132 blocks or on 128
  EXPECT_EQ(balance_persistent_grid(g).grid.x, 128u);
  EXPECT_EQ(lower_persistent_grid(g, 132).grid.x, 128u);
  EXPECT_EQ(lower_persistent_grid(g, 100).grid.x, 86u);  // 100 co-resident: 6 rounds, ceil(512 / 6) = 86 blocks
  g.balanced_units = 132;
  EXPECT_EQ(balance_persistent_grid(g).grid.x, 132u);  // one round each: nothing to balance
  g.balanced_units = 0;
  EXPECT_EQ(balance_persistent_grid(g).grid.x, 132u);  // not asked for
  LaunchGeometry pairs = persistent(132, 2);
  pairs.balanced_units = 256;  // cluster tiles: 66 clusters -> 4 rounds -> 64 clusters
  EXPECT_EQ(balance_persistent_grid(pairs).grid.x, 128u);
  pairs.persistent = false;
  EXPECT_EQ(balance_persistent_grid(pairs).grid.x, 132u);
}

}  // namespace
}  // namespace mpgemm
