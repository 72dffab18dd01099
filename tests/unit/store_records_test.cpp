// Writing and reading back runs, configs, compilations and cuBLAS timings; idempotent inserts.
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "common/error.hpp"
#include "store/store.hpp"
#include "support/store_fixture.hpp"

namespace mpgemm {
namespace {

class StoreRecords : public testing::StoreWithRun {};

TEST_F(StoreRecords, RunRoundTrip) {
  RunInfo info;
  info.argv = {"mpgemm-tune", "--shape", "4096x4096x4096", "naïve \"quoted\""};
  info.mode = "replay";
  info.space_path = "configs/wmma.json";
  info.space_hash = "abcdef0123456789";
  info.hostname = "node7";
  info.device_name = "NVIDIA H200";
  info.device_cc = "sm_90";
  info.sm_count = 132;
  info.driver_version = "13.0";
  info.runtime_version = "12.9";
  info.nvrtc_version = "12.9";
  info.cublas_version = "12.9.1";
  info.notes = "baseline";
  const auto id = store_->begin_run(info);
  auto r = store_->find_run(id);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, "running");
  EXPECT_FALSE(r->ended_at);
  EXPECT_EQ(r->started_at.size(), std::string("2024-05-01T12:00:00.000Z").size()) << r->started_at;
  EXPECT_EQ(r->argv, info.argv);
  EXPECT_EQ(r->mode, "replay");
  EXPECT_EQ(r->tool_version, info.tool_version);
  EXPECT_EQ(r->git_sha, info.git_sha);
  EXPECT_EQ(r->space_path, info.space_path);
  EXPECT_EQ(r->space_hash, info.space_hash);
  EXPECT_EQ(r->hostname, info.hostname);
  EXPECT_EQ(r->device_name, info.device_name);
  EXPECT_EQ(r->device_cc, info.device_cc);
  EXPECT_EQ(r->sm_count, info.sm_count);
  EXPECT_EQ(r->driver_version, info.driver_version);
  EXPECT_EQ(r->runtime_version, info.runtime_version);
  EXPECT_EQ(r->nvrtc_version, info.nvrtc_version);
  EXPECT_EQ(r->cublas_version, info.cublas_version);
  EXPECT_EQ(r->notes, info.notes);

  store_->end_run(id, "interrupted");
  r = store_->find_run(id);
  EXPECT_EQ(r->status, "interrupted");
  EXPECT_TRUE(r->ended_at);
  EXPECT_FALSE(store_->find_run(id + 100));
  EXPECT_THROW(store_->end_run(id, "done"), Error);
  EXPECT_THROW(store_->end_run(id + 100, "finished"), StoreError);
  info.mode = "cpu";
  EXPECT_THROW(store_->begin_run(info), Error);
}

TEST_F(StoreRecords, ConfigRoundTripIsIdempotentAndGainsAlias) {
  const auto id = config("wmma_bm128");
  EXPECT_EQ(config("wmma_bm128"), id);
  EXPECT_EQ(config("wmma_bm128", "wmma_cp_async"), id);  // same row, alias added
  EXPECT_EQ(config("wmma_bm128", "other_alias"), id);    // an alias, once set, stays
  EXPECT_NE(config("wmma_bm64"), id);
  const auto c = store_->find_config(id);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->candidate.family, "wmma");
  EXPECT_EQ(c->candidate.name, "wmma_bm128");
  EXPECT_EQ(c->candidate.alias, "wmma_cp_async");
  EXPECT_EQ(c->candidate.params, (Params{{"BM", std::int64_t{128}}, {"LOAD", std::string("cp_async")}}));
  EXPECT_EQ(c->source_hash, "00112233aabbccdd");
  EXPECT_EQ(count("configs"), 2);
}

