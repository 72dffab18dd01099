// The library's dispatch policy (src/lib/dispatch_policy.hpp) on hand-made tables: exact shapes, nearest by the
// stated distance and tie rule, invalid winners skipped, and cuBLAS whenever no tuned winner is known to beat it.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "lib/dispatch_policy.hpp"

using namespace mpgemm;
using namespace mpgemm::lib;

namespace {

TunedShape row(Shape s, std::optional<double> ratio, std::optional<std::string> invalid = std::nullopt) {
  return {s, "cfg_" + s.str(), ratio, std::move(invalid)};
}

}  // namespace

TEST(DispatchPolicy, DistanceCountsDoublingsPerDimension) {
  EXPECT_DOUBLE_EQ(shape_distance({4096, 4096, 4096}, {4096, 4096, 4096}), 0.0);
  EXPECT_DOUBLE_EQ(shape_distance({4096, 4096, 4096}, {2048, 2048, 2048}), 3.0);
  EXPECT_DOUBLE_EQ(shape_distance({1024, 4096, 4096}, {4096, 4096, 1024}), 4.0);
  EXPECT_NEAR(shape_distance({3000, 3000, 3000}, {4096, 4096, 4096}), 3 * std::log2(4096.0 / 3000.0), 1e-12);
  EXPECT_DOUBLE_EQ(shape_distance({16, 8, 4}, {8, 16, 4}), shape_distance({8, 16, 4}, {16, 8, 4}));
}

TEST(DispatchPolicy, ATunedShapeRunsItsWinnerWhenItBeatsCublas) {
  const std::vector<TunedShape> t{row({2048, 2048, 2048}, 1.04), row({4096, 4096, 4096}, 1.01)};
  const Decision d = decide({4096, 4096, 4096}, t, {});
  EXPECT_EQ(d.route, Route::tuned);
  ASSERT_TRUE(d.chosen);
  EXPECT_EQ(*d.chosen, 1u);
  EXPECT_EQ(d.distance, 0.0);
  EXPECT_NE(d.reason.find("tuned at 4096x4096x4096"), std::string::npos) << d.reason;
}

TEST(DispatchPolicy, ATunedShapeWhoseWinnerLosesToCublasGoesToCublas) {
  const std::vector<TunedShape> t{row({4096, 4096, 4096}, 0.48)};
  const Decision d = decide({4096, 4096, 4096}, t, {});
  EXPECT_EQ(d.route, Route::cublas);
  ASSERT_TRUE(d.chosen);  // the row that decided is still named
  EXPECT_NE(d.reason.find("0.480x cuBLAS"), std::string::npos) << d.reason;
  // min_ratio 0 runs it anyway; a lower bar lets it through too.
  EXPECT_EQ(decide({4096, 4096, 4096}, t, {0.0}).route, Route::tuned);
  EXPECT_EQ(decide({4096, 4096, 4096}, t, {0.4}).route, Route::tuned);
}

TEST(DispatchPolicy, AnUnknownRatioIsNotKnownToBeatCublas) {
  const std::vector<TunedShape> t{row({4096, 4096, 4096}, std::nullopt)};
  const Decision d = decide({4096, 4096, 4096}, t, {});
  EXPECT_EQ(d.route, Route::cublas);
  EXPECT_NE(d.reason.find("unknown"), std::string::npos) << d.reason;
  EXPECT_EQ(decide({4096, 4096, 4096}, t, {0.0}).route, Route::tuned);
}

TEST(DispatchPolicy, AnUntunedShapeTakesTheNearestValidWinner) {
  const std::vector<TunedShape> t{row({2048, 2048, 2048}, 1.04), row({4096, 4096, 4096}, 1.01),
                                  row({8192, 8192, 8192}, 1.06)};
  const Decision d = decide({3000, 3000, 3000}, t, {});  // 1.35 from 4096^3, 1.65 from 2048^3
  EXPECT_EQ(d.route, Route::nearest);
  ASSERT_TRUE(d.chosen);
  EXPECT_EQ(*d.chosen, 1u);
  EXPECT_NEAR(d.distance, 3 * std::log2(4096.0 / 3000.0), 1e-12);
  EXPECT_NE(d.reason.find("not tuned; nearest tuned shape with a valid winner is 4096x4096x4096"), std::string::npos)
      << d.reason;
}

TEST(DispatchPolicy, TheNearestDecidesEvenWhenAFartherOneBeatsCublas) {
  const std::vector<TunedShape> t{row({2048, 2048, 2048}, 1.04), row({4096, 4096, 4096}, 0.90)};
  const Decision d = decide({3000, 3000, 3000}, t, {});
  EXPECT_EQ(d.route, Route::cublas);
  ASSERT_TRUE(d.chosen);
  EXPECT_EQ(*d.chosen, 1u);
}

TEST(DispatchPolicy, InvalidWinnersAreSkipped) {
  const std::vector<TunedShape> t{row({4096, 4096, 4096}, 1.05, "K=1001 is not a multiple of 8"),
                                  row({512, 512, 512}, 1.2)};
  const Decision d = decide({4096, 4096, 1001}, t, {});
  EXPECT_EQ(d.route, Route::nearest);
  ASSERT_TRUE(d.chosen);
  EXPECT_EQ(*d.chosen, 1u);
}

TEST(DispatchPolicy, NoValidWinnerGoesToCublasWithTheReason) {
  const std::vector<TunedShape> t{row({4096, 4096, 4096}, 1.05, "K=1001 is not a multiple of 8")};
  const Decision d = decide({4096, 4096, 1001}, t, {});
  EXPECT_EQ(d.route, Route::cublas);
  EXPECT_FALSE(d.chosen);
  EXPECT_NE(d.reason.find("K=1001 is not a multiple of 8"), std::string::npos) << d.reason;
}

TEST(DispatchPolicy, AnEmptyTableGoesToCublas) {
  const Decision d = decide({64, 64, 64}, {}, {});
  EXPECT_EQ(d.route, Route::cublas);
  EXPECT_FALSE(d.chosen);
  EXPECT_NE(d.reason.find("no tuned shapes"), std::string::npos) << d.reason;
}

TEST(DispatchPolicy, EqualDistancesGoToTheSmallerShapeWhateverTheOrder) {
  // 2048x4096x4096 and 8192x4096x4096 are both one doubling from 4096^3.
  std::vector<TunedShape> t{row({8192, 4096, 4096}, 1.1), row({2048, 4096, 4096}, 1.1)};
  Decision d = decide({4096, 4096, 4096}, t, {});
  ASSERT_TRUE(d.chosen);
  EXPECT_EQ(t[*d.chosen].shape, (Shape{2048, 4096, 4096}));
  std::swap(t[0], t[1]);
  d = decide({4096, 4096, 4096}, t, {});
  ASSERT_TRUE(d.chosen);
  EXPECT_EQ(t[*d.chosen].shape, (Shape{2048, 4096, 4096}));
  // M ties too: N decides.
  t = {row({4096, 8192, 4096}, 1.1), row({4096, 4096, 8192}, 1.1)};
  d = decide({4096, 4096, 4096}, t, {});
  ASSERT_TRUE(d.chosen);
  EXPECT_EQ(t[*d.chosen].shape, (Shape{4096, 4096, 8192}));
}
