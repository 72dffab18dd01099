// The re-rank's tables (schema version 7): a version-5 database with rows migrates to them; the ranked configs
// a re-rank starts from; a re-rank with every sample written and read back; the winners view.
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "store/schema.hpp"
#include "store/store.hpp"
#include "support/old_database.hpp"
#include "support/store_fixture.hpp"

namespace mpgemm {
namespace {

const Shape kShape{256, 128, 64};

// An 'ok' measurement of `config` at `median_ms` with its compilation (registers), in one call.
void measured(Store& store, std::int64_t run, std::int64_t config, double median_ms, int registers,
              const std::string& key, const std::string& arch = "sm_90a", double sm_clock_mhz = 0,
              const Shape& shape = kShape) {
  CompileResult c;
  c.status = Status::ok;
  c.arch = *Arch::parse(arch);
  c.registers = registers;
  c.shared_bytes = 1024;
  c.dynamic_shared_bytes = 32768;
  c.compile_key = "ck" + key;
  const auto compilation = store.record_compilation(config, run, c);
  MeasurementRecord m;
  m.run_id = run;
  m.config_id = config;
  m.compilation_id = compilation;
  m.result_key = key;
  m.device_name = "NVIDIA H200";
  m.device_cc = "sm_90";
  m.arch = c.arch;
  m.shape = shape;
  m.measurement.status = Status::ok;
  m.measurement.timing = TimingStats{median_ms, median_ms, median_ms, 3, 5, 20};
  m.measurement.sm_clock_mhz = sm_clock_mhz;
  store.record_measurement(m);
}

// A version-5 database (the migrations' own SQL up to 5, as an older mpgemm left it) with a run, configs,
// compilations and measurements, opened by this build: migrated to 7 in place, nothing lost, the re-rank
// tables empty and usable with the old rows.
TEST(StoreReranks, Version5DatabaseMigratesWithItsRows) {
  const auto dir = testing::per_test_dir();
  std::filesystem::create_directories(dir);
  const auto path = dir / "v5.db";
  testing::database_at_version(
      path, 5,
      "INSERT INTO runs (id, tool_version, git_sha, argv, mode) VALUES (1, '0.1.0', 'abc', '[]', 'gpu');"
      "INSERT INTO configs (id, family, name, params, source_hash) VALUES "
      "  (1, 'wmma', 'wmma_a', '{\"BM\": 64}', 'h'), (2, 'wmma', 'wmma_b', '{\"BM\": 128}', 'h');"
      "INSERT INTO compilations (id, config_id, run_id, arch, compile_key, status, registers, compile_ms, log) "
      "VALUES (1, 1, 1, 'sm_90a', 'k1', 'ok', 96, 1.0, ''), (2, 2, 1, 'sm_90a', 'k2', 'ok', 128, 1.0, '');"
      "INSERT INTO measurements (run_id, config_id, compilation_id, result_key, device_name, device_cc, arch, "
      "  M, N, K, status, median_ms) VALUES "
      "  (1, 1, 1, 'r1', 'NVIDIA H200', 'sm_90', 'sm_90a', 256, 128, 64, 'ok', 0.5),"
      "  (1, 2, 2, 'r2', 'NVIDIA H200', 'sm_90', 'sm_90a', 256, 128, 64, 'ok', 0.25);");
  { Store migrated = Store::open(path, Store::Mode::read_write); }
  Store store = Store::open(path, Store::Mode::read_only);  // refuses anything but the current schema
  EXPECT_EQ(store.query_named("measurements").rows.size(), 2u);
  EXPECT_TRUE(store.query_named("winners").rows.empty());
  EXPECT_TRUE(store.query_named("reranks").rows.empty());
  const auto ranked = store.ranked_configs("NVIDIA H200", kShape, 5);
  ASSERT_EQ(ranked.size(), 2u);
  EXPECT_EQ(ranked[0].config.candidate.name, "wmma_b");
  EXPECT_EQ(ranked[0].registers, 128);
  EXPECT_EQ(ranked[1].config.candidate.name, "wmma_a");
  EXPECT_FALSE(store.find_latest_rerank("NVIDIA H200", kShape));
  std::filesystem::remove_all(dir);
}

// Schema 12 adds reranks.settled_ms: a re-rank recorded before it reads as settled for 0 ms (none), and a negative
// time is refused.
TEST(StoreReranks, Version11RerankReadsAsNotSettled) {
  const auto dir = testing::per_test_dir();
  std::filesystem::create_directories(dir);
  const auto path = dir / "v11.db";
  testing::database_at_version(
      path, 11,
      "INSERT INTO runs (id, tool_version, git_sha, argv, mode) VALUES (1, '0.1.0', 'abc', '[]', 'gpu');"
      "INSERT INTO reranks (id, run_id, device_name, device_cc, M, N, K, top_k, warmup, rounds, iters, tie_band, "
      "  rule, batches) VALUES (1, 1, 'NVIDIA H200', 'sm_90', 256, 128, 64, 5, 3, 10, 20, 0.01, 'r', 'graph');");
  {
    Store store = Store::open(path, Store::Mode::read_write);
    const auto r = store.find_latest_rerank("NVIDIA H200", kShape);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->batches, BatchEnqueue::graph);
    EXPECT_EQ(r->settled_ms, 0);
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, "UPDATE reranks SET settled_ms = 1000.5", nullptr, nullptr, nullptr), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, "UPDATE reranks SET settled_ms = -1", nullptr, nullptr, nullptr), SQLITE_CONSTRAINT);
  sqlite3_close(db);
  std::filesystem::remove_all(dir);
}