TEST_F(StoreRecords, CompilationRoundTripIsIdempotent) {
  const auto cfg = config("wmma_bm128");
  CompileResult result;
  result.status = Status::ok;
  result.arch = *Arch::parse("sm_90a");
  result.cubin = {'\x7f', 'E', 'L', 'F'};
  result.registers = 128;
  result.shared_bytes = 49152;
  result.spill_store_bytes = 0;
  result.spill_load_bytes = 8;
  result.stack_bytes = -1;  // unknown: stored as NULL, read back as -1
  result.compile_ms = 812.5;
  result.log = "ptxas info    : Used 128 registers\n";
  result.compile_key = "feedfacecafebeef";
  EXPECT_FALSE(store_->find_compilation(cfg, "sm_90a", "feedfacecafebeef"));
  const auto id = store_->record_compilation(cfg, run_, result);
  EXPECT_EQ(store_->record_compilation(cfg, run_, result), id);
  EXPECT_EQ(count("compilations"), 1);
  const auto c = store_->find_compilation(cfg, "sm_90a", "feedfacecafebeef");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->id, id);
  EXPECT_EQ(c->config_id, cfg);
  EXPECT_EQ(c->run_id, run_);
  EXPECT_EQ(c->arch, result.arch);
  EXPECT_EQ(c->compile_key, result.compile_key);
  EXPECT_EQ(c->status, Status::ok);
  EXPECT_EQ(c->registers, 128);
  EXPECT_EQ(c->shared_bytes, 49152);
  EXPECT_EQ(c->spill_store_bytes, 0);
  EXPECT_EQ(c->spill_load_bytes, 8);
  EXPECT_EQ(c->stack_bytes, -1);
  EXPECT_EQ(c->compile_ms, 812.5);
  EXPECT_EQ(c->log, result.log);
  EXPECT_FALSE(store_->find_compilation(cfg, "sm_90", "feedfacecafebeef"));

  CompileResult failed;
  failed.arch = result.arch;
  failed.compile_key = "0000000000000001";
  failed.log = "error: identifier \"x\" is undefined";
  const auto failed_id = store_->record_compilation(cfg, run_, failed);
  EXPECT_NE(failed_id, id);
  EXPECT_EQ(store_->find_compilation(cfg, "sm_90a", "0000000000000001")->status, Status::compile_failed);
  EXPECT_EQ(store_->find_compilation(cfg, "sm_90a", "0000000000000001")->registers, -1);
}

