#include "worker/kept_shapes.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace mpgemm {
namespace {

TEST(KeptShapes, NothingGoesWithinBothLimits) {
  const std::vector<std::size_t> bytes{100, 200, 300};
  EXPECT_EQ(kept_shapes_to_let_go(bytes, 600, 3), 0u);
  EXPECT_EQ(kept_shapes_to_let_go({}, 0, 0), 0u);
}

TEST(KeptShapes, TheLeastRecentGoFirstUntilTheNumberFits) {
  const std::vector<std::size_t> bytes{1, 1, 1, 1, 1};
  EXPECT_EQ(kept_shapes_to_let_go(bytes, 1e9, 3), 2u);
  EXPECT_EQ(kept_shapes_to_let_go(bytes, 1e9, 0), 5u);
}

TEST(KeptShapes, TheLeastRecentGoFirstUntilTheMemoryFits) {
  // The oldest is small: letting it go alone is not enough, the second must go too; the newest large one stays.
  const std::vector<std::size_t> bytes{10, 500, 100, 400};
  EXPECT_EQ(kept_shapes_to_let_go(bytes, 600, 8), 2u);
  EXPECT_EQ(kept_shapes_to_let_go(bytes, 1010, 8), 0u);
  EXPECT_EQ(kept_shapes_to_let_go(bytes, 1009, 8), 1u);
}

TEST(KeptShapes, AnUnknownLimitOfZeroBytesLetsEveryShapeGo) {
  const std::vector<std::size_t> bytes{10, 20};
  EXPECT_EQ(kept_shapes_to_let_go(bytes, 0, 8), 2u);
}

}  // namespace
}  // namespace mpgemm