class StoreRerankRows : public testing::StoreWithRun {};

// One row per (config name, arch) at its fastest median; equal medians in name order; an older config row of
// the same name (another source hash) does not take a second place; other shapes and failures stay out.
TEST_F(StoreRerankRows, RankedConfigsAreTheFastestPerKernelInAFixedOrder) {
  const auto b = config("wmma_b"), a = config("wmma_a"), c = config("wmma_c");
  measured(*store_, run_, b, 0.30, 100, "b1");
  measured(*store_, run_, b, 0.20, 100, "b2");  // b's fastest: 0.20
  measured(*store_, run_, a, 0.20, 90, "a1");   // ties with b: a first by name
  measured(*store_, run_, c, 0.40, 80, "c1");
  const auto old_b = store_->upsert_config(Candidate{"wmma", {}, "wmma_b", std::nullopt}, "0ld");
  measured(*store_, run_, old_b, 0.10, 100, "b_old");  // the fastest row, but b is one kernel
  MeasurementRecord failed;
  failed.run_id = run_;
  failed.config_id = c;
  failed.result_key = "c_failed";
  failed.device_name = "NVIDIA H200";
  failed.device_cc = "sm_90";
  failed.arch = *Arch::parse("sm_90a");
  failed.shape = kShape;
  failed.measurement = Measurement::unmeasured(Status::incorrect, "wrong");
  store_->record_measurement(failed);

  const auto ranked = store_->ranked_configs("NVIDIA H200", kShape, 5);
  ASSERT_EQ(ranked.size(), 3u);
  EXPECT_EQ(ranked[0].config.id, old_b);  // the fastest row of wmma_b
  EXPECT_EQ(ranked[0].median_ms, 0.10);
  EXPECT_EQ(ranked[1].config.candidate.name, "wmma_a");
  EXPECT_EQ(ranked[1].registers, 90);
  EXPECT_EQ(ranked[1].shared_bytes, 1024);
  EXPECT_EQ(ranked[2].config.candidate.name, "wmma_c");
  EXPECT_EQ(store_->ranked_configs("NVIDIA H200", kShape, 2).size(), 2u);
  EXPECT_TRUE(store_->ranked_configs("NVIDIA H200", Shape{1, 2, 3}, 5).empty());
  EXPECT_TRUE(store_->ranked_configs("NVIDIA A100", kShape, 5).empty());
}