// ptxas's performance warnings are stored as a JSON array with the compilation (schema version 3), counted in
// perf_warnings, and shown by the configs, compilations, warnings and best views.
TEST_F(StoreRecords, CompilationWarningsRoundTripAndShowInTheViews) {
  using K = PtxasWarningKind;
  const auto slow = config("wmma_slow");
  const auto clean = config("wmma_clean");
  const auto spilling = config("wmma_spilling");
  CompileResult result;
  result.status = Status::ok;
  result.arch = *Arch::parse("sm_90a");
  result.spill_store_bytes = 0;
  result.spill_load_bytes = 0;
  result.compile_key = "k-slow";
  result.warnings = {
      {"C7519", K::wgmma_arrive_injected, "warpgroup.arrive is injected in around line 118 by compiler"},
      {"C7519", K::wgmma_arrive_injected, "warpgroup.arrive is injected in around line 173 by compiler"},
      {"C7515", K::wgmma_serialized, "Potential Performance Loss: wgmma.mma_async instructions are serialized \"x\""},
  };
  const auto slow_id = store_->record_compilation(slow, run_, result);
  const auto stored = store_->find_compilation(slow, "sm_90a", "k-slow");
  ASSERT_TRUE(stored && stored->warnings);
  EXPECT_EQ(*stored->warnings, result.warnings);

  CompileResult none = result;
  none.compile_key = "k-clean";
  none.warnings.clear();
  const auto clean_id = store_->record_compilation(clean, run_, none);
  ASSERT_TRUE(store_->find_compilation(clean, "sm_90a", "k-clean")->warnings);
  EXPECT_TRUE(store_->find_compilation(clean, "sm_90a", "k-clean")->warnings->empty());
  CompileResult spills = none;
  spills.compile_key = "k-spill";
  spills.spill_store_bytes = 64;
  store_->record_compilation(spilling, run_, spills);

  using report::Cell;
  auto column = [](const report::Table& t, std::string_view name) {
    const auto at = std::find(t.columns.begin(), t.columns.end(), name);
    EXPECT_NE(at, t.columns.end()) << name;
    return static_cast<std::size_t>(at - t.columns.begin());
  };
  const auto compilations = store_->query_named("compilations");
  ASSERT_EQ(compilations.rows.size(), 3u);
  EXPECT_EQ(compilations.rows[0][column(compilations, "perf_warnings")], Cell(std::int64_t{3}));
  EXPECT_EQ(compilations.rows[0][column(compilations, "warnings")],
            Cell(std::string("wgmma_arrive_injected,wgmma_serialized")));
  EXPECT_EQ(compilations.rows[1][column(compilations, "perf_warnings")], Cell(std::int64_t{0}));
  EXPECT_EQ(compilations.rows[1][column(compilations, "warnings")], Cell());
  const auto configs = store_->query_named("configs");
  ASSERT_EQ(configs.rows.size(), 3u);
  EXPECT_EQ(configs.rows[0][column(configs, "warnings")], Cell(std::string("wgmma_arrive_injected,wgmma_serialized")));

  // The warnings view: compilations with warnings or spills, one row each.
  const auto warned = store_->query_named("warnings");
  ASSERT_EQ(warned.rows.size(), 2u);
  EXPECT_EQ(warned.rows[0][column(warned, "config")], Cell(std::string("wmma_slow")));
  EXPECT_EQ(warned.rows[0][column(warned, "codes")], Cell(std::string("C7519,C7515")));
  EXPECT_EQ(warned.rows[0][column(warned, "first_message")],
            Cell(std::string("warpgroup.arrive is injected in around line 118 by compiler")));
  EXPECT_EQ(warned.rows[1][column(warned, "config")], Cell(std::string("wmma_spilling")));
  EXPECT_EQ(warned.rows[1][column(warned, "perf_warnings")], Cell(std::int64_t{0}));
  EXPECT_EQ(warned.rows[1][column(warned, "spill_store_bytes")], Cell(std::int64_t{64}));

  // best names the kinds of the winner's compilation.
  MeasurementRecord m;
  m.run_id = run_;
  m.config_id = slow;
  m.compilation_id = slow_id;
  m.result_key = "r-slow";
  m.device_name = "NVIDIA H200";
  m.device_cc = "sm_90";
  m.arch = result.arch;
  m.measurement.timing = TimingStats{0.5, 0.4, 0.6, 1, 2, 3};
  store_->record_measurement(m);
  m.config_id = clean;
  m.compilation_id = clean_id;
  m.result_key = "r-clean";
  m.shape = Shape{4096, 4096, 4096};
  store_->record_measurement(m);
  const auto best = store_->query_named("fastest");
  ASSERT_EQ(best.rows.size(), 2u);
  EXPECT_EQ(best.rows[0][column(best, "config_name")], Cell(std::string("wmma_slow")));
  EXPECT_EQ(best.rows[0][column(best, "warnings")], Cell(std::string("wgmma_arrive_injected,wgmma_serialized")));
  EXPECT_EQ(best.rows[1][column(best, "warnings")], Cell());
}

TEST_F(StoreRecords, CublasRoundTrip) {
  CublasRecord r{"NVIDIA H200", "sm_90",     Shape{4096, 4096, 4096}, TimingStats{0.25, 0.24, 0.3, 10, 20, 50},
                 1980,          std::nullopt};
  const auto id = store_->record_cublas(run_, r);
  const auto c = store_->find_cublas(id);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->id, id);
  EXPECT_EQ(c->run_id, run_);
  EXPECT_EQ(c->device_name, r.device_name);
  EXPECT_EQ(c->device_cc, r.device_cc);
  EXPECT_EQ(c->shape, r.shape);
  EXPECT_EQ(c->timing.median_ms, 0.25);
  EXPECT_EQ(c->timing.min_ms, 0.24);
  EXPECT_EQ(c->timing.max_ms, 0.3);
  EXPECT_EQ(c->timing.warmup, 10);
  EXPECT_EQ(c->timing.runs, 20);
  EXPECT_EQ(c->timing.iters, 50);
  EXPECT_EQ(c->sm_clock_mhz, 1980);
  EXPECT_DOUBLE_EQ(c->tflops, r.shape.flops() / 0.25e9);
  r.timing.median_ms = 0.2;
  const auto newer = store_->record_cublas(run_, r);
  EXPECT_EQ(store_->find_latest_cublas("NVIDIA H200", r.shape)->id, newer);
  EXPECT_FALSE(store_->find_latest_cublas("NVIDIA H100", r.shape));
  EXPECT_FALSE(store_->find_cublas(newer + 1));
}

