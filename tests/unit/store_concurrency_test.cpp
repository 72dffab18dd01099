// Several processes (here: threads, each with its own connection) share one results database.
#include <unistd.h>

#include <filesystem>
#include <latch>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "store/store.hpp"

namespace mpgemm {
namespace {

TEST(StoreConcurrency, WritersOnOneFileRecordEveryKeyOnce) {
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("mpgemm_store_concurrency_{}", ::getpid());
  std::filesystem::remove_all(dir);
  const auto path = dir / "results.db";
  constexpr int kThreads = 4;
  constexpr int kKeys = 120;
  std::latch start(kThreads);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        start.arrive_and_wait();  // all open the (not yet existing) file at once
        Store store = Store::open(path, Store::Mode::read_write);
        const auto run = store.begin_run(RunInfo{});
        // Every thread records every key, starting at a different place, so the same keys collide.
        for (int i = 0; i < kKeys; ++i) {
          const int key = (i + t * kKeys / kThreads) % kKeys;
          const auto cfg = store.upsert_config(
              Candidate{"wmma", {{"BM", std::int64_t{key % 8}}}, fmt::format("wmma_{}", key % 8), {}}, "h");
          CompileResult compiled;
          compiled.status = Status::ok;
          compiled.arch = *Arch::parse("sm_90");
          compiled.compile_key = fmt::format("c{}", key % 8);
          MeasurementRecord m;
          m.run_id = run;
          m.config_id = cfg;
          m.compilation_id = store.record_compilation(cfg, run, compiled);
          m.result_key = fmt::format("key-{}", key);
          m.device_name = "NVIDIA H200";
          m.device_cc = "sm_90";
          m.arch = compiled.arch;
          m.measurement.timing = TimingStats{1.0 + key, 1.0, 2.0, 1, 1, 1};
          store.record_measurement(m);
        }
        store.end_run(run, "finished");
      } catch (const std::exception& e) {
        errors[static_cast<std::size_t>(t)] = e.what();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& error : errors) EXPECT_EQ(error, "");

  Store reader = Store::open(path, Store::Mode::read_only);
  const auto counts = reader.query_sql("SELECT count(*), count(DISTINCT result_key) FROM measurements");
  EXPECT_EQ(counts.rows[0], (std::vector<report::Cell>{std::int64_t{kKeys}, std::int64_t{kKeys}}));
  EXPECT_EQ(reader.query_sql("SELECT count(*) FROM configs").rows[0][0], report::Cell(std::int64_t{8}));
  EXPECT_EQ(reader.query_sql("SELECT count(*) FROM compilations").rows[0][0], report::Cell(std::int64_t{8}));
  EXPECT_EQ(reader.query_sql("SELECT count(*) FROM runs WHERE status = 'finished'").rows[0][0],
            report::Cell(std::int64_t{kThreads}));
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

}  // namespace
}  // namespace mpgemm
