// kill -9 at random moments: a replayed tuning run is SIGKILLed again and again (during start-up, schema creation,
// config upserts and measurement commits) and restarted with the same command until one run finishes. The database
// must stay intact, end up holding exactly the recorded outcomes, and no run may measure what an earlier one recorded.
//
// The randomness is seeded; the seed is printed. MPGEMM_KILL_SEED=<seed> repeats a sequence of kill delays (the
// moments they land on still depend on the machine's speed).
#include <gtest/gtest.h>

#include <random>

#include "replay_fixture.hpp"

namespace mpgemm::testing {
namespace {

constexpr int kMinKills = 50;
constexpr int kDelayMs = 2;  // per replayed candidate: a run spends most of its time "measuring", like on a GPU

std::uint64_t seed_from_env() {
  if (const char* s = std::getenv("MPGEMM_KILL_SEED")) return std::stoull(s);
  return std::random_device{}();
}

TEST(ReliabilityKillNine, RandomKillsNeitherCorruptNorLoseNorRemeasure) {
  const std::uint64_t seed = seed_from_env();
  std::cout << "kill -9 test seed: " << seed << " (MPGEMM_KILL_SEED=" << seed << " repeats it)" << std::endl;
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  std::mt19937_64 rng(seed);

  const auto dir = fresh_dir("kill9");
  const auto recorded = dir / "recorded.db";
  const RecordedDb rec = make_recorded_db(recorded);
  const auto expected = outcomes(recorded);
  const auto log = dir / "tune.log";
  auto args = [&](const std::filesystem::path& db) {
    return std::vector<std::string>{replay_space(), "--replay",          recorded.string(),       "--db",
                                    db.string(),    "--replay-delay-ms", std::to_string(kDelayMs)};
  };

  // One uninterrupted run: how long the kills have to land in.
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(wait_exit(start_tune(args(dir / "calibration.db"), log).pid), 0) << without_progress(file_text(log));
  const auto full_run = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0);
  ASSERT_EQ(parse_tune_output(file_text(log)).value_or(TuneOutput{}).measured_now,
            static_cast<std::int64_t>(rec.pairs));
  std::uniform_int_distribution<std::int64_t> kill_after_us(0, full_run.count() * 11 / 10);

  int kills = 0, cycles = 0, starts = 0;
  std::int64_t killed_while_measuring = 0;  // killed runs that had recorded at least one measurement
  while (kills < kMinKills) {
    ++cycles;
    const auto db = dir / fmt::format("work{}.db", cycles);
    std::optional<TuneOutput> finished;
    int cycle_starts = 0;
    while (!finished) {
      ASSERT_LT(cycle_starts, 500) << "no run finished in cycle " << cycles;
      ++cycle_starts;
      ++starts;
      const TuneProcess p = start_tune(args(db), log);
      std::this_thread::sleep_for(std::chrono::microseconds(kill_after_us(rng)));
      ::kill(p.pid, SIGKILL);  // a process that already exited stays a zombie until waited for: then a no-op
      const int code = wait_exit(p.pid);
      if (code == 128 + SIGKILL) {
        ++kills;
        continue;
      }
      ASSERT_EQ(code, 0) << "cycle " << cycles << ", start " << cycle_starts << ":\n"
                         << without_progress(file_text(log));
      finished = parse_tune_output(file_text(log));
      ASSERT_TRUE(finished) << without_progress(file_text(log));
    }

    SCOPED_TRACE(fmt::format("seed {}, cycle {} ({} starts)", seed, cycles, cycle_starts));
    EXPECT_EQ(integrity_problems(db), "");
    EXPECT_EQ(outcome_differences(expected, outcomes(db)), "");
    // Never re-measured: the finished run measured exactly what the killed ones had not recorded, and what it
    // says it measured is what the database attributes to it (a re-measured key would be dropped on insert and
    // counted here without a row).
    const auto all = static_cast<std::int64_t>(rec.pairs);
    EXPECT_EQ(finished->measured_now + finished->measured_before, all);
    EXPECT_EQ(finished->measured_now,
              sql_int(db, fmt::format("SELECT count(*) FROM measurements WHERE run_id = {}", finished->run_id)));
    EXPECT_EQ(sql_int(db, fmt::format("SELECT count(*) FROM measurements WHERE run_id <> {}", finished->run_id)),
              finished->measured_before);
    // Nothing could end a killed run's row, but the next run found its process gone and marked it
    // "interrupted"; or it is "finished" when the kill came after the run was recorded as finished, while the
    // final table was being printed. None is left "running".
    EXPECT_LE(sql_int(db, "SELECT count(*) FROM runs"), cycle_starts);
    EXPECT_EQ(sql_text(db, fmt::format("SELECT status FROM runs WHERE id = {}", finished->run_id)), "finished");
    EXPECT_EQ(sql_int(db, "SELECT count(*) FROM runs WHERE status NOT IN ('finished', 'interrupted')"), 0);
    EXPECT_EQ(sql_int(db, fmt::format("SELECT count(*) FROM runs WHERE status = 'interrupted' AND "
                                      "(id > {} OR ended_at IS NOT NULL)",
                                      finished->run_id)),
              0);
    killed_while_measuring += sql_int(db,
                                      "SELECT count(*) FROM runs AS r WHERE status = 'interrupted' AND EXISTS "
                                      "(SELECT 1 FROM measurements AS m WHERE m.run_id = r.id)");
    if (::testing::Test::HasFailure()) break;
  }
  std::cout << fmt::format(
                   "{} kills over {} starts in {} cycles, {} of them while measuring; an uninterrupted run "
                   "takes {} ms",
                   kills, starts, cycles, killed_while_measuring, full_run.count() / 1000)
            << std::endl;
  // The kills must land where it matters, not only during start-up.
  EXPECT_GE(killed_while_measuring, kMinKills / 10);
  if (::testing::Test::HasFailure())
    std::cout << "kept " << dir.string() << " for inspection; remove it when done" << std::endl;
  else
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mpgemm::testing
