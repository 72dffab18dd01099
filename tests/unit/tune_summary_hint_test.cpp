// TuneSummary::idle_hint: said from the lanes' accounts, naming what they measured the GPU waiting for (compiles, or
// the coordinator), and said only when that took 10% of the run or more.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "tune/tuner.hpp"

namespace mpgemm {
namespace {

TimeAccount lane(double wall, double in_worker, double compiles, double coordinator) {
  TimeAccount a;
  a.owner = "lane 0";
  a.wall_s = wall;
  a.phases = {{std::string(to_string(LanePhase::in_worker)), in_worker},
              {std::string(to_string(LanePhase::waiting_for_compiles)), compiles},
              {std::string(to_string(LanePhase::waiting_for_coordinator)), coordinator},
              {std::string(to_string(LanePhase::claiming)), 0.0},
              {std::string(to_string(LanePhase::checking)), 0.0}};
  return a;
}

// A compile-bound run: the model strategy over 24 transformer shapes on an H200, its GPU waiting on new configs.
TuneSummary compile_bound() {
  TuneSummary s;
  s.mode = "gpu";
  s.arch = *Arch::parse("sm_90a");
  s.compiled_now = 782;
  s.cubins_cached = 41;
  s.wall_s = 336.4;
  s.lanes = {lane(336.4, 57.2, 262.4, 16.8)};
  s.coordinator.owner = "coordinator";
  s.coordinator.wall_s = 336.4;
  s.coordinator.phases = {{std::string(to_string(CoordinatorPhase::waiting)), 300.0},
                          {std::string(to_string(CoordinatorPhase::recording)), 20.0},
                          {std::string(to_string(CoordinatorPhase::proposing)), 16.4}};
  return s;
}

TEST(TuneSummaryHint, AGpuRunThatWaitedForCompilesIsToldToFillTheCacheFirst) {
  const auto hint = compile_bound().idle_hint();
  ASSERT_TRUE(hint.has_value());
  EXPECT_NE(hint->find("waited for compiles 78% of the run (262.4 s; 782 of its 823 configs were compiled now)"),
            std::string::npos)
      << *hint;
  EXPECT_NE(hint->find("--compile-only --arch sm_90a --cubin-cache DIR"), std::string::npos) << *hint;
}

// The run's arch, not the space's: configs/sm86.json measured on an H100 compiles for sm_90, and a cache filled
// for the space's sm_86 would serve nothing (seen on an H100, results/leaders/).
TEST(TuneSummaryHint, TheCompileHintNamesTheArchTheRunCompiledFor) {
  TuneSummary s = compile_bound();
  s.arch = *Arch::parse("sm_90");
  const auto hint = s.idle_hint();
  ASSERT_TRUE(hint.has_value());
  EXPECT_NE(hint->find("--compile-only --arch sm_90 --cubin-cache DIR"), std::string::npos) << *hint;
}

// The leaders workflow on an H100 with every cubin cached (results/leaders/): the lane is in the worker all the time,
// and the worker's time goes to preparing shapes and settling more than to timing. The hint names that, measured.
TEST(TuneSummaryHint, AFedGpuWhoseWorkerMostlyPreparesAndSettlesIsToldSo) {
  TuneSummary s = compile_bound();
  s.compiled_now = 0;
  s.cubins_cached = 104;
  s.lanes = {lane(8.5, 8.4, 0, 0.1)};
  WorkerPhases w;
  w.timing_s = 4.6;
  w.preparing_s = 4.2;
  w.settling_s = 5.1;
  w.reranking_s = 6.0;
  w.waiting_s = 0.4;
  w.shapes = 10;
  w.reranks = 5;
  s.workers = {w};
  auto hint = s.idle_hint();
  ASSERT_TRUE(hint.has_value());
  EXPECT_NE(hint->find("the worker spent 46% of 20.3 s on the measuring protocol's cost per shape (preparing 10 "
                       "shape visits 4.2 s, settling before 5 re-ranks 5.1 s) against 23% timing"),
            std::string::npos)
      << *hint;
  EXPECT_EQ(hint->find("--compile-only"), std::string::npos) << *hint;
  s.workers[0].timing_s = 40;  // mostly timing: nothing to say
  EXPECT_EQ(s.idle_hint(), std::nullopt);
}

// The leaders workflow of issue 44 with every cubin cached: the lane waited on the coordinator, and the hint says
// so and names the coordinator's busiest phase instead of sending the user to compile beforehand.
TEST(TuneSummaryHint, AGpuRunThatWaitedForTheCoordinatorIsToldSoNotToCompile) {
  TuneSummary s = compile_bound();
  s.compiled_now = 0;
  s.cubins_cached = 104;
  s.lanes = {lane(210, 15, 0.5, 150)};
  const auto hint = s.idle_hint();
  ASSERT_TRUE(hint.has_value());
  EXPECT_NE(hint->find("waited for the coordinator 71% of the run (150.0 s)"), std::string::npos) << *hint;
  EXPECT_NE(hint->find("went most to database writes (20.0 s of 336.4 s)"), std::string::npos) << *hint;
  EXPECT_EQ(hint->find("--compile-only"), std::string::npos) << *hint;
}

TEST(TuneSummaryHint, NoHintForABusyGpuOrARunWithoutAGpu) {
  TuneSummary busy = compile_bound();
  busy.lanes = {lane(365.1, 330, 20, 15)};  // each wait under 10% of the run
  EXPECT_EQ(busy.idle_hint(), std::nullopt);

  for (const char* mode : {"replay", "compile-only"}) {
    TuneSummary other = compile_bound();
    other.mode = mode;
    EXPECT_EQ(other.idle_hint(), std::nullopt) << mode;
  }
  TuneSummary none = compile_bound();
  none.lanes.clear();
  EXPECT_EQ(none.idle_hint(), std::nullopt);
}

// The clock has one phase at a time, so the phases add up to the wall time; a scope returns to the phase before
// it; move re-files time already counted; the summary lists the largest first.
TEST(TimeAccount, PhasesAddUpAndTheSummaryListsTheLargestFirst) {
  PhaseClock<LanePhase> clock(LanePhase::waiting_for_coordinator);
  {
    PhaseScope in(clock, LanePhase::in_worker);
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  clock.settle();
  EXPECT_GE(clock.seconds(LanePhase::in_worker), 0.030);
  EXPECT_GE(clock.seconds(LanePhase::waiting_for_coordinator), 0.010);
  EXPECT_DOUBLE_EQ(clock.total(),
                   clock.seconds(LanePhase::in_worker) + clock.seconds(LanePhase::waiting_for_coordinator));
  const double waited = clock.seconds(LanePhase::waiting_for_coordinator);
  clock.move(LanePhase::waiting_for_coordinator, LanePhase::waiting_for_compiles, 1e9);  // no more than there was
  EXPECT_EQ(clock.seconds(LanePhase::waiting_for_coordinator), 0);
  EXPECT_EQ(clock.seconds(LanePhase::waiting_for_compiles), waited);
  clock.move(LanePhase::waiting_for_compiles, LanePhase::claiming, -1);  // a negative share moves nothing
  EXPECT_EQ(clock.seconds(LanePhase::waiting_for_compiles), waited);

  TimeAccount a;
  a.owner = "lane 0";
  a.wall_s = 10;
  a.phases = {{"claims", 0.01}, {"waiting for compiles", 2.0}, {"in the worker", 8.0}};
  EXPECT_EQ(a.summary(), "lane 0 10.0 s: in the worker 8.0 s (80%), waiting for compiles 2.0 s (20%)");
  EXPECT_EQ(a.seconds("claims"), 0.01);
  EXPECT_EQ(a.seconds("nothing"), 0);
}

}  // namespace
}  // namespace mpgemm
