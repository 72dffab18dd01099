// What cuLaunchKernelEx is given for a geometry (LaunchConfig): the grid, the block, the dynamic shared memory, and
// an attribute for each launch property the geometry asks for, none otherwise. No GPU: the struct is plain data.
#include <gtest/gtest.h>

#include "device/kernel.hpp"

namespace mpgemm {
namespace {

LaunchGeometry persistent_geometry() {
  LaunchGeometry g;
  g.grid = Dim3{132, 1, 1};
  g.block = Dim3{384, 1, 1};
  g.dynamic_smem_bytes = 200704;
  g.persistent = true;
  return g;
}

TEST(LaunchConfig, APlainGeometryHasNoAttributes) {
  const LaunchConfig launch(persistent_geometry(), nullptr);
  EXPECT_EQ(launch.config.gridDimX, 132u);
  EXPECT_EQ(launch.config.blockDimX, 384u);
  EXPECT_EQ(launch.config.sharedMemBytes, 200704u);
  EXPECT_EQ(launch.config.numAttrs, 0u);
}

TEST(LaunchConfig, AClusterAndADependentLaunchAreOneAttributeEach) {
  LaunchGeometry g = persistent_geometry();
  g.cluster = Dim3{2, 1, 1};
  g.dependent_launch = true;
  const LaunchConfig launch(g, nullptr);
  ASSERT_EQ(launch.config.numAttrs, 2u);
  EXPECT_EQ(launch.config.attrs, launch.attributes);
  EXPECT_EQ(launch.attributes[0].id, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
  EXPECT_EQ(launch.attributes[0].value.clusterDim.x, 2u);
  EXPECT_EQ(launch.attributes[1].id, CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION);
  EXPECT_EQ(launch.attributes[1].value.programmaticStreamSerializationAllowed, 1);

  g.cluster = Dim3{1, 1, 1};
  const LaunchConfig alone(g, nullptr);
  ASSERT_EQ(alone.config.numAttrs, 1u);
  EXPECT_EQ(alone.attributes[0].id, CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION);
}

}  // namespace
}  // namespace mpgemm
