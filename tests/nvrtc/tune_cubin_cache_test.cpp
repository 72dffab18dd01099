// The cubin cache end to end, with NVRTC and mpgemm-tune's compile-only pass over part of configs/sm86.json:
// a damaged entry is recompiled, two tuners on one database compile each key once in all, and a failure of
// the compiler machinery (a header missing from the toolkit) is retried and reported as an error of the run,
// never recorded as the config's compile_failed.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include <fmt/format.h>

#include "compile/cubin_cache.hpp"
#include "reliability/replay_fixture.hpp"

namespace mpgemm {
namespace {

namespace fs = std::filesystem;
using testing::bin;
using testing::run_command;
using testing::sql_int;

constexpr const char* kSubset = "_bm64_bn64_bk32_";  // a few configs of configs/sm86.json: seconds, not minutes

std::string compile_only(const fs::path& db, const std::string& extra = "") {
  return fmt::format("cd {} && {} configs/sm86.json --compile-only --arch sm_86 --only {} --db {} {}",
                     MPGEMM_SOURCE_DIR, bin("mpgemm-tune"), kSubset, db.string(), extra);
}

struct Counts {
  std::int64_t candidates = -1, compiled = -1, cached = -1;
};

Counts counts(const std::string& output) {
  static const std::regex kLine(R"((\d+) candidates; compiled now (\d+), from the cubin cache (\d+) )");
  std::smatch m;
  if (!std::regex_search(output, m, kLine)) return {};
  return {std::stoll(m[1]), std::stoll(m[2]), std::stoll(m[3])};
}

std::vector<std::string> ok_keys(const fs::path& db) {
  std::vector<std::string> keys;
  for (const auto& row : testing::sql_rows(db, "SELECT compile_key FROM compilations WHERE status = 'ok'"))
    keys.push_back(row[0]);
  return keys;
}

class TuneCubinCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::fresh_dir(std::string("cubin_cache_") +
                              ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(TuneCubinCache, ADamagedEntryIsRecompiled) {
  const fs::path db = dir_ / "t.db";
  const auto first = run_command(compile_only(db));
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const Counts c = counts(first.output);
  ASSERT_GE(c.candidates, 3) << first.output;
  EXPECT_EQ(c.compiled, c.candidates);
  const auto keys = ok_keys(db);
  ASSERT_EQ(static_cast<std::int64_t>(keys.size()), c.candidates);

  const CubinCache cache(CubinCache::beside(db));
  fs::resize_file(cache.dir() / (keys[0] + ".cubin"), 1000);  // truncated
  {
    std::fstream f(cache.dir() / (keys[1] + ".cubin"), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(64);
    f.put('\x5a');  // one byte changed
  }
  fs::remove(cache.dir() / (keys[2] + ".json"));  // gone
  EXPECT_FALSE(cache.load(keys[0]));
  EXPECT_FALSE(cache.load(keys[1]));

  // A new database on the same cache: the three damaged or missing entries are compiled again, the rest read.
  const fs::path db2 = dir_ / "t2.db";
  const auto second = run_command(compile_only(db2, "--cubin-cache " + cache.dir().string()));
  ASSERT_EQ(second.exit_code, 0) << second.output;
  const Counts c2 = counts(second.output);
  EXPECT_EQ(c2.compiled, 3) << second.output;
  EXPECT_EQ(c2.cached, c.candidates - 3) << second.output;
  for (const auto& key : keys) EXPECT_TRUE(cache.load(key)) << key << " was not made whole again";
  EXPECT_EQ(sql_int(db2, "SELECT count(*) FROM compilations WHERE status = 'ok'"), c.candidates);

  // The first database's own rerun: its compilations are recorded and their cubins are whole: nothing to do.
  const auto third = run_command(compile_only(db));
  ASSERT_EQ(third.exit_code, 0) << third.output;
  EXPECT_EQ(counts(third.output).compiled, 0) << third.output;
  EXPECT_EQ(counts(third.output).cached, 0) << third.output;
}

// A compile-only rerun on a database whose compilations are recorded but whose cache was deleted fills the
// cache again, so a later GPU run finds every cubin.
TEST_F(TuneCubinCache, ARerunRefillsADeletedCache) {
  const fs::path db = dir_ / "t.db";
  ASSERT_EQ(run_command(compile_only(db)).exit_code, 0);
  const auto keys = ok_keys(db);
  fs::remove_all(CubinCache::beside(db));
  const auto again = run_command(compile_only(db));
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(counts(again.output).compiled, static_cast<std::int64_t>(keys.size())) << again.output;
  const CubinCache cache(CubinCache::beside(db));
  for (const auto& key : keys) EXPECT_TRUE(cache.load(key)) << key;
}

// Two tuners started together on one database: every key is compiled by one of them, once.
TEST_F(TuneCubinCache, TwoTunersOnOneDatabaseCompileEachKeyOnce) {
  const fs::path db = dir_ / "shared.db";
  const std::vector<std::string> args{testing::source("configs/sm86.json"),
                                      "--compile-only",
                                      "--arch",
                                      "sm_86",
                                      "--only",
                                      kSubset,
                                      "--threads",
                                      "1",
                                      "--db",
                                      db.string()};
  std::vector<testing::TuneProcess> procs;
  for (int i = 0; i < 2; ++i) procs.push_back(testing::start_tune(args, dir_ / fmt::format("t{}.log", i)));
  std::int64_t compiled = 0;
  std::int64_t candidates = -1;
  for (const auto& p : procs) {
    EXPECT_EQ(testing::wait_exit(p.pid), 0) << testing::file_text(p.log);
    const Counts c = counts(testing::file_text(p.log));
    ASSERT_GE(c.candidates, 3) << testing::file_text(p.log);
    candidates = c.candidates;
    compiled += c.compiled;
  }
  EXPECT_EQ(compiled, candidates) << testing::file_text(procs[0].log) << testing::file_text(procs[1].log);
  EXPECT_EQ(sql_int(db, "SELECT count(*) FROM compilations WHERE status = 'ok'"), candidates);
  const CubinCache cache(CubinCache::beside(db));
  for (const auto& key : ok_keys(db)) EXPECT_TRUE(cache.load(key)) << key;
}

// The GPU path, with the fake worker of tests/unit/worker_client_test.cpp standing in for a device (it
// reports an sm_90 GPU and answers every measurement): what a run compiled, a run on a new shape and a resume
// after the run's measurements were lost take from the cache; before the cache, every pending candidate was
// compiled again.
TEST_F(TuneCubinCache, GpuRunsCompileNothingCompiledBefore) {
  const std::string worker = bin("worker_client_test");
  ASSERT_TRUE(fs::exists(worker)) << worker << " is not built";
  const fs::path db = dir_ / "gpu.db";
  auto tune = [&](const std::string& extra) {
    return run_command(
        fmt::format("cd {} && MPGEMM_TEST_FAKE_WORKER=ok {} configs/sm86.json --only {} --worker {} "
                    "--db {} {}",
                    MPGEMM_SOURCE_DIR, bin("mpgemm-tune"), kSubset, worker, db.string(), extra));
  };
  const auto first = tune("");
  ASSERT_EQ(first.exit_code, 0) << first.output;
  ASSERT_NE(first.output.find("(gpu, sm_90)"), std::string::npos) << first.output;
  const Counts c = counts(first.output);
  ASSERT_GE(c.candidates, 3) << first.output;
  EXPECT_EQ(c.compiled, c.candidates);

  const auto new_shape = tune("--M 1024 --N 1024 --K 1024");
  ASSERT_EQ(new_shape.exit_code, 0) << new_shape.output;
  EXPECT_EQ(counts(new_shape.output).compiled, 0) << new_shape.output;
  EXPECT_EQ(counts(new_shape.output).cached, c.candidates) << new_shape.output;
  EXPECT_NE(new_shape.output.find(fmt::format("measured now {},", c.candidates)), std::string::npos)
      << new_shape.output;

  // As a kill -9 after compiling would leave it: compilations recorded, measurements of the shape missing.
  testing::sql_exec(db, "DELETE FROM measurements WHERE M = 1024");
  const auto resumed = tune("--M 1024 --N 1024 --K 1024");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_EQ(counts(resumed.output).compiled, 0) << resumed.output;
  EXPECT_EQ(counts(resumed.output).cached, c.candidates) << resumed.output;
}

// A toolkit include directory without mma.h: NVRTC fails for want of a header the kernel includes. That is
// the installation's fault, not the config's: retried, then the run fails with the reason, and nothing is
// recorded as compile_failed or cached, so the same command on a complete toolkit compiles the config.
TEST_F(TuneCubinCache, AMissingHeaderIsAnErrorOfTheRunNotACompileFailure) {
  const fs::path toolkit = dir_ / "incomplete-toolkit";
  fs::create_directories(toolkit);
  std::ofstream(toolkit / "cuda_fp16.h") << "// a toolkit without mma.h\n";
  const fs::path db = dir_ / "t.db";
  auto command = [&](const std::string& env) {
    return fmt::format("cd {} && {} {} configs/sm86.json --compile-only --arch sm_86 --only wmma_naive --db {}",
                       MPGEMM_SOURCE_DIR, env, bin("mpgemm-tune"), db.string());
  };
  const auto broken = run_command(command("MPGEMM_CUDA_INCLUDE_DIR=" + toolkit.string()));
  EXPECT_EQ(broken.exit_code, 1) << broken.output;
  EXPECT_NE(broken.output.find("mma.h not found on the include path"), std::string::npos) << broken.output;
  EXPECT_NE(broken.output.find("still failing after 3 attempts"), std::string::npos) << broken.output;
  EXPECT_EQ(sql_int(db, "SELECT count(*) FROM compilations"), 0);
  EXPECT_EQ(sql_int(db, "SELECT count(*) FROM runs WHERE status = 'failed'"), 1);
  const fs::path cache = CubinCache::beside(db);
  if (fs::exists(cache)) {
    for (const auto& e : fs::directory_iterator(cache)) EXPECT_NE(e.path().extension(), ".json") << e.path();
  }

  const auto fixed = run_command(command(""));
  ASSERT_EQ(fixed.exit_code, 0) << fixed.output;
  EXPECT_EQ(counts(fixed.output).compiled, 1) << fixed.output;
  EXPECT_EQ(sql_int(db, "SELECT count(*) FROM compilations WHERE status = 'ok'"), 1);
}

}  // namespace
}  // namespace mpgemm
