// The worker's account of where its time went: every phase in the line, shares of the total, the per-measurement
// overhead outside timing.
#include <gtest/gtest.h>

#include "worker/phase_totals.hpp"

namespace mpgemm {
namespace {

TEST(WorkerPhases, SummaryNamesEveryPhaseWithItsShare) {
  WorkerPhases p;
  p.measurements = 10;
  p.shapes = 2;
  p.timing_s = 6;
  p.verifying_s = 1;
  p.setup_s = 1;
  p.preparing_s = 1;
  p.waiting_s = 0.5;
  p.replying_s = 0.5;
  EXPECT_DOUBLE_EQ(p.total_s(), 10);
  EXPECT_EQ(p.summary(),
            "10 measurement(s), 2 shape(s) in 10.0 s: timing 6.0 s (60%), verifying 1.0 s (10%), loading 1.0 s (10%), "
            "preparing shapes 1.0 s (10%), waiting for requests 0.5 s (5%), replying 0.5 s (5%); per measurement "
            "300.0 ms outside timing");
}

// A re-rank's time is its own phase, its untimed settling rounds apart: a worker that only re-ranked (mpgemm-run
// --rerank) still accounts for its time.
TEST(WorkerPhases, ReranksAndTheirSettlingAreTheirOwnPhases) {
  WorkerPhases p;
  p.shapes = 1;
  p.preparing_s = 1;
  p.reranks = 2;
  p.reranking_s = 6;
  p.settling_s = 2;
  p.waiting_s = 1;
  EXPECT_DOUBLE_EQ(p.total_s(), 10);
  EXPECT_EQ(p.summary(),
            "0 measurement(s), 1 shape(s) in 10.0 s: timing 0.0 s (0%), verifying 0.0 s (0%), loading 0.0 s (0%), "
            "preparing shapes 1.0 s (10%), waiting for requests 1.0 s (10%), replying 0.0 s (0%), re-ranking 6.0 s "
            "(60%) (2 re-rank(s)), settling 2.0 s (20%)");
}

// Keeping the card warm between requests is not waiting in the summary, and settling after idle says how often.
TEST(WorkerPhases, KeepingWarmAndSettlingAfterIdleAreTheirOwnPhases) {
  WorkerPhases p;
  p.measurements = 10;
  p.shapes = 1;
  p.timing_s = 6;
  p.waiting_s = 1;
  p.keeping_warm_s = 2;
  p.idle_settles = 3;
  p.idle_settling_s = 1;
  EXPECT_DOUBLE_EQ(p.total_s(), 10);
  EXPECT_EQ(p.summary(),
            "10 measurement(s), 1 shape(s) in 10.0 s: timing 6.0 s (60%), verifying 0.0 s (0%), loading 0.0 s (0%), "
            "preparing shapes 0.0 s (0%), waiting for requests 1.0 s (10%), replying 0.0 s (0%), keeping warm 2.0 s "
            "(20%), settling after idle 1.0 s (10%) (3 time(s)); per measurement 100.0 ms outside timing");
}

TEST(WorkerPhases, EmptyTotalsSayZeroWithoutDividingByZero) {
  const WorkerPhases p;
  EXPECT_EQ(p.summary(),
            "0 measurement(s), 0 shape(s) in 0.0 s: timing 0.0 s (0%), verifying 0.0 s (0%), loading 0.0 s (0%), "
            "preparing shapes 0.0 s (0%), waiting for requests 0.0 s (0%), replying 0.0 s (0%)");
}

}  // namespace
}  // namespace mpgemm
