// Replay without a GPU: `mpgemm-tune SPACE --replay recorded.db --db new.db` reproduces every recorded outcome,
// a second run measures nothing, and a changed device, driver, cuBLAS or verification setting is never served
// from the old results.
#include <gtest/gtest.h>

#include "replay_fixture.hpp"

namespace mpgemm::testing {
namespace {

class ReliabilityReplay : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_dir(std::string("replay_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    recorded_ = dir_ / "recorded.db";
    rec_ = make_recorded_db(recorded_);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // Runs mpgemm-tune over the replay space to completion; fails the test unless it exits 0.
  TuneOutput tune(const std::filesystem::path& replay, const std::filesystem::path& db, const std::string& extra = "") {
    auto r = run_command(fmt::format("{} {} --replay {} --db {} {}", bin("mpgemm-tune"), replay_space(),
                                     replay.string(), db.string(), extra));
    EXPECT_EQ(r.exit_code, 0) << without_progress(r.output);
    auto out = parse_tune_output(r.output);
    EXPECT_TRUE(out) << without_progress(r.output);
    last_output_ = r.output;
    return out.value_or(TuneOutput{});
  }

  std::filesystem::path dir_, recorded_;
  RecordedDb rec_;
  std::string last_output_;
};

// The fixture itself: what the other tests rely on being in a recorded database.
TEST_F(ReliabilityReplay, RecordedDatabaseHasEveryKindOfOutcome) {
  EXPECT_EQ(rec_.candidates, 27u);
  EXPECT_EQ(rec_.shapes, 2u);
  EXPECT_EQ(rec_.pairs, 54u);
  for (Status st : {Status::ok, Status::compile_failed, Status::resources_exceeded, Status::launch_failed,
                    Status::runtime_fault, Status::timeout, Status::incorrect, Status::constraint_rejected})
    EXPECT_GT(rec_.statuses[st], 0u) << to_string(st);
  EXPECT_EQ(integrity_problems(recorded_), "");
  EXPECT_EQ(outcomes(recorded_).size(), rec_.pairs);
}

TEST_F(ReliabilityReplay, ReproducesEveryRecordedOutcomeAndResumesToNothing) {
  const auto db = dir_ / "new.db";
  const TuneOutput first = tune(recorded_, db);
  EXPECT_EQ(first.measured_now, static_cast<std::int64_t>(rec_.pairs)) << last_output_;
  EXPECT_EQ(first.measured_before, 0);

  // Same configs (name, params, source hash), same result keys and the same outcome, value for value.
  const auto expected = outcomes(recorded_);
  EXPECT_EQ(outcome_differences(expected, outcomes(db)), "");
  EXPECT_EQ(integrity_problems(db), "");
  // cuBLASLt's references come along, timed or not, and the measurements' ratios to it with them.
  EXPECT_EQ(cublaslt_references(db), cublaslt_references(recorded_));
  EXPECT_EQ(sql_int(db, "SELECT count(*) FROM measurements WHERE ratio_to_cublaslt IS NOT NULL"),
            sql_int(recorded_, "SELECT count(*) FROM measurements WHERE ratio_to_cublaslt IS NOT NULL"));
  EXPECT_GT(sql_int(db, "SELECT count(*) FROM measurements WHERE ratio_to_cublaslt IS NOT NULL"), 0);
  EXPECT_EQ(sql_rows(db, "SELECT mode, status, device_name, device_cc, driver_version, cublas_version FROM runs"),
            (std::vector<std::vector<std::string>>{{"replay", "finished", "NVIDIA H200", "sm_90", "13.0", "13.1.0"}}));
  // Where its time went is kept with the run: the coordinator's account (its start included) and the lane's, each
  // adding up to its wall time; no worker answers a replay. The same accounts are printed.
  EXPECT_EQ(sql_rows(db,
                     "SELECT json_type(time_accounts, '$.coordinator.phases.starting'), "
                     "json_array_length(time_accounts, '$.lanes'), json_array_length(time_accounts, '$.workers'), "
                     "json_extract(time_accounts, '$.lanes[0].owner') FROM runs"),
            (std::vector<std::vector<std::string>>{{"real", "1", "0", "lane 0"}}));
  EXPECT_EQ(sql_int(db,
                    "SELECT abs((SELECT sum(value) FROM json_each(time_accounts, '$.lanes[0].phases')) - "
                    "json_extract(time_accounts, '$.lanes[0].wall_s')) < 1e-6 FROM runs"),
            1);
  EXPECT_NE(last_output_.find("\ncoordinator "), std::string::npos) << last_output_;
  EXPECT_NE(last_output_.find("\nlane 0 "), std::string::npos) << last_output_;

  // The same command again: everything is already there.
  const TuneOutput second = tune(recorded_, db);
  EXPECT_EQ(second.measured_now, 0) << last_output_;
  EXPECT_EQ(second.measured_before, static_cast<std::int64_t>(rec_.pairs));
  EXPECT_NE(last_output_.find("measured now 0,"), std::string::npos) << last_output_;
  EXPECT_EQ(outcome_differences(expected, outcomes(db)), "");
  EXPECT_EQ(sql_int(db, "SELECT count(*) FROM runs WHERE status = 'finished'"), 2);
}

// --leaders-from: a replay over the recording with its own leaders measures those configs and no other (the
// scheduler refuses the rest as the strategy proposes them), at every shape.
TEST_F(ReliabilityReplay, LeadersFromTheRecordingAreAllThatIsMeasured) {
  const auto db = dir_ / "leaders.db";
  const std::string fastest =
      "SELECT c.name FROM measurements AS m JOIN configs AS c ON c.id = m.config_id WHERE m.status = 'ok' "
      "AND m.median_ms = (SELECT min(median_ms) FROM measurements AS o WHERE o.status = 'ok' AND o.M = m.M AND "
      "o.N = m.N AND o.K = m.K) GROUP BY c.name ORDER BY c.name";
  const auto leaders = sql_rows(recorded_, fastest);
  ASSERT_FALSE(leaders.empty());
  const TuneOutput out =
      tune(recorded_, db, fmt::format("--leaders-from {} --leaders-within 0 --leaders-places 0", recorded_.string()));
  EXPECT_EQ(out.measured_now, static_cast<std::int64_t>(leaders.size() * rec_.shapes)) << last_output_;
  EXPECT_EQ(sql_rows(db,
                     "SELECT DISTINCT c.name FROM measurements AS m JOIN configs AS c ON c.id = m.config_id "
                     "ORDER BY c.name"),
            leaders);
  EXPECT_NE(last_output_.find(fmt::format("(--leaders-from: {} of the space's {}", leaders.size(), rec_.candidates)),
            std::string::npos)
      << last_output_;
}

// The wgmma family compiles for sm_90a on an sm_90 device, and its measurements record that arch. A replay of
// such a recording found none of them while it looked them up by the device's arch ("not in the recording").
TEST_F(ReliabilityReplay, ReproducesARecordingOfAnArchSpecificFamily) {
  const std::string space = source("tests/reliability/data/replay_space_sm90a.json");
  const auto recorded = dir_ / "recorded_sm90a.db";
  const RecordedDb rec = make_recorded_db(recorded, space);
  ASSERT_EQ(rec.candidates, 6u);
  EXPECT_EQ(sql_int(recorded, "SELECT count(*) FROM measurements WHERE arch = 'sm_90a'"),
            static_cast<std::int64_t>(rec.pairs));

  const auto db = dir_ / "new_sm90a.db";
  auto r = run_command(
      fmt::format("{} {} --replay {} --db {} --rerank 0", bin("mpgemm-tune"), space, recorded.string(), db.string()));
  ASSERT_EQ(r.exit_code, 0) << without_progress(r.output);
  EXPECT_EQ(r.output.find("not in the recording"), std::string::npos) << without_progress(r.output);
  EXPECT_EQ(outcome_differences(outcomes(recorded), outcomes(db)), "");
}

// Issue item 10: a result is reused only when everything that determines it is unchanged.
TEST_F(ReliabilityReplay, ChangedDeviceDriverCublasOrSettingsAreMeasuredAgain) {
  const auto db = dir_ / "work.db";
  const auto all = static_cast<std::int64_t>(rec_.pairs);
  ASSERT_EQ(tune(recorded_, db).measured_now, all);

  auto other_recording = [&](const std::string& name, auto change) {
    DeviceDescription d = recorded_h200();
    change(d);
    const auto path = dir_ / (name + ".db");
    make_recorded_db(path, replay_space(), d);
    return path;
  };
  const auto new_driver = other_recording("driver", [](DeviceDescription& d) { d.driver_version = "13.1"; });
  const auto new_cublas = other_recording("cublas", [](DeviceDescription& d) { d.cublas_version = "13.2.0"; });
  const auto new_device = other_recording("device", [](DeviceDescription& d) { d.name = "NVIDIA H100 80GB HBM3"; });

  std::int64_t expected_rows = all;
  for (const auto& replay : {new_driver, new_cublas, new_device}) {
    EXPECT_EQ(tune(replay, db).measured_now, all) << replay << ": reused results of another recording";
    expected_rows += all;
  }
  for (const char* settings : {"--atol 0.25", "--rtol 2e-3", "--warmup 4", "--runs 7", "--iters 10"}) {
    EXPECT_EQ(tune(recorded_, db, settings).measured_now, all) << settings << ": reused results of other settings";
    expected_rows += all;
  }
  EXPECT_EQ(sql_int(db, "SELECT count(DISTINCT result_key) FROM measurements"), expected_rows);

  // Unchanged inputs, in any order: nothing new.
  for (const auto& replay : {recorded_, new_device, new_driver}) EXPECT_EQ(tune(replay, db).measured_now, 0) << replay;
  EXPECT_EQ(tune(recorded_, db, "--atol 0.25").measured_now, 0);
  EXPECT_EQ(sql_int(db, "SELECT count(*) FROM measurements"), expected_rows);
  EXPECT_EQ(integrity_problems(db, /*one_per_pair=*/false), "");
}

// The tolerances a replay is given are applied to what was recorded: an 'ok' whose recorded max |c - ref| is
// beyond a tighter atol replays as 'incorrect'; looser tolerances keep every verdict.
TEST_F(ReliabilityReplay, TighterTolerancesTurnRecordedErrorsIncorrect) {
  const double atol = 0.01;  // the recording's ok errors run from 0.0013 to 0.0351, verified at atol 0.5
  const auto recorded_ok = sql_int(recorded_, "SELECT count(*) FROM measurements WHERE status = 'ok'");
  const auto beyond = sql_int(
      recorded_, fmt::format("SELECT count(*) FROM measurements WHERE status = 'ok' AND max_abs_err > {}", atol));
  ASSERT_GT(beyond, 0);
  ASSERT_LT(beyond, recorded_ok);

  const auto tight = dir_ / "tight.db";
  EXPECT_EQ(tune(recorded_, tight, fmt::format("--atol {}", atol)).measured_now, static_cast<std::int64_t>(rec_.pairs));
  EXPECT_EQ(sql_int(tight, "SELECT count(*) FROM measurements WHERE status = 'ok'"), recorded_ok - beyond);
  EXPECT_EQ(sql_int(tight, fmt::format("SELECT count(*) FROM measurements WHERE status = 'ok' AND "
                                       "(max_abs_err > {} OR atol <> {})",
                                       atol, atol)),
            0);
  // Each config that was ok and off by more than atol: incorrect, untimed, with the reason and the new
  // tolerance.
  EXPECT_EQ(sql_int(tight, fmt::format("SELECT count(*) FROM measurements WHERE status = 'incorrect' AND "
                                       "max_abs_err > {0} AND atol = {0} AND median_ms IS NULL AND ratio_to_cublas "
                                       "IS NULL AND bad_count >= 1 AND message LIKE 'replayed at atol 0.01%'",
                                       atol)),
            beyond);
  // Nothing else changed status.
  EXPECT_EQ(sql_int(tight, "SELECT count(*) FROM measurements WHERE status NOT IN ('ok', 'incorrect')"),
            sql_int(recorded_, "SELECT count(*) FROM measurements WHERE status NOT IN ('ok', 'incorrect')"));

  const auto loose = dir_ / "loose.db";
  tune(recorded_, loose, "--atol 1 --rtol 0.01");
  EXPECT_EQ(sql_rows(loose, "SELECT status, count(*) FROM measurements GROUP BY status ORDER BY status"),
            sql_rows(recorded_, "SELECT status, count(*) FROM measurements GROUP BY status ORDER BY status"));
}

// Issue 48, item 6: a shape the recording has no cuBLAS timing of crashed the replay (SIGSEGV: the coordinator of
// a replay has no compile service, and the lane's failure sent the next proposals to it) and left a 'running' run.
// It is refused before the run begins: one line naming the shapes and the recording, nothing written.
TEST_F(ReliabilityReplay, AShapeTheRecordingLacksIsRefusedBeforeTheRun) {
  const auto db = dir_ / "new.db";
  const auto refused = [&](const std::string& shapes) {
    SCOPED_TRACE(shapes);
    const auto r = run_command(fmt::format("{} {} --replay {} --db {} --shapes {}", bin("mpgemm-tune"), replay_space(),
                                           recorded_.string(), db.string(), shapes));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_EQ(lines_of(r.output).size(), 1u) << r.output;
    return r.output;
  };
  const std::string one = refused("4096x4096x4096");
  EXPECT_EQ(one, fmt::format("mpgemm-tune: error: {}: the recording has no cuBLAS timing of 4096x4096x4096 on NVIDIA "
                             "H200, so that shape cannot be replayed (it recorded 1024x1024x1024, 2048x512x1000); "
                             "tune only the shapes it recorded\n",
                             recorded_.string()));
  EXPECT_FALSE(std::filesystem::exists(db)) << "a refused replay created its database";

  // Into a database that already holds a run: that run is all it holds afterwards, and nothing is 'running'.
  tune(recorded_, db, "--M 1024 --N 1024 --K 1024");
  const auto runs_before = sql_rows(db, "SELECT id, status FROM runs");
  const std::string two = refused("1024x1024x1024,512x512x512,8192x8192x64");
  EXPECT_NE(two.find("no cuBLAS timing of 512x512x512, 8192x8192x64 on NVIDIA H200, so those shapes"),
            std::string::npos)
      << two;
  EXPECT_EQ(sql_rows(db, "SELECT id, status FROM runs"), runs_before);
  EXPECT_EQ(sql_int(db, "SELECT count(*) FROM runs WHERE status = 'running'"), 0);
}

// The model strategy starts each shape from what the database holds of the family at the other shapes: the second
// shape of a run learns from the first's measurements (StrategyContext::prior), and the run says so.
TEST_F(ReliabilityReplay, TheModelStrategyStartsFromTheOtherShapes) {
  const auto db = dir_ / "model.db";
  tune(recorded_, db, "--strategy model --budget 6 --seed 3 --rerank 0");
  EXPECT_EQ(last_output_.find("shape 1024x1024x1024: strategy model starts from"), std::string::npos)
      << without_progress(last_output_);
  EXPECT_NE(last_output_.find("shape 2048x512x1000: strategy model starts from 6 measurement(s)"), std::string::npos)
      << without_progress(last_output_);
  // A rerun at the first shape alone sees the second shape's six.
  tune(recorded_, dir_ / "model.db", "--strategy model --budget 8 --seed 3 --rerank 0 --M 1024 --N 1024 --K 1024");
  EXPECT_NE(last_output_.find("shape 1024x1024x1024: strategy model starts from 6 measurement(s)"), std::string::npos)
      << without_progress(last_output_);
}

}  // namespace
}  // namespace mpgemm::testing
