// The pure decisions of the timing protocol: nvbench's noise-based stopping rule and the quick screen.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "measure/sampling.hpp"

namespace mpgemm {
namespace {

TEST(RelativeNoise, IsSampleStdevOverMean) {
  EXPECT_EQ(relative_noise(std::vector<double>{}), 0);
  EXPECT_EQ(relative_noise(std::vector<double>{1.0}), 0);  // one sample says nothing about noise
  EXPECT_EQ(relative_noise(std::vector<double>{2.0, 2.0, 2.0}), 0);
  // mean 2, sample variance ((1)^2 + (1)^2) / 1 = 2: stdev sqrt(2), relative sqrt(2) / 2
  EXPECT_DOUBLE_EQ(relative_noise(std::vector<double>{1.0, 3.0}), std::sqrt(2.0) / 2);
  EXPECT_DOUBLE_EQ(relative_noise(std::vector<double>{1.0, 2.0, 3.0}), 0.5);
  EXPECT_EQ(relative_noise(std::vector<double>{0.0, 0.0}), 0);  // no positive mean: no noise to speak of
}

TEST(NoiseStop, StopsWhenSteadyWithEnoughSamples) {
  const NoiseStop rule{0.01, 5, 10};
  std::vector<double> steady(4, 1.0);
  EXPECT_EQ(next_sampling_step(steady, 0.1, rule), SamplingStep::more);  // under the target, but too few
  steady.push_back(1.0);
  EXPECT_EQ(next_sampling_step(steady, 0.1, rule), SamplingStep::converged);
}

TEST(NoiseStop, KeepsGoingWhileNoisyUntilTheCap) {
  const NoiseStop rule{0.01, 2, 1.5};
  const std::vector<double> noisy{1.0, 1.2, 0.9, 1.1, 1.0, 1.3};
  EXPECT_EQ(next_sampling_step(noisy, 0.5, rule), SamplingStep::more);
  EXPECT_EQ(next_sampling_step(noisy, 1.5, rule), SamplingStep::time_cap);
  // The target wins over the cap when both hold: the timing did reach it.
  EXPECT_EQ(next_sampling_step(std::vector<double>{1.0, 1.0}, 99, rule), SamplingStep::converged);
}

TEST(NoiseStop, NeedsTwoSamplesEvenWithAMinimumOfOne) {
  const NoiseStop rule{0.5, 1, 10};
  EXPECT_EQ(next_sampling_step(std::vector<double>{1.0}, 0, rule), SamplingStep::more);
  EXPECT_EQ(next_sampling_step(std::vector<double>{1.0, 1.01}, 0, rule), SamplingStep::converged);
}

TEST(Screen, FiresOnlyAboveTheThresholdOfAKnownBest) {
  const ScreenRule rule{1.5, 3};
  EXPECT_FALSE(screened_out(10.0, std::nullopt, rule));  // nothing to compare with: the first config is timed
  EXPECT_FALSE(screened_out(10.0, 0.0, rule));           // nor with a best that is not a time
  EXPECT_FALSE(screened_out(1.5, 1.0, rule));            // exactly at the threshold: timed
  EXPECT_TRUE(screened_out(1.5000001, 1.0, rule));
  EXPECT_FALSE(screened_out(0.5, 1.0, rule));  // faster than the best: certainly timed
  EXPECT_TRUE(screened_out(2.1, 1.0, ScreenRule{2.0, 3}));
  EXPECT_FALSE(screened_out(1.9, 1.0, ScreenRule{2.0, 3}));
}

// Like with like: once the worker has screened on the shape, screens are compared with the fastest screen, never
// with a full median; nothing is screened out while the coordinator knows no best.
TEST(ScreenBaseline, ComparesScreensWithScreens) {
  ScreenBaseline b;
  EXPECT_EQ(b.against(std::nullopt), std::nullopt);
  EXPECT_EQ(b.against(3.4), 3.4);  // nothing screened yet: the best median
  b.saw(4.5);                      // the first config's screen (it had no best to compare with)
  EXPECT_EQ(b.against(3.4), 4.5);  // 3.4 us full, 4.5 us over 3 launches: a config at 5.9 us stays in
  EXPECT_FALSE(screened_out(5.9, b.against(3.4), ScreenRule{}));
  EXPECT_TRUE(screened_out(7.0, b.against(3.4), ScreenRule{}));
  b.saw(6.0);  // slower screens do not move it
  b.saw(0.0);  // nor a time that is not one
  EXPECT_EQ(b.against(3.4), 4.5);
  b.saw(4.2);
  EXPECT_EQ(b.against(3.4), 4.2);
  EXPECT_EQ(b.against(std::nullopt), std::nullopt);  // still nothing screened out without a best
  b.reset();                                         // the next shape
  EXPECT_EQ(b.against(2.0), 2.0);
}

// The worker keeps the card busy only inside the window after a request, and settles only after a real idle gap.
TEST(ClockHold, KeepsWarmInsideTheWindowAndSettlesOnlyAfterAnIdleGap) {
  const ClockHold hold{5000, 200};
  EXPECT_TRUE(keep_warm_now(0, hold));
  EXPECT_TRUE(keep_warm_now(4999, hold));
  EXPECT_FALSE(keep_warm_now(5000, hold));
  EXPECT_FALSE(keep_warm_now(1, ClockHold{0, 200}));
  EXPECT_EQ(idle_settle_for(kIdleGapMs, hold), 0);  // the host's few ms between measurements are no idle gap
  EXPECT_EQ(idle_settle_for(kIdleGapMs + 0.5, hold), 200);
  EXPECT_EQ(idle_settle_for(60'000, hold), 200);
  EXPECT_EQ(idle_settle_for(60'000, ClockHold{5000, 0}), 0);
}

TEST(L2Mode, NamesRoundTrip) {
  for (L2Mode m : {L2Mode::warm, L2Mode::cold}) EXPECT_EQ(l2_mode_from_string(to_string(m)), m);
  EXPECT_FALSE(l2_mode_from_string("hot"));
}

TEST(BatchEnqueue, NamesRoundTrip) {
  for (BatchEnqueue b : {BatchEnqueue::stream, BatchEnqueue::graph})
    EXPECT_EQ(batch_enqueue_from_string(to_string(b)), b);
  EXPECT_EQ(to_string(BatchEnqueue::graph), "graph");  // the stored text (measurements.batches, reranks.batches)
  EXPECT_FALSE(batch_enqueue_from_string("host"));
}

}  // namespace
}  // namespace mpgemm
