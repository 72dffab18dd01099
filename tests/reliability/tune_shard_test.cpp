// --shard I/N under replay: N shards of a space cover it exactly once (disjoint, balanced, the same slices on
// every run), their databases merged (mpgemm-query merge) hold exactly what one unsharded run records, and the
// Slurm scripts (tools/slurm) run them as a job array with a dependent merge, here under a fake sbatch and srun.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "replay_fixture.hpp"

namespace mpgemm::testing {
namespace {

namespace fs = std::filesystem;

std::set<std::string> keys_of(const fs::path& db) {
  std::set<std::string> keys;
  for (const auto& row : sql_rows(db, "SELECT result_key FROM measurements")) keys.insert(row[0]);
  return keys;
}

// Each shape's fastest config, as the views name it.
std::vector<std::vector<std::string>> best_of(const fs::path& db) {
  return sql_rows(db, "SELECT M, N, K, config_name, median_ms FROM best_per_shape ORDER BY M, N, K");
}

class ReliabilityShard : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_dir(std::string("shard_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    recorded_ = dir_ / "recorded.db";
    rec_ = make_recorded_db(recorded_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  CommandResult tune(const fs::path& db, const std::string& extra = "") {
    return run_command(fmt::format("{} {} --replay {} --db {} {}", bin("mpgemm-tune"), replay_space(),
                                   recorded_.string(), db.string(), extra));
  }
  // N shard databases, each filled by its own run.
  std::vector<fs::path> shards(int n, const std::string& prefix = "shard") {
    std::vector<fs::path> dbs;
    for (int i = 1; i <= n; ++i) {
      dbs.push_back(dir_ / fmt::format("{}-{}-of-{}.db", prefix, i, n));
      const auto r = tune(dbs.back(), fmt::format("--shard {}/{}", i, n));
      EXPECT_EQ(r.exit_code, 0) << without_progress(r.output);
    }
    return dbs;
  }

  fs::path dir_, recorded_;
  RecordedDb rec_;
};

TEST_F(ReliabilityShard, ShardsCoverThePairsOnceAndAreBalanced) {
  const fs::path full = dir_ / "full.db";
  ASSERT_EQ(tune(full).exit_code, 0);
  const std::set<std::string> all = keys_of(full);
  ASSERT_EQ(all.size(), rec_.pairs);
  for (int n : {2, 3, 5}) {
    std::set<std::string> seen;
    std::size_t smallest = rec_.pairs, largest = 0;
    for (const fs::path& db : shards(n, fmt::format("n{}", n))) {
      const std::set<std::string> mine = keys_of(db);
      for (const auto& k : mine) EXPECT_TRUE(seen.insert(k).second) << "a pair in two shards of " << n;
      smallest = std::min(smallest, mine.size());
      largest = std::max(largest, mine.size());
    }
    EXPECT_EQ(seen, all) << n << " shards";
    // Every N-th config of each shape: per shape the shards differ by one pair at most.
    EXPECT_LE(largest - smallest, rec_.shapes) << n << " shards";
  }
}

TEST_F(ReliabilityShard, TheSameShardTakesTheSamePairsAndSaysWhatItLeft) {
  const auto a = tune(dir_ / "a.db", "--shard 2/3");
  ASSERT_EQ(a.exit_code, 0) << a.output;
  ASSERT_EQ(tune(dir_ / "b.db", "--shard 2/3").exit_code, 0);
  EXPECT_EQ(keys_of(dir_ / "a.db"), keys_of(dir_ / "b.db"));
  const std::size_t mine = keys_of(dir_ / "a.db").size();
  EXPECT_NE(
      a.output.find(fmt::format("shard 2/3: {} (config, shape) pairs left to the other shards", rec_.pairs - mine)),
      std::string::npos)
      << without_progress(a.output);
  EXPECT_NE(a.output.find("no re-rank in a shard"), std::string::npos) << without_progress(a.output);
  EXPECT_EQ(sql_text(dir_ / "a.db", "SELECT shard FROM runs"), "2/3");
  // --dry-run says how many pairs the shard takes, and writes nothing.
  const fs::path dry = dir_ / "dry.db";
  const auto d = tune(dry, "--shard 2/3 --dry-run");
  ASSERT_EQ(d.exit_code, 0) << d.output;
  EXPECT_NE(d.output.find(fmt::format("{} (config, shape) pairs of shard 2/3", mine)), std::string::npos) << d.output;
  EXPECT_FALSE(fs::exists(dry));
  // A database in folders that do not exist yet is fine, as the run creates them; the dry run creates nothing.
  const fs::path deep = dir_ / "not" / "yet" / "d.db";
  const auto nested = tune(deep, "--dry-run");
  EXPECT_EQ(nested.exit_code, 0) << nested.output;
  EXPECT_FALSE(fs::exists(dir_ / "not"));
  const auto folder = tune(dir_, "--dry-run");
  EXPECT_EQ(folder.exit_code, 1) << folder.output;
  EXPECT_NE(folder.output.find("it is a folder, not a database file"), std::string::npos) << folder.output;
}

TEST_F(ReliabilityShard, BadShardsAreRefused) {
  for (const char* bad : {"0/3", "4/3", "3", "1/0", "a/b", "1/3/4"}) {
    const auto r = tune(dir_ / "x.db", fmt::format("--shard {}", bad));
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.output;
    EXPECT_NE(r.output.find("--shard"), std::string::npos) << r.output;
  }
  const auto r = tune(dir_ / "x.db", "--shard 1/2 --strategy random");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--shard takes a fixed slice of the exhaustive search"), std::string::npos) << r.output;
}

TEST_F(ReliabilityShard, MergedShardsHoldWhatOneUnshardedRunRecords) {
  const fs::path full = dir_ / "full.db";
  ASSERT_EQ(tune(full).exit_code, 0);
  const std::vector<fs::path> dbs = shards(3);
  const fs::path merged = dir_ / "merged.db";
  const auto m = run_command(fmt::format("{} merge {} {} {} {}", bin("mpgemm-query"), merged.string(), dbs[0].string(),
                                         dbs[1].string(), dbs[2].string()));
  ASSERT_EQ(m.exit_code, 0) << m.output;
  EXPECT_EQ(keys_of(merged), keys_of(full));
  EXPECT_EQ(outcome_differences(outcomes(full), outcomes(merged)), "");
  EXPECT_EQ(best_of(merged), best_of(full));
  EXPECT_EQ(integrity_problems(merged), "");
  EXPECT_EQ(sql_int(merged, "SELECT count(*) FROM runs"), 3) << "each shard's run, with its provenance";
  EXPECT_EQ(sql_int(merged, "SELECT count(DISTINCT shard) FROM runs"), 3);
}

// tools/slurm under a fake Slurm: sbatch records what it was asked and runs array tasks 1..N, then the dependent
// job, in order; srun runs its command. The result is the merged database of all shards.
TEST_F(ReliabilityShard, TheSlurmScriptsRunAnArrayAndAMerge) {
  for (const char* script : {"submit.sh", "tune_shard.sh", "merge_shards.sh"}) {
    const auto r = run_command(fmt::format("bash -n {}", source(std::string("tools/slurm/") + script)));
    EXPECT_EQ(r.exit_code, 0) << script << ": " << r.output;
  }
  const fs::path fake = dir_ / "fake-slurm";
  fs::create_directories(fake);
  // sbatch: remembers the array size, runs the array's tasks with SLURM_ARRAY_TASK_ID set, and the merge job.
  std::ofstream(fake / "sbatch") << R"(#!/usr/bin/env bash
set -euo pipefail
echo "sbatch $*" >> "$FAKE_SLURM_LOG"
printf 'argv:' >> "$FAKE_SLURM_LOG"; printf ' [%s]' "$@" >> "$FAKE_SLURM_LOG"; echo >> "$FAKE_SLURM_LOG"
array="" script="" args=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --array=*) array=${1#--array=} ;;
    --export=*) for kv in $(tr ',' ' ' <<<"${1#--export=}"); do [[ $kv == ALL ]] || export "${kv?}"; done ;;
    --*) ;;
    *) script=$1; shift; args=("$@"); break ;;
  esac
  shift
done
id=$(( $(wc -l < "$FAKE_SLURM_LOG") + 100 ))
if [[ -n $array ]]; then
  for ((t = ${array%-*}; t <= ${array#*-}; ++t)); do SLURM_ARRAY_TASK_ID=$t bash "$script" "${args[@]}" >/dev/null; done
else
  bash "$script" "${args[@]}" >/dev/null
fi
echo "$id"
)";
  std::ofstream(fake / "srun") << "#!/usr/bin/env bash\necho \"srun $*\" >> \"$FAKE_SLURM_LOG\"\n"
                                  "while [[ $1 == --* ]]; do shift; done\nexec \"$@\"\n";
  fs::permissions(fake / "sbatch", fs::perms::owner_all, fs::perm_options::add);
  fs::permissions(fake / "srun", fs::perms::owner_all, fs::perm_options::add);
  const fs::path out = dir_ / "out", log = dir_ / "slurm.log";
  const auto r =
      run_command(fmt::format("PATH={}:$PATH FAKE_SLURM_LOG={} MPGEMM_BIN={} MPGEMM_RERANK=0 "
                              "SBATCH_ARGS=\"--partition=test --comment='two words'\" "
                              "bash {} {} {} 3 --replay {}",
                              fake.string(), log.string(), fs::path(bin("mpgemm-tune")).parent_path().string(),
                              source("tools/slurm/submit.sh"), replay_space(), out.string(), recorded_.string()));
  ASSERT_EQ(r.exit_code, 0) << r.output << file_text(log);
  const std::string calls = file_text(log);
  EXPECT_NE(calls.find("--array=1-3"), std::string::npos) << calls;
  EXPECT_NE(calls.find("--dependency=afterok:"), std::string::npos) << calls;
  EXPECT_NE(calls.find("--partition=test"), std::string::npos) << calls;
  EXPECT_NE(calls.find("[--comment=two words]"), std::string::npos) << "a quoted value is one option: " << calls;
  EXPECT_NE(calls.find("--shard 3/3"), std::string::npos) << calls;
  EXPECT_NE(calls.find("MPGEMM_TOOLS=" + source("tools")), std::string::npos)
      << "the merge finds split_args.sh: " << calls;
  ASSERT_TRUE(fs::exists(out / "merged.db")) << r.output;
  {  // The merge as Slurm runs it, from a copy in its spool: MPGEMM_RERANK_ARGS split with quotes kept, through the
     // helper MPGEMM_TOOLS names; srun (here a stand-in that records its argv) runs each shape's re-rank.
    const fs::path spool = dir_ / "spool";
    fs::create_directories(spool);
    fs::copy_file(source("tools/slurm/merge_shards.sh"), spool / "slurm_script", fs::copy_options::overwrite_existing);
    std::ofstream(fake / "srun-argv") << "#!/usr/bin/env bash\nprintf ' [%s]' \"$@\" >> \"$FAKE_SLURM_LOG\"\n";
    fs::permissions(fake / "srun-argv", fs::perms::owner_all, fs::perm_options::add);
    const std::string env = fmt::format(
        "FAKE_SLURM_LOG={} SRUN={} MPGEMM_BIN={} MPGEMM_RERANK=2 MPGEMM_RERANK_ARGS=\"--rounds 3 --x 'a b'\"",
        (dir_ / "srun.log").string(), (fake / "srun-argv").string(),
        fs::path(bin("mpgemm-tune")).parent_path().string());
    const auto merged = run_command(fmt::format("{} MPGEMM_TOOLS={} bash {} {} 3", env, source("tools"),
                                                (spool / "slurm_script").string(), out.string()));
    EXPECT_EQ(merged.exit_code, 0) << merged.output;
    EXPECT_NE(file_text(dir_ / "srun.log").find("[--rerank] [2] [--rounds] [3] [--x] [a b] [--M]"), std::string::npos)
        << file_text(dir_ / "srun.log");
    const auto lost = run_command(fmt::format("{} bash {} {} 3", env, (spool / "slurm_script").string(), out.string()));
    EXPECT_EQ(lost.exit_code, 2) << lost.output;
    EXPECT_NE(lost.output.find("set MPGEMM_TOOLS"), std::string::npos) << lost.output;
  }
  const fs::path full = dir_ / "full.db";
  ASSERT_EQ(tune(full).exit_code, 0);
  EXPECT_EQ(outcome_differences(outcomes(full), outcomes(out / "merged.db")), "");
  // The script writes how to resubmit a shard with the same options; that submits it and a new merge.
  ASSERT_TRUE(fs::exists(out / "resubmit.sh")) << r.output;
  const auto again = run_command(fmt::format("PATH={}:$PATH FAKE_SLURM_LOG={} bash {} 2", fake.string(), log.string(),
                                             (out / "resubmit.sh").string()));
  ASSERT_EQ(again.exit_code, 0) << again.output << file_text(log);
  const std::string recalls = file_text(log).substr(calls.size());
  EXPECT_NE(recalls.find("--array=2 "), std::string::npos) << recalls;
  EXPECT_NE(recalls.find("--replay"), std::string::npos) << "the same tune options: " << recalls;
  EXPECT_NE(recalls.find("merge_shards.sh"), std::string::npos) << recalls;
  EXPECT_NE(recalls.find("--kill-on-invalid-dep=yes"), std::string::npos) << recalls;
  EXPECT_EQ(outcome_differences(outcomes(full), outcomes(out / "merged.db")), "");
  // Options the shards cannot take are refused before anything is submitted.
  for (const std::string bad : {"--strategy random", "--frobnicate", "--db other.db", "--shard 1/3",
                                "--rerank-within 0.1", "--replay-delay-ms 1 --worker /no/such/worker"}) {
    const std::string before = file_text(log);
    const auto refused = run_command(
        fmt::format("PATH={}:$PATH FAKE_SLURM_LOG={} MPGEMM_BIN={} bash {} {} {} 3 --replay {} {}", fake.string(),
                    log.string(), fs::path(bin("mpgemm-tune")).parent_path().string(), source("tools/slurm/submit.sh"),
                    replay_space(), (dir_ / "refused").string(), recorded_.string(), bad));
    EXPECT_EQ(refused.exit_code, 2) << bad << ": " << refused.output;
    EXPECT_NE(refused.output.find("nothing submitted"), std::string::npos) << bad << ": " << refused.output;
    EXPECT_EQ(file_text(log), before) << bad << ": sbatch was called";
  }
  {  // A new OUTDIR named relative to the working folder, as people type it.
    const auto relative = run_command(fmt::format(
        "cd {} && PATH={}:$PATH FAKE_SLURM_LOG={} MPGEMM_BIN={} MPGEMM_RERANK=0 bash {} {} new_out 3 --replay {}",
        dir_.string(), fake.string(), log.string(), fs::path(bin("mpgemm-tune")).parent_path().string(),
        source("tools/slurm/submit.sh"), replay_space(), recorded_.string()));
    EXPECT_EQ(relative.exit_code, 0) << relative.output;
    EXPECT_TRUE(fs::exists(dir_ / "new_out" / "merged.db")) << relative.output;
  }
  // An SBATCH_ARGS (or the merge's MPGEMM_RERANK_ARGS) that a shell could not split either is refused before
  // anything is submitted.
  for (const std::string var : {"SBATCH_ARGS", "MPGEMM_RERANK_ARGS"}) {
    const std::string before = file_text(log);
    const auto unmatched = run_command(fmt::format(
        "LC_ALL=C PATH={}:$PATH FAKE_SLURM_LOG={} MPGEMM_BIN={} {}=\"--comment='oops\" bash {} {} {} 3 --replay {}",
        fake.string(), log.string(), fs::path(bin("mpgemm-tune")).parent_path().string(), var,
        source("tools/slurm/submit.sh"), replay_space(), (dir_ / "unmatched").string(), recorded_.string()));
    EXPECT_EQ(unmatched.exit_code, 2) << var << ": " << unmatched.output;
    EXPECT_NE(unmatched.output.find(var + ": xargs: unmatched single quote"), std::string::npos) << unmatched.output;
    EXPECT_EQ(file_text(log), before) << var << ": sbatch was called";
  }
  // Shards outside 1..N are refused before anything is submitted.
  for (const std::string array : {"4", "0", "2-5"}) {
    const std::string before = file_text(log);
    const auto outside = run_command(fmt::format("PATH={}:$PATH FAKE_SLURM_LOG={} bash {} {}", fake.string(),
                                                 log.string(), (out / "resubmit.sh").string(), array));
    EXPECT_EQ(outside.exit_code, 2) << array << ": " << outside.output;
    EXPECT_NE(outside.output.find("not within shards 1..3"), std::string::npos) << array << ": " << outside.output;
    EXPECT_EQ(file_text(log), before) << array << ": sbatch was called";
  }
  // merge_shards.sh: N must be a number.
  const auto two =
      run_command(fmt::format("MPGEMM_BIN=x bash {} {} two", source("tools/slurm/merge_shards.sh"), out.string()));
  EXPECT_EQ(two.exit_code, 2) << two.output;
  EXPECT_NE(two.output.find("N must be a positive whole number"), std::string::npos) << two.output;
  // An array task outside 1..N, or none, is refused.
  const auto stray = run_command(fmt::format("SLURM_ARRAY_TASK_ID=4 MPGEMM_BIN=x bash {} {} {} 3",
                                             source("tools/slurm/tune_shard.sh"), replay_space(), out.string()));
  EXPECT_EQ(stray.exit_code, 2) << stray.output;
  EXPECT_NE(stray.output.find("outside 1..3"), std::string::npos) << stray.output;
}

// A shard whose run has not finished (still running, killed, failed) has a database already: the merge refuses it
// and merges nothing, rather than crown winners over part of the space.
TEST_F(ReliabilityShard, AMergeRefusesShardsThatHaveNotFinished) {
  const fs::path out = dir_ / "out";
  fs::create_directories(out);
  const std::string bin_dir = fs::path(bin("mpgemm-tune")).parent_path().string();
  for (int task : {1, 2}) {
    const auto shard = run_command(fmt::format(
        "SLURM_ARRAY_TASK_ID={} SRUN=no-srun MPGEMM_BIN={} bash {} {} {} 3 "
        "--replay {}",
        task, bin_dir, source("tools/slurm/tune_shard.sh"), replay_space(), out.string(), recorded_.string()));
    ASSERT_EQ(shard.exit_code, 0) << without_progress(shard.output);
  }
  sql_exec(out / "shard-2-of-3.db", "UPDATE runs SET status = 'running'");  // as a shard killed mid-run leaves it
  const auto merge = run_command(fmt::format("SRUN=no-srun MPGEMM_BIN={} MPGEMM_RERANK=0 bash {} {} 3", bin_dir,
                                             source("tools/slurm/merge_shards.sh"), out.string()));
  EXPECT_EQ(merge.exit_code, 2) << merge.output;
  EXPECT_NE(merge.output.find("shard(s) not finished: 2 (running) 3 (no database)"), std::string::npos) << merge.output;
  EXPECT_NE(merge.output.find("resubmit.sh 2,3"), std::string::npos) << merge.output;
  EXPECT_FALSE(fs::exists(out / "merged.db"));
}

// Shards that verified nothing (compile-only: no GPU on their nodes) leave the merge nothing to re-rank: that is a
// failed job, not a merged database with no winners and exit 0.
TEST_F(ReliabilityShard, AMergeWithNothingVerifiedToReRankFails) {
  const fs::path out = dir_ / "out";
  fs::create_directories(out);
  const std::string bin_dir = fs::path(bin("mpgemm-tune")).parent_path().string();
  const auto shard =
      run_command(fmt::format("SLURM_ARRAY_TASK_ID=1 SRUN=no-srun MPGEMM_BIN={} bash {} {} {} 1 --compile-only --only "
                              "=wmma_cp_async",
                              bin_dir, source("tools/slurm/tune_shard.sh"), replay_space(), out.string()));
  ASSERT_EQ(shard.exit_code, 0) << without_progress(shard.output);
  const auto merge = run_command(fmt::format("SRUN=no-srun MPGEMM_BIN={} MPGEMM_RERANK=1 bash {} {} 1", bin_dir,
                                             source("tools/slurm/merge_shards.sh"), out.string()));
  EXPECT_EQ(merge.exit_code, 1) << merge.output;
  EXPECT_NE(merge.output.find("holds no verified measurement"), std::string::npos) << merge.output;
  EXPECT_TRUE(fs::exists(out / "merged.db"));
}

}  // namespace
}  // namespace mpgemm::testing
