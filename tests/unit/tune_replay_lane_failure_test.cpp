// A replay whose lane fails (here: a shape it cannot prepare) ends the run with that error. The coordinator of a
// replay has no compile service, and the proposals that followed the failure asked the null one to compile:
// SIGSEGV, and the run stayed 'running' (issue 48, item 6).
#include <gtest/gtest.h>

#include <filesystem>

#include "codegen/family.hpp"
#include "common/error.hpp"
#include "space/space.hpp"
#include "store/store.hpp"
#include "tune/run_scope.hpp"
#include "tune/scheduler.hpp"

using namespace mpgemm;

namespace {

// Answers like a recording that holds the first shape only.
class OneShapeRecording final : public MeasureBackend {
 public:
  explicit OneShapeRecording(Shape recorded) : recorded_(recorded) {
    device_.name = "Fake GPU";
    device_.arch = *Arch::parse("sm_86");
  }
  std::string mode() const override { return "replay"; }
  const DeviceDescription& device() const override { return device_; }
  BackendCapabilities capabilities() const override { return BackendCapabilities{.needs_cubins = false}; }
  ShapeReference prepare_shape(const Shape& shape) override {
    if (shape != recorded_) throw Error("no cuBLAS timing for " + shape.str() + ": nothing to replay for this shape");
    ShapeReference r;
    r.timing.median_ms = r.timing.min_ms = r.timing.max_ms = 1.0;
    return r;
  }
  std::optional<Measurement> measure(const Candidate&, const CompileResult&, const Shape&) override {
    Measurement m;
    m.timing = TimingStats{1.0, 1.0, 1.0, 3, 5, 20};
    return m;
  }

 private:
  Shape recorded_;
  DeviceDescription device_;
};

}  // namespace

TEST(ReplayLaneFailure, EndsTheRunWithTheLanesErrorAndMarksItFailed) {
  const auto dir = std::filesystem::temp_directory_path() / ("mpgemm_replay_lane_failure_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  Space space = load_space(std::filesystem::path(MPGEMM_SOURCE_DIR) / "configs/sm86.json");
  space.shapes = {Shape{256, 256, 256}, Shape{512, 256, 128}};
  OneShapeRecording backend(space.shapes.front());
  {
    Store store = Store::open(dir / "r.db", Store::Mode::read_write);
    RunInfo info;
    info.argv = {"test"};
    info.mode = "replay";
    RunScope scope(store, info);
    const Family& fam = family(space.family);
    Plan plan(space, fam, *Arch::parse("sm_86"), backend.device(), store);
    Recorder recorder(store, scope.id());
    SchedulerSettings s;
    s.shapes = space.shapes;
    s.backends = {&backend};
    s.replay = true;
    s.db = dir / "r.db";
    std::string error;
    try {
      run_schedule(RunContext{plan, recorder, store, space, fam, backend.device()}, s, {});
    } catch (const Error& e) {
      error = e.what();
    }
    EXPECT_EQ(error, "no cuBLAS timing for 512x256x128: nothing to replay for this shape");
  }
  const Store reader = Store::open(dir / "r.db", Store::Mode::read_only);
  const report::Table runs = reader.query_sql("SELECT status FROM runs");
  ASSERT_EQ(runs.rows.size(), 1u);
  EXPECT_EQ(std::get<std::string>(runs.rows[0][0]), "failed");
  std::filesystem::remove_all(dir);
}