// By cycles: fewest median x clock first, each config at its fastest median's clock; a config whose clock is
// unknown follows the others, by median.
TEST_F(StoreRerankRows, RankedConfigsByCyclesUseTheClockOfTheFastestMedian) {
  const auto a = config("wmma_a"), b = config("wmma_b"), c = config("wmma_c"), d = config("wmma_d");
  measured(*store_, run_, a, 0.100, 100, "a1", "sm_90a", 1935);  // 193.5: fastest by time
  measured(*store_, run_, b, 0.105, 100, "b1", "sm_90a", 1725);  // 181.1: fewest cycles
  measured(*store_, run_, b, 0.110, 100, "b2", "sm_90a", 1000);  // slower: its clock is not b's
  measured(*store_, run_, c, 0.090, 100, "c1");                  // no clock: last by cycles, first by time
  measured(*store_, run_, d, 0.102, 100, "d1", "sm_90a", 1800);  // 183.6
  const auto by_cycles = store_->ranked_configs("NVIDIA H200", kShape, 5, RankBy::cycles);
  ASSERT_EQ(by_cycles.size(), 4u);
  EXPECT_EQ(by_cycles[0].config.candidate.name, "wmma_b");
  EXPECT_EQ(by_cycles[0].median_ms, 0.105);
  EXPECT_EQ(by_cycles[0].sm_clock_mhz, 1725);
  EXPECT_EQ(by_cycles[1].config.candidate.name, "wmma_d");
  EXPECT_EQ(by_cycles[2].config.candidate.name, "wmma_a");
  EXPECT_EQ(by_cycles[3].config.candidate.name, "wmma_c");
  EXPECT_EQ(by_cycles[3].sm_clock_mhz, 0);
  const auto by_time = store_->ranked_configs("NVIDIA H200", kShape, 5);
  ASSERT_EQ(by_time.size(), 4u);
  EXPECT_EQ(by_time[0].config.candidate.name, "wmma_c");
  EXPECT_EQ(by_time[1].config.candidate.name, "wmma_a");
  // An older source of d (another hash) is slower by time but fewer cycles: by cycles it stands for d, by time the
  // newer row does.
  const auto old_d = store_->upsert_config(Candidate{"wmma", {}, "wmma_d", std::nullopt}, "0ld");
  measured(*store_, run_, old_d, 0.104, 100, "d_old", "sm_90a", 1500);  // 156.0: fewest cycles of all
  const auto with_old = store_->ranked_configs("NVIDIA H200", kShape, 5, RankBy::cycles);
  ASSERT_EQ(with_old.size(), 4u);
  EXPECT_EQ(with_old[0].config.id, old_d);
  EXPECT_EQ(with_old[1].config.candidate.name, "wmma_b");
  const auto by_time_with_old = store_->ranked_configs("NVIDIA H200", kShape, 5);
  ASSERT_EQ(by_time_with_old.size(), 4u);
  EXPECT_EQ(by_time_with_old[2].config.id, d);  // 0.102 (d) ahead of 0.104 (its older source)
  // The limit takes the first of each ranking.
  const auto two_by_cycles = store_->ranked_configs("NVIDIA H200", kShape, 2, RankBy::cycles);
  ASSERT_EQ(two_by_cycles.size(), 2u);
  EXPECT_EQ(two_by_cycles[1].config.candidate.name, "wmma_b");
  const auto one_by_time = store_->ranked_configs("NVIDIA H200", kShape, 1);
  ASSERT_EQ(one_by_time.size(), 1u);
  EXPECT_EQ(one_by_time[0].config.candidate.name, "wmma_c");
}

