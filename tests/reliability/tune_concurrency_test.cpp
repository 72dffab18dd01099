// Several mpgemm-tune processes on one database at once (a fresh file, and one a partial run left behind): all
// succeed, nobody waits into a "database is locked" error, no outcome is lost and no config is measured twice.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

#include "replay_fixture.hpp"

namespace mpgemm::testing {
namespace {

constexpr int kDelayMs = 3;  // per replayed candidate, so the processes really overlap

class ReliabilityConcurrency : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_dir("concurrency");
    recorded_ = dir_ / "recorded.db";
    rec_ = make_recorded_db(recorded_);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // Starts `n` processes on `db` together and checks them and the database; `already` outcomes were there before.
  void run_together(int n, const std::filesystem::path& db, std::int64_t already) {
    SCOPED_TRACE(fmt::format("{} processes on {}", n, db.filename().string()));
    std::vector<TuneProcess> procs;
    for (int i = 0; i < n; ++i)
      procs.push_back(start_tune({replay_space(), "--replay", recorded_.string(), "--db", db.string(),
                                  "--replay-delay-ms", std::to_string(kDelayMs)},
                                 dir_ / fmt::format("p{}.log", i)));
    std::vector<int> codes;
    for (const auto& p : procs) codes.push_back(wait_exit(p.pid));  // every child reaped before any ASSERT

    const auto all = static_cast<std::int64_t>(rec_.pairs);
    std::int64_t measured = 0;
    for (std::size_t i = 0; i < procs.size(); ++i) {
      const std::string out = file_text(procs[i].log);
      const std::string shown = without_progress(out);
      EXPECT_EQ(codes[i], 0) << shown;
      std::string lower = out;
      std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
      for (const char* word : {"busy", "locked", "error"}) EXPECT_EQ(lower.find(word), std::string::npos) << shown;
      const auto o = parse_tune_output(out);
      ASSERT_TRUE(o) << shown;
      // Each process accounts for every (config, shape): measured by itself or found recorded by another.
      EXPECT_EQ(o->measured_now + o->measured_before, all) << shown;
      EXPECT_EQ(o->measured_now,
                sql_int(db, fmt::format("SELECT count(*) FROM measurements WHERE run_id = {}", o->run_id)))
          << "a process counted measurements the database does not attribute to it (measured twice)\n"
          << shown;
      measured += o->measured_now;
    }
    EXPECT_EQ(measured, all - already) << "the processes together measured some configs more than once";
    EXPECT_EQ(integrity_problems(db), "");
    EXPECT_EQ(outcome_differences(outcomes(recorded_), outcomes(db)), "");
    EXPECT_EQ(sql_int(db, "SELECT count(*) FROM runs WHERE status <> 'finished'"), 0);
  }

  std::filesystem::path dir_, recorded_;
  RecordedDb rec_;
};

TEST_F(ReliabilityConcurrency, TwoThreeAndFourProcessesOnAFreshDatabase) {
  for (int n : {2, 3, 4}) run_together(n, dir_ / fmt::format("fresh{}.db", n), 0);
}

TEST_F(ReliabilityConcurrency, FourProcessesResumeAPartialDatabase) {
  const auto db = dir_ / "partial.db";
  auto r = run_command(fmt::format("{} {} --replay {} --db {} --only bm64_bn64", bin("mpgemm-tune"), replay_space(),
                                   recorded_.string(), db.string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto partial = parse_tune_output(r.output);
  ASSERT_TRUE(partial) << r.output;
  ASSERT_GT(partial->measured_now, 0);
  ASSERT_LT(partial->measured_now, static_cast<std::int64_t>(rec_.pairs));
  run_together(4, db, partial->measured_now);
}

// A claim dies with its process: when one of three is killed in the middle, the other two finish its share.
TEST_F(ReliabilityConcurrency, AKilledProcessLeavesNoClaimBehind) {
  const auto db = dir_ / "killed.db";
  const auto all = static_cast<std::int64_t>(rec_.pairs);
  std::vector<TuneProcess> procs;
  for (int i = 0; i < 3; ++i)
    procs.push_back(start_tune({replay_space(), "--replay", recorded_.string(), "--db", db.string(),
                                "--replay-delay-ms", std::to_string(kDelayMs * 4)},
                               dir_ / fmt::format("k{}.log", i)));
  // Three processes share the work at about 12 ms a candidate: about 220 ms in all. Kill one a third of the way.
  std::this_thread::sleep_for(std::chrono::milliseconds(80));
  ::kill(procs[0].pid, SIGKILL);
  EXPECT_EQ(wait_exit(procs[0].pid), 128 + SIGKILL);
  const int codes[] = {wait_exit(procs[1].pid), wait_exit(procs[2].pid)};
  std::int64_t measured = 0;
  std::vector<std::int64_t> survivors;
  for (int i = 1; i < 3; ++i) {
    EXPECT_EQ(codes[i - 1], 0) << without_progress(file_text(procs[i].log));
    const auto o = parse_tune_output(file_text(procs[i].log));
    ASSERT_TRUE(o) << without_progress(file_text(procs[i].log));
    EXPECT_EQ(o->measured_now,
              sql_int(db, fmt::format("SELECT count(*) FROM measurements WHERE run_id = {}", o->run_id)));
    measured += o->measured_now;
    survivors.push_back(o->run_id);
  }
  // The killed run stays 'running', or is marked 'interrupted' when a survivor's run started after it died
  // (schema 5): on a loaded machine the survivors may start after the kill.
  EXPECT_EQ(sql_int(db, fmt::format("SELECT count(*) FROM runs WHERE id NOT IN ({}, {}) AND status NOT IN "
                                    "('running', 'interrupted')",
                                    survivors[0], survivors[1])),
            0);
  const auto by_killed = sql_int(
      db, fmt::format("SELECT count(*) FROM measurements WHERE run_id NOT IN ({}, {})", survivors[0], survivors[1]));
  EXPECT_EQ(measured + by_killed, all) << by_killed << " recorded by the killed process";
  EXPECT_EQ(integrity_problems(db), "");
  EXPECT_EQ(outcome_differences(outcomes(recorded_), outcomes(db)), "");
}

}  // namespace
}  // namespace mpgemm::testing
