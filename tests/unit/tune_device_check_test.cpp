// Family::check_device in the tuner: a config the family declares unrunnable on the device (or, compile-only, on
// the target arch) is never compiled; measuring records constraint_rejected with the family's reason for each of
// its shapes, and compile-only reports how many there were. Driven through run_tune with the test-only family
// (tests/families: MODE needs_sm90 is rejected before sm_90), in compile-only and replay mode; no GPU, and nothing
// compiles.
#include <gtest/gtest.h>

#include <fstream>

#include "reliability/replay_fixture.hpp"
#include "tune/tuner.hpp"

namespace mpgemm {
namespace {

namespace fs = std::filesystem;
using testing::sql_int;
using testing::sql_rows;

constexpr const char* kReason = "runs only on sm_90 or newer (a test of Family::check_device); the device is sm_86";

// A test_faulty space over `modes` x COPY 0..1 and two shapes.
fs::path write_space(const fs::path& dir, const std::string& modes) {
  const fs::path path = dir / "space.json";
  std::ofstream(path) << R"({
  "family": "test_faulty",
  "arch": "sm_86",
  "shapes": [{"M": 256, "N": 256, "K": 256}, {"M": 512, "N": 128, "K": 64}],
  "parameters": {"MODE": {"values": [)"
                      << modes << R"(]}, "COPY": {"values": [0, 1]}},
  "constraints": []
})";
  return path;
}

class TuneDeviceCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      (void)family("test_faulty");
    } catch (const Error&) {
      GTEST_SKIP() << "the test-only families are not linked (MPGEMM_TEST_FAMILIES is off)";
    }
    dir_ = testing::fresh_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  TuneSummary tune(TuneOptions opt) {
    TuneObserver obs;
    obs.note = [this](const std::string& line) { notes_.push_back(line); };
    return run_tune(opt, obs);
  }

  fs::path dir_;
  std::vector<std::string> notes_;
};

TEST_F(TuneDeviceCheck, CompileOnlyCountsAndReportsWhatDoesNotRunOnTheTarget) {
  TuneOptions opt;
  opt.space_path = write_space(dir_, R"("needs_sm90")");
  opt.db_path = dir_ / "t.db";
  opt.compile_only = true;
  opt.arch = *Arch::parse("sm_86");
  const TuneSummary s = tune(opt);

  EXPECT_EQ(s.candidates, 2u);
  EXPECT_EQ(s.device_rejected, 2u);
  EXPECT_EQ(s.device_rejected_reason, std::string("test_faulty_needs_sm90_c0 ") + kReason);
  EXPECT_EQ(s.compiled_now, 0u);
  EXPECT_EQ(s.compiled_ok + s.compile_failed, 0u);
  const std::string note = std::string("2 configs do not run on sm_86: test_faulty_needs_sm90_c0 ") + kReason;
  EXPECT_NE(std::find(notes_.begin(), notes_.end(), note), notes_.end()) << ::testing::PrintToString(notes_);
  // The configs are known, nothing was compiled or measured.
  EXPECT_EQ(sql_int(opt.db_path, "SELECT count(*) FROM configs"), 2);
  EXPECT_EQ(sql_int(opt.db_path, "SELECT count(*) FROM compilations"), 0);
  EXPECT_EQ(sql_int(opt.db_path, "SELECT count(*) FROM measurements"), 0);
}

TEST_F(TuneDeviceCheck, ReplayRecordsConstraintRejectedForEveryShapeWhateverWasRecorded) {
  // A GPU run on an sm_86 device; then, as if it had run before check_device existed, needs_sm90 measured as
  // incorrect: the replay must decide from the family, not from the recording.
  DeviceDescription rtx = testing::recorded_h200();
  rtx.name = "NVIDIA GeForce RTX 3050";
  rtx.arch = *Arch::parse("sm_86");
  rtx.sm_count = 20;
  const fs::path space = write_space(dir_, R"("ok", "needs_sm90")");
  const fs::path recorded = dir_ / "recorded.db";
  const testing::RecordedDb made = testing::make_recorded_db(recorded, space.string(), rtx);
  EXPECT_EQ(made.statuses.at(Status::constraint_rejected), 4u) << "the recording follows the GPU's order too";
  testing::sql_exec(recorded,
                    "UPDATE measurements SET status = 'incorrect', message = 'recorded' WHERE config_id "
                    "IN (SELECT id FROM configs WHERE name LIKE '%needs_sm90%')");

  TuneOptions opt;
  opt.space_path = space;
  opt.db_path = dir_ / "replayed.db";
  opt.replay_db = recorded;
  const TuneSummary s = tune(opt);
  EXPECT_EQ(s.mode, "replay");
  EXPECT_EQ(s.device_rejected, 2u);
  EXPECT_EQ(s.compiled_now, 0u);
  EXPECT_EQ(s.measured_now, 8u);  // 4 configs x 2 shapes

  const auto rows = sql_rows(opt.db_path,
                             "SELECT c.name, m.M, m.status, m.message, m.compilation_id FROM measurements AS m "
                             "JOIN configs AS c ON c.id = m.config_id ORDER BY c.name, m.M");
  ASSERT_EQ(rows.size(), 8u);
  for (const auto& r : rows) {
    if (r[0].find("needs_sm90") == std::string::npos) {
      // The others replay what was recorded.
      EXPECT_EQ(r[2], testing::sql_text(recorded,
                                        "SELECT m.status FROM measurements AS m JOIN configs AS c ON c.id "
                                        "= m.config_id WHERE c.name = '" +
                                            r[0] + "' AND m.M = " + r[1]))
          << r[0];
      continue;
    }
    EXPECT_EQ(r[2], "constraint_rejected") << r[0] << " at M=" << r[1];
    EXPECT_EQ(r[3], r[0] + " " + kReason);
    EXPECT_EQ(r[4], "NULL") << "never compiled";
  }
  EXPECT_EQ(sql_int(opt.db_path, "SELECT count(*) FROM compilations"), 0);

  // Resumed, nothing is measured again: the rejections are results with keys like any other.
  const TuneSummary again = tune(opt);
  EXPECT_EQ(again.measured_now, 0u);
  EXPECT_EQ(again.measured_before, 8u);
}

}  // namespace
}  // namespace mpgemm