// An L2 or batch mode text that is no mode (a file edited by hand past the CHECK constraints) is a bad row in every
// reader of the timing tables that has the column, not read as some default.
TEST_F(StoreRecords, UnknownModeTextIsABadRowInEveryTimingReader) {
  const CublasRecord cb{"NVIDIA H200", "sm_90",     Shape{64, 64, 64}, TimingStats{0.25, 0.24, 0.3, 10, 20, 50},
                        1980,          std::nullopt};
  const auto cublas_id = store_->record_cublas(run_, cb);
  CublasLtReference lt;
  lt.heuristics_returned = 1;
  lt.heuristics_valid = 1;
  lt.timing = TimingStats{0.2, 0.2, 0.2, 3, 5, 20};
  lt.algo = CublasLtAlgo{66, 24, 35, 1, 0, 1, 2, 3, 4, 0, 1.5};
  lt.error = ErrorStats{};
  const auto lt_id =
      store_->record_cublaslt(run_, CublasLtRecord{"NVIDIA H200", "sm_90", Shape{64, 64, 64}, lt, std::nullopt});
  MeasurementRecord m;
  m.run_id = run_;
  m.config_id = config("wmma_a");
  m.result_key = "r-batches";
  m.device_name = "NVIDIA H200";
  m.device_cc = "sm_90";
  m.arch = *Arch::parse("sm_90");
  m.shape = Shape{64, 64, 64};
  m.measurement.timing = TimingStats{0.3, 0.3, 0.3, 3, 5, 20};
  m.measurement.error = ErrorStats{};
  const auto measurement_id = store_->record_measurement(m);
  // Read back as recorded first, so the failures below are the edited text's.
  EXPECT_EQ(store_->find_cublas(cublas_id)->timing.batches, BatchEnqueue::stream);
  EXPECT_TRUE(store_->find_cublaslt(lt_id));
  EXPECT_TRUE(store_->find_measurement("r-batches"));

  const auto edit = [&](const char* sql) {
    sqlite3* c = nullptr;
    ASSERT_EQ(sqlite3_open((dir_ / "results.db").c_str(), &c), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(c, (std::string("PRAGMA ignore_check_constraints = ON; ") + sql).c_str(), nullptr, nullptr,
                           nullptr),
              SQLITE_OK);
    sqlite3_close(c);
  };
  const auto expect_bad = [](auto read, const std::string& what) {
    try {
      read();
      ADD_FAILURE() << "read past " << what;
    } catch (const StoreError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  const std::string cublas = fmt::format("cuBLAS timing {}", cublas_id),
                    lt_row = fmt::format("cuBLASLt timing {}", lt_id),
                    measurement = fmt::format("measurement {}", measurement_id);

  edit("UPDATE cublas_timings SET l2 = 'hot'; UPDATE measurements SET l2 = 'hot';");
  expect_bad([&] { store_->find_cublas(cublas_id); }, cublas + " has L2 mode 'hot'");
  expect_bad([&] { store_->find_measurement("r-batches"); }, measurement + " has L2 mode 'hot'");

  edit(
      "UPDATE cublas_timings SET l2 = 'warm', batches = 'pipes'; UPDATE measurements SET l2 = 'warm', batches = "
      "'pipes'; UPDATE cublaslt_timings SET batches = 'pipes';");
  expect_bad([&] { store_->find_cublas(cublas_id); }, cublas + " has batches 'pipes'");
  expect_bad([&] { store_->find_cublaslt(lt_id); }, lt_row + " has batches 'pipes'");
  expect_bad([&] { store_->find_measurement("r-batches"); }, measurement + " has batches 'pipes'");
}

}  // namespace
}  // namespace mpgemm
