// Measurements: round trip, idempotent inserts keyed by result_key, lookups for replay, and the best view.
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "store/store.hpp"
#include "support/store_fixture.hpp"

namespace mpgemm {
namespace {

class StoreMeasurements : public testing::StoreWithRun {
 protected:
  // An ok measurement of `config_id` on `shape` taking `median_ms`.
  MeasurementRecord measurement(std::int64_t config_id, const std::string& key, Shape shape, double median_ms,
                                Status status = Status::ok, std::string device = "NVIDIA H200") {
    MeasurementRecord r;
    r.run_id = run_;
    r.config_id = config_id;
    r.result_key = key;
    r.device_name = std::move(device);
    r.device_cc = "sm_90";
    r.arch = *Arch::parse("sm_90a");
    r.shape = shape;
    r.measurement.status = status;
    r.measurement.timing = TimingStats{median_ms, median_ms * 0.9, median_ms * 1.2, 10, 20, 50};
    r.measurement.error = ErrorStats{0.25, 1.5e-4, 0, 0, 0.5, 1e-3};
    r.measurement.sm_clock_mhz = 1980;
    return r;
  }
};

TEST_F(StoreMeasurements, MeasurementRoundTripIsIdempotent) {
  const auto cfg = config("wmma_bm128");
  CompileResult compiled;
  compiled.status = Status::ok;
  compiled.arch = *Arch::parse("sm_90a");
  compiled.compile_key = "k";
  const auto compilation = store_->record_compilation(cfg, run_, compiled);
  const Shape shape{4096, 2048, 1024};
  const auto cublas = store_->record_cublas(
      run_, CublasRecord{"NVIDIA H200", "sm_90", shape, TimingStats{0.1, 0.1, 0.1, 1, 1, 1}, 0, std::nullopt});
  auto record = measurement(cfg, "result-1", shape, 0.125);
  record.compilation_id = compilation;
  record.cublas_id = cublas;
  record.ratio_to_cublas = 0.8;
  EXPECT_FALSE(store_->has_measurement("result-1"));
  const auto id = store_->record_measurement(record);
  EXPECT_TRUE(store_->has_measurement("result-1"));
  auto again = record;
  again.measurement.timing->median_ms = 99;  // a second insert of the key changes nothing
  EXPECT_EQ(store_->record_measurement(again), id);
  EXPECT_EQ(count("measurements"), 1);

  const auto m = store_->find_measurement("result-1");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->id, id);
  EXPECT_EQ(m->run_id, run_);
  EXPECT_EQ(m->config_id, cfg);
  EXPECT_EQ(m->compilation_id, compilation);
  EXPECT_EQ(m->result_key, "result-1");
  EXPECT_EQ(m->device_name, "NVIDIA H200");
  EXPECT_EQ(m->device_cc, "sm_90");
  EXPECT_EQ(m->arch, record.arch);
  EXPECT_EQ(m->shape, shape);
  EXPECT_EQ(m->measurement.status, Status::ok);
  ASSERT_TRUE(m->measurement.timing);
  EXPECT_EQ(m->measurement.timing->median_ms, 0.125);
  EXPECT_EQ(m->measurement.timing->min_ms, record.measurement.timing->min_ms);
  EXPECT_EQ(m->measurement.timing->max_ms, record.measurement.timing->max_ms);
  EXPECT_EQ(m->measurement.timing->warmup, 10);
  EXPECT_EQ(m->measurement.timing->runs, 20);
  EXPECT_EQ(m->measurement.timing->iters, 50);
  ASSERT_TRUE(m->measurement.error);
  EXPECT_EQ(m->measurement.error->max_abs, 0.25);
  EXPECT_EQ(m->measurement.error->max_rel, 1.5e-4);
  EXPECT_EQ(m->measurement.error->bad_count, 0);
  EXPECT_EQ(m->measurement.error->nan_count, 0);
  EXPECT_EQ(m->measurement.error->atol, 0.5);
  EXPECT_EQ(m->measurement.error->rtol, 1e-3);
  EXPECT_EQ(m->measurement.sm_clock_mhz, 1980);
  EXPECT_EQ(m->measurement.message, "");
  EXPECT_EQ(m->cublas_id, cublas);
  EXPECT_EQ(m->ratio_to_cublas, 0.8);
  ASSERT_TRUE(m->tflops);
  EXPECT_DOUBLE_EQ(*m->tflops, shape.flops() / 0.125e9);

