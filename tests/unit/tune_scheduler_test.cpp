// The pipeline without a GPU: measuring lanes over fake backends, outcomes recorded once each, budgets, resume.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "codegen/family.hpp"
#include "common/hash.hpp"
#include "space/space.hpp"
#include "store/store.hpp"
#include "tune/scheduler.hpp"

using namespace mpgemm;

namespace {

// Times every config at a figure derived from its name, a little later each time, like a device would.
class FakeBackend final : public MeasureBackend {
 public:
  FakeBackend() {
    device_.name = "Fake GPU";
    device_.arch = *Arch::parse("sm_86");
  }
  std::string mode() const override { return "replay"; }
  const DeviceDescription& device() const override { return device_; }
  BackendCapabilities capabilities() const override { return BackendCapabilities{.needs_cubins = false}; }
  ShapeReference prepare_shape(const Shape&) override {
    ++prepared;
    ShapeReference r;
    r.timing.median_ms = r.timing.min_ms = r.timing.max_ms = 1.0;
    return r;
  }
  std::optional<Measurement> measure(const Candidate& c, const CompileResult&, const Shape&) override {
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    Measurement m;
    m.timing = TimingStats{};
    const double ms = 1.0 + double(std::hash<std::string>{}(c.name) % 1000) / 1000.0;
    m.timing->median_ms = m.timing->min_ms = m.timing->max_ms = ms;
    return m;
  }
  std::atomic<int> calls{0};
  std::atomic<int> prepared{0};

 private:
  DeviceDescription device_;
};

class SchedulerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("mpgemm_scheduler_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    space_ = load_space(std::filesystem::path(MPGEMM_SOURCE_DIR) / "configs/sm86.json");
    space_.shapes = {Shape{256, 256, 256}, Shape{512, 256, 128}};
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // One run over `backends`; returns the report and the number of outcomes it recorded.
  std::pair<SchedulerReport, std::size_t> run(std::vector<MeasureBackend*> backends,
                                              std::optional<std::size_t> budget = std::nullopt) {
    Store store = Store::open(dir_ / "r.db", Store::Mode::read_write);
    RunInfo info;
    info.argv = {"test"};
    info.mode = "replay";
    const std::int64_t run_id = store.begin_run(info);
    const Family& fam = family(space_.family);
    Plan plan(space_, fam, *Arch::parse("sm_86"), backends.front()->device(), store);
    Recorder recorder(store, run_id);
    SchedulerSettings s;
    s.shapes = space_.shapes;
    s.backends = backends;
    s.replay = true;
    s.db = dir_ / "r.db";
    s.budget = budget;
    SchedulerReport r = run_schedule(RunContext{plan, recorder, store, space_, fam, backends.front()->device()}, s, {});
    store.end_run(run_id, "finished");
    return {r, recorder.measured()};
  }

  std::filesystem::path dir_;
  Space space_;
};

}  // namespace

TEST_F(SchedulerTest, EveryPairIsMeasuredOnceAcrossTwoLanes) {
  FakeBackend a, b;
  auto [report, recorded] = run({&a, &b});
  const std::size_t configs = 133;  // configs/sm86.json, named points included
  EXPECT_EQ(report.proposed, configs * 2);
  EXPECT_EQ(recorded, configs * 2);
  EXPECT_EQ(std::size_t(a.calls + b.calls), configs * 2) << "a pair measured twice, or not at all";
  EXPECT_GT(a.calls, 0);
  EXPECT_GT(b.calls, 0) << "the second lane never measured";
  ASSERT_EQ(report.lane_busy_s.size(), 2u);
  EXPECT_GT(report.lane_busy_s[0], 0);
  EXPECT_GT(report.lane_busy_s[1], 0);
  // Shapes are searched in turn, so each lane prepares each shape about once.
  EXPECT_LE(a.prepared + b.prepared, 6);
}

TEST_F(SchedulerTest, ARerunFindsEverythingRecorded) {
  FakeBackend a;
  run({&a}, 10);
  FakeBackend again;
  auto [report, recorded] = run({&again}, 10);
  EXPECT_EQ(recorded, 0u);
  EXPECT_EQ(again.calls, 0);
  EXPECT_EQ(report.measured_before, 20u);
}

TEST_F(SchedulerTest, TheBudgetBoundsEachShape) {
  FakeBackend a;
  auto [report, recorded] = run({&a}, 7);
  EXPECT_EQ(report.proposed, 14u);
  EXPECT_EQ(recorded, 14u);
}

TEST_F(SchedulerTest, AnUnknownStrategyIsAUsageError) {
  FakeBackend a;
  Store store = Store::open(dir_ / "r.db", Store::Mode::read_write);
  const Family& fam = family(space_.family);
  Plan plan(space_, fam, *Arch::parse("sm_86"), a.device(), store);
  Recorder recorder(store, 0);
  SchedulerSettings s;
  s.shapes = space_.shapes;
  s.backends = {&a};
  s.replay = true;
  s.db = dir_ / "r.db";
  s.strategy = "no_such_strategy";
  EXPECT_THROW(run_schedule(RunContext{plan, recorder, store, space_, fam, a.device()}, s, {}), UsageError);
}