TEST_F(StoreRerankRows, ARerankRoundTripsWithEverySampleAndNamesTheWinner) {
  const auto a = config("wmma_a"), b = config("wmma_b");
  RerankRecord r;
  r.run_id = run_;
  r.device_name = "NVIDIA H200";
  r.device_cc = "sm_90";
  r.shape = kShape;
  r.top_k = 5;
  r.warmup = 3;
  r.rounds = 2;
  r.iters = 20;
  r.tie_band = 0.01;
  r.rule = "test_rule";
  r.winner_config_id = b;
  r.cublas_median_ms = 0.5;
  r.cublaslt_median_ms = 0.4;
  r.sm_clock_mhz = 1755;
  RerankEntryRecord eb;
  eb.config_id = b;
  eb.arch = *Arch::parse("sm_90a");
  eb.prior_median_ms = 0.26;
  eb.timing = TimingStats{0.25, 0.25, 0.25, 3, 2, 20};
  eb.ratio_to_cublas = 2.0;
  eb.ratio_to_cublaslt = 1.6;
  eb.registers = 96;
  eb.threads = 128;
  eb.smem_bytes = 33792;
  eb.tied = true;
  eb.place = 1;
  eb.samples = {{0, 1, 0.25}, {1, 0, 0.25}};
  RerankEntryRecord ea;
  ea.config_id = a;
  ea.arch = *Arch::parse("sm_90a");
  ea.prior_median_ms = 0.25;
  ea.status = Status::launch_failed;
  ea.message = "dropped";
  ea.samples = {{0, 0, 0.3}};
  r.entries = {eb, ea};
  r.cublas_samples = {{0, 2, 0.5}, {1, 1, 0.5}};
  r.cublaslt_samples = {{0, 3, 0.4}, {1, 2, 0.375}};
  r.batches = BatchEnqueue::graph;
  r.settled_ms = 1012.25;
  store_->record_rerank(r);

  const auto got = store_->find_latest_rerank("NVIDIA H200", kShape);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->batches, BatchEnqueue::graph);
  EXPECT_EQ(got->settled_ms, 1012.25);
  EXPECT_EQ(got->winner_config_id, b);
  EXPECT_EQ(got->rule, "test_rule");
  EXPECT_EQ(got->rounds, 2);
  EXPECT_EQ(got->cublas_median_ms, 0.5);
  EXPECT_EQ(got->sm_clock_mhz, 1755);
  EXPECT_EQ(got->cublas_samples, r.cublas_samples);
  EXPECT_EQ(got->cublaslt_median_ms, 0.4);
  EXPECT_EQ(got->cublaslt_samples, r.cublaslt_samples);
  EXPECT_EQ(got->entries[0].ratio_to_cublaslt, 1.6);
  EXPECT_FALSE(got->entries[1].ratio_to_cublaslt);
  // The references' batches say which reference they are.
  const Store reader = Store::open(dir_ / "results.db", Store::Mode::read_only);
  EXPECT_EQ(reader
                .query_sql("SELECT reference, count(*) FROM rerank_samples WHERE config_id IS NULL "
                           "GROUP BY reference ORDER BY reference")
                .rows,
            (std::vector<std::vector<report::Cell>>{{std::string("cublas"), std::int64_t{2}},
                                                    {std::string("cublaslt"), std::int64_t{2}}}));
  ASSERT_EQ(got->entries.size(), 2u);
  EXPECT_EQ(got->entries[0].config_id, b);
  EXPECT_EQ(got->entries[0].place, 1);
  EXPECT_TRUE(got->entries[0].tied);
  EXPECT_EQ(got->entries[0].samples, eb.samples);
  ASSERT_TRUE(got->entries[0].timing);
  EXPECT_EQ(got->entries[0].timing->median_ms, 0.25);
  EXPECT_EQ(got->entries[0].timing->runs, 2);
  EXPECT_EQ(got->entries[0].registers, 96);
  EXPECT_EQ(got->entries[0].smem_bytes, 33792);
  EXPECT_EQ(got->entries[1].status, Status::launch_failed);
  EXPECT_FALSE(got->entries[1].place);
  EXPECT_FALSE(got->entries[1].timing);
  EXPECT_EQ(got->entries[1].registers, -1);
  EXPECT_EQ(got->entries[1].samples, ea.samples);
  {  // A re-rank recorded before schema 10 has no batches (NULL): its batches were enqueued call by call.
    sqlite3* c = nullptr;
    ASSERT_EQ(sqlite3_open((dir_ / "results.db").c_str(), &c), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(c, "UPDATE reranks SET batches = NULL", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(c);
    EXPECT_EQ(store_->find_latest_rerank("NVIDIA H200", kShape)->batches, BatchEnqueue::stream);
  }

  const auto winners = store_->query_named("winners");
  ASSERT_EQ(winners.rows.size(), 1u);
  EXPECT_EQ(std::get<std::string>(winners.rows[0][3]), "wmma_b");
  EXPECT_EQ(winners.rows[0][8], report::Cell(1.6));           // ratio_to_cublaslt
  EXPECT_EQ(winners.rows[0][9], report::Cell(0.4));           // cublaslt_median_ms
  EXPECT_EQ(std::get<std::int64_t>(winners.rows[0][10]), 1);  // tied: the winner alone
  EXPECT_EQ(store_->query_named("reranks").rows.size(), 2u);

  // A later re-rank of the shape replaces the winner; one without a winner does not.
  r.winner_config_id = a;
  r.entries[1].place = 1;
  r.entries[1].status = Status::ok;
  r.entries[0].place = 2;
  store_->record_rerank(r);
  r.winner_config_id.reset();
  r.entries = {};
  store_->record_rerank(r);
  const auto later = store_->query_named("winners");
  ASSERT_EQ(later.rows.size(), 1u);
  EXPECT_EQ(std::get<std::string>(later.rows[0][3]), "wmma_a");
}

// The query view best is each shape's winner as mpgemm-run --config best takes it: the re-rank's where the shape was
// re-ranked (here not the first pass's fastest), else the first pass's fastest; chosen_by says which. The view
// fastest keeps the first pass's answer.
TEST_F(StoreRerankRows, TheBestViewIsEachShapesWinner) {
  const auto a = config("wmma_a"), b = config("wmma_b");
  const Shape other{512, 512, 512};
  measured(*store_, run_, a, 0.2, 96, "a");
  measured(*store_, run_, b, 0.3, 96, "b");
  measured(*store_, run_, a, 0.7, 96, "a-other", "sm_90a", 0, other);
  RerankRecord r;
  r.run_id = run_;
  r.device_name = "NVIDIA H200";
  r.device_cc = "sm_90";
  r.shape = kShape;
  r.top_k = 2;
  r.warmup = 3;
  r.rounds = 1;
  r.iters = 20;
  r.tie_band = 0.01;
  r.rule = "test_rule";
  r.winner_config_id = b;
  r.cublas_median_ms = 0.5;
  RerankEntryRecord eb;
  eb.config_id = b;
  eb.arch = *Arch::parse("sm_90a");
  eb.timing = TimingStats{0.25, 0.25, 0.25, 3, 1, 20};
  eb.ratio_to_cublas = 2.0;
  eb.place = 1;
  eb.samples = {{0, 0, 0.25}};
  RerankEntryRecord ea = eb;
  ea.config_id = a;
  ea.timing = TimingStats{0.26, 0.26, 0.26, 3, 1, 20};
  ea.place = 2;
  ea.samples = {{0, 1, 0.26}};
  r.entries = {eb, ea};
  r.cublas_samples = {{0, 2, 0.5}};
  store_->record_rerank(r);

  const auto best = store_->query_named("best");
  ASSERT_EQ(best.rows.size(), 2u);
  const auto cell = [&](std::size_t row, std::string_view name) {
    const auto at = std::find(best.columns.begin(), best.columns.end(), name);
    EXPECT_NE(at, best.columns.end()) << name;
    return best.rows[row].at(static_cast<std::size_t>(at - best.columns.begin()));
  };
  EXPECT_EQ(cell(0, "M"), report::Cell(std::int64_t{256}));
  EXPECT_EQ(cell(0, "config_name"), report::Cell(std::string("wmma_b")));
  EXPECT_EQ(cell(0, "chosen_by"), report::Cell(std::string("re-rank")));
  EXPECT_EQ(cell(0, "median_ms"), report::Cell(0.25));
  EXPECT_EQ(cell(0, "ratio_to_cublas"), report::Cell(2.0));
  EXPECT_EQ(cell(0, "tflops"), report::Cell(kShape.flops() / 0.25e9));
  EXPECT_EQ(cell(0, "cublas_tflops"), report::Cell(kShape.flops() / 0.5e9));  // the re-rank's cuBLAS
  EXPECT_EQ(cell(1, "M"), report::Cell(std::int64_t{512}));
  EXPECT_EQ(cell(1, "config_name"), report::Cell(std::string("wmma_a")));
  EXPECT_EQ(cell(1, "chosen_by"), report::Cell(std::string("first pass")));
  const auto fastest = store_->query_named("fastest");
  ASSERT_EQ(fastest.rows.size(), 2u);
  EXPECT_EQ(std::get<std::string>(fastest.rows[0][5]), "wmma_a");  // config_name: the first pass's fastest
}

}  // namespace
}  // namespace mpgemm