  // A failure: no compilation, no timing, no comparison.
  MeasurementRecord rejected;
  rejected.run_id = run_;
  rejected.config_id = cfg;
  rejected.result_key = "result-2";
  rejected.device_name = "NVIDIA H200";
  rejected.device_cc = "sm_90";
  rejected.arch = compiled.arch;
  rejected.shape = Shape{100, 100, 100};
  rejected.measurement.status = Status::constraint_rejected;
  rejected.measurement.message = "M is not a multiple of BM";
  store_->record_measurement(rejected);
  const auto f = store_->find_measurement("result-2");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->measurement.status, Status::constraint_rejected);
  EXPECT_FALSE(f->measurement.timing);
  EXPECT_FALSE(f->measurement.error);
  EXPECT_FALSE(f->compilation_id);
  EXPECT_FALSE(f->cublas_id);
  EXPECT_FALSE(f->ratio_to_cublas);
  EXPECT_FALSE(f->tflops);
  EXPECT_EQ(f->measurement.sm_clock_mhz, 0);
  EXPECT_EQ(f->measurement.message, "M is not a multiple of BM");
  EXPECT_FALSE(store_->find_measurement("result-3"));
}

TEST_F(StoreMeasurements, OkMeasurementNeedsATime) {
  auto record = measurement(config("wmma_bm128"), "untimed", Shape{}, 1.0);
  record.measurement.timing.reset();
  EXPECT_THROW(store_->record_measurement(record), StoreError);
  EXPECT_FALSE(store_->has_measurement("untimed"));
}

TEST_F(StoreMeasurements, FindMeasurementByConfigTakesTheLatest) {
  const auto a = config("wmma_a");
  const auto b = config("wmma_b");
  const Shape shape{1024, 1024, 1024};
  store_->record_measurement(measurement(a, "a1", shape, 1.0));
  store_->record_measurement(measurement(a, "a2", shape, 2.0));
  store_->record_measurement(measurement(b, "b1", shape, 3.0));
  store_->record_measurement(measurement(a, "a3", Shape{512, 512, 512}, 4.0));
  EXPECT_EQ(store_->find_measurement_by_config("wmma_a", "sm_90a", shape)->result_key, "a2");
  EXPECT_EQ(store_->find_measurement_by_config("wmma_b", "sm_90a", shape)->result_key, "b1");
  EXPECT_FALSE(store_->find_measurement_by_config("wmma_a", "sm_86", shape));
  EXPECT_FALSE(store_->find_measurement_by_config("wmma_c", "sm_90a", shape));
}

TEST_F(StoreMeasurements, BestPicksTheFastestOkRowPerShape) {
  const auto slow = config("wmma_slow");
  const auto fast = config("wmma_fast", "wmma_named");
  const auto broken = config("wmma_broken");
  const Shape big{4096, 4096, 4096};
  const Shape small{256, 256, 256};
  store_->record_measurement(measurement(slow, "s-big", big, 2.0));
  store_->record_measurement(measurement(fast, "f-big", big, 1.5));
  store_->record_measurement(measurement(broken, "b-big", big, 0.1, Status::incorrect));  // faster but wrong
  auto failed = measurement(broken, "b-small", small, 0.01, Status::runtime_fault);
  failed.measurement.timing.reset();
  store_->record_measurement(failed);
  store_->record_measurement(measurement(slow, "s-small", small, 0.5));  // tie: the lower id wins
  store_->record_measurement(measurement(fast, "f-small", small, 0.5));
  store_->record_measurement(measurement(fast, "f-big-h100", big, 3.0, Status::ok, "NVIDIA H100"));

  const auto best = store_->query_named("fastest");
  ASSERT_EQ(best.rows.size(), 3u);
  auto column = [&](std::string_view name) {
    return static_cast<std::size_t>(std::find(best.columns.begin(), best.columns.end(), name) - best.columns.begin());
  };
  auto cell = [&](std::size_t row, std::string_view name) { return best.rows[row].at(column(name)); };
  using report::Cell;
  // Ordered by device, arch, M, N, K.
  EXPECT_EQ(cell(0, "device_name"), Cell(std::string("NVIDIA H100")));
  EXPECT_EQ(cell(0, "config_name"), Cell(std::string("wmma_fast")));
  EXPECT_EQ(cell(1, "M"), Cell(std::int64_t{256}));
  EXPECT_EQ(cell(1, "config_name"), Cell(std::string("wmma_slow")));
  EXPECT_EQ(cell(1, "median_ms"), Cell(0.5));
  EXPECT_EQ(cell(2, "M"), Cell(std::int64_t{4096}));
  EXPECT_EQ(cell(2, "config_name"), Cell(std::string("wmma_fast")));
  EXPECT_EQ(cell(2, "alias"), Cell(std::string("wmma_named")));
  EXPECT_EQ(cell(2, "median_ms"), Cell(1.5));
  EXPECT_EQ(cell(2, "tflops"), Cell(big.flops() / 1.5e9));
}

// A screened-out config keeps the time its screening launches showed, with no ratios; it never wins, is not
// listed as a failure, and is counted in the runs summary. Timings keep their L2 mode and noise.
TEST_F(StoreMeasurements, ScreenedOutIsStoredButNeverWins) {
  const auto fast = config("wmma_fast");
  const auto slow = config("wmma_slow");
  const Shape shape{1024, 1024, 1024};
  auto winner = measurement(fast, "fast", shape, 1.0);
  winner.measurement.timing->noise = 0.003;
  winner.measurement.timing->noise_target = 0.005;
  winner.measurement.timing->l2 = L2Mode::cold;
  winner.measurement.timing->batches = BatchEnqueue::graph;
  store_->record_measurement(winner);
  // Faster-looking than the winner on purpose: best must not look at it at all.
  auto screened = measurement(slow, "slow", shape, 0.5, Status::screened_out);
  screened.measurement.timing = TimingStats{0.5, 0.45, 0.6, 0, 3, 1};
  screened.measurement.message = "screened out";
  store_->record_measurement(screened);

  const auto m = store_->find_measurement("slow");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->measurement.status, Status::screened_out);
  ASSERT_TRUE(m->measurement.timing);
  EXPECT_EQ(m->measurement.timing->median_ms, 0.5);
  EXPECT_EQ(m->measurement.timing->runs, 3);
  EXPECT_EQ(m->measurement.timing->iters, 1);
  EXPECT_FALSE(m->ratio_to_cublas);
  const auto w = store_->find_measurement("fast");
  EXPECT_EQ(w->measurement.timing->l2, L2Mode::cold);
  EXPECT_EQ(w->measurement.timing->batches, BatchEnqueue::graph);
  EXPECT_EQ(m->measurement.timing->batches, BatchEnqueue::stream);
  EXPECT_EQ(w->measurement.timing->noise, 0.003);
  EXPECT_EQ(w->measurement.timing->noise_target, 0.005);

  const auto best = store_->query_named("best");
  ASSERT_EQ(best.rows.size(), 1u);
  const auto name_at = static_cast<std::size_t>(std::find(best.columns.begin(), best.columns.end(), "config_name") -
                                                best.columns.begin());
  EXPECT_EQ(best.rows[0].at(name_at), report::Cell(std::string("wmma_fast")));
  EXPECT_EQ(count("failures"), 0);
  const auto runs = store_->query_named("runs");
  const auto screened_at = static_cast<std::size_t>(
      std::find(runs.columns.begin(), runs.columns.end(), "screened_out") - runs.columns.begin());
  ASSERT_LT(screened_at, runs.columns.size());
  EXPECT_EQ(runs.rows.at(0).at(screened_at), report::Cell(std::int64_t{1}));

  // The schema refuses a screened-out row with a ratio, or without its time.
  auto with_ratio = measurement(slow, "slow-ratio", Shape{512, 512, 512}, 0.5, Status::screened_out);
  with_ratio.ratio_to_cublas = 0.5;
  EXPECT_THROW(store_->record_measurement(with_ratio), StoreError);
  auto untimed = measurement(slow, "slow-untimed", Shape{512, 512, 512}, 0.5, Status::screened_out);
  untimed.measurement.timing.reset();
  EXPECT_THROW(store_->record_measurement(untimed), StoreError);
}

}  // namespace
}  // namespace mpgemm
