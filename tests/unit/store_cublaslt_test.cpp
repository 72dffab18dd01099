// cuBLASLt, the second reference, in the store: its timings (timed or not, with the reason), the
// measurements' ratio to it, the best views with both references, best_per_shape letting every arch compete,
// the references query, and the printers over them.
#include <algorithm>

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "report/table.hpp"
#include "store/store.hpp"
#include "support/store_fixture.hpp"

namespace mpgemm {
namespace {

using report::Cell;

CublasLtReference timed_lt(double median_ms) {
  CublasLtReference lt;
  lt.heuristics_returned = 8;
  lt.heuristics_valid = 7;
  lt.timing = TimingStats{median_ms, median_ms * 0.98, median_ms * 1.03, 3, 5, 20};
  lt.algo = CublasLtAlgo{66, 24, 35, 1, 0, 1, 2, 3, 4, 4194304, 1.5};
  lt.error = ErrorStats{0.0625, 1.5e-5, 0, 0, 0.5, 1e-3};
  lt.sm_clock_mhz = 1965;
  lt.message = "left out: heuristic 8 (algo 21 tile 20): CUBLAS_STATUS_NOT_SUPPORTED";
  return lt;
}

// Column `name` of row `row`, by name so a reordered query does not silently pass.
Cell cell(const report::Table& t, std::size_t row, std::string_view name) {
  const auto it = std::find(t.columns.begin(), t.columns.end(), name);
  EXPECT_NE(it, t.columns.end()) << name;
  if (it == t.columns.end() || row >= t.rows.size()) return {};
  return t.rows[row][static_cast<std::size_t>(it - t.columns.begin())];
}

class StoreCublasLt : public testing::StoreWithRun {
 protected:
  // An ok measurement on the H200 compiled for `arch`, compared with the given references.
  std::int64_t measure(std::int64_t config_id, const std::string& key, const Shape& shape, double median_ms,
                       const std::string& arch, std::optional<std::int64_t> cublas_id = std::nullopt,
                       double cublas_ms = 0, std::optional<std::int64_t> cublaslt_id = std::nullopt,
                       double cublaslt_ms = 0) {
    MeasurementRecord r;
    r.run_id = run_;
    r.config_id = config_id;
    r.result_key = key;
    r.device_name = "NVIDIA H200";
    r.device_cc = "sm_90";
    r.arch = *Arch::parse(arch);
    r.shape = shape;
    r.measurement.timing = TimingStats{median_ms, median_ms, median_ms, 3, 5, 20};
    r.measurement.error = ErrorStats{};
    r.cublas_id = cublas_id;
    if (cublas_id) r.ratio_to_cublas = cublas_ms / median_ms;
    r.cublaslt_id = cublaslt_id;
    if (cublaslt_id) r.ratio_to_cublaslt = cublaslt_ms / median_ms;
    return store_->record_measurement(r);
  }
  std::int64_t cublas(const Shape& shape, double ms) {
    return store_->record_cublas(
        run_, CublasRecord{"NVIDIA H200", "sm_90", shape, TimingStats{ms, ms, ms, 3, 5, 20}, 1980, std::nullopt});
  }
  std::int64_t cublaslt(const Shape& shape, double ms) {
    return store_->record_cublaslt(run_, CublasLtRecord{"NVIDIA H200", "sm_90", shape, timed_lt(ms), std::nullopt});
  }
};

TEST_F(StoreCublasLt, TimedRoundTrip) {
  const Shape shape{4096, 4096, 4096};
  const CublasLtRecord r{"NVIDIA H200", "sm_90", shape, timed_lt(0.2), std::nullopt};
  const auto id = store_->record_cublaslt(run_, r);
  const auto c = store_->find_cublaslt(id);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->id, id);
  EXPECT_EQ(c->run_id, run_);
  EXPECT_EQ(c->device_name, "NVIDIA H200");
  EXPECT_EQ(c->device_cc, "sm_90");
  EXPECT_EQ(c->shape, shape);
  const CublasLtReference& got = c->reference;
  EXPECT_EQ(got.heuristics_returned, 8);
  EXPECT_EQ(got.heuristics_valid, 7);
  ASSERT_TRUE(got.timing);
  EXPECT_EQ(got.timing->median_ms, 0.2);
  EXPECT_EQ(got.timing->min_ms, 0.2 * 0.98);
  EXPECT_EQ(got.timing->max_ms, 0.2 * 1.03);
  EXPECT_EQ(got.timing->warmup, 3);
  EXPECT_EQ(got.timing->runs, 5);
  EXPECT_EQ(got.timing->iters, 20);
  ASSERT_TRUE(got.algo);
  EXPECT_EQ(*got.algo, *r.reference.algo);
  ASSERT_TRUE(got.error);
  EXPECT_EQ(got.error->max_abs, 0.0625);
  EXPECT_EQ(got.error->max_rel, 1.5e-5);
  EXPECT_EQ(got.error->atol, 0.5);
  EXPECT_EQ(got.error->rtol, 1e-3);
  EXPECT_EQ(got.sm_clock_mhz, 1965);
  EXPECT_EQ(got.message, r.reference.message);
  ASSERT_TRUE(c->tflops);
  EXPECT_DOUBLE_EQ(*c->tflops, shape.flops() / 0.2e9);
  // The algorithm in words is stored for sqlite3 users.
  Store reader = Store::open(dir_ / "results.db", Store::Mode::read_only);
  EXPECT_EQ(reader.query_sql("SELECT algo FROM cublaslt_timings").rows.at(0).at(0),
            Cell(std::string("algo 66 tile 24 stages 35 splitk 1 reduction 0 swizzle 1 custom 2 inner 3 cluster 4")));

  const auto newer =
      store_->record_cublaslt(run_, CublasLtRecord{"NVIDIA H200", "sm_90", shape, timed_lt(0.19), std::nullopt});
  EXPECT_EQ(store_->find_latest_cublaslt("NVIDIA H200", shape)->id, newer);
  EXPECT_FALSE(store_->find_latest_cublaslt("NVIDIA H100", shape));
  EXPECT_FALSE(store_->find_latest_cublaslt("NVIDIA H200", Shape{1, 2, 3}));
  EXPECT_FALSE(store_->find_cublaslt(newer + 1));
}

TEST_F(StoreCublasLt, UntimedKeepsTheReason) {
  CublasLtReference lt;
  lt.heuristics_returned = 3;
  lt.message = "none of the 3 algorithms verified: heuristic 1 (algo 0 tile 0): 12 of 4096 elements differ";
  const auto id =
      store_->record_cublaslt(run_, CublasLtRecord{"NVIDIA H200", "sm_90", Shape{64, 64, 64}, lt, std::nullopt});
  const auto c = store_->find_cublaslt(id);
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->reference.timing);
  EXPECT_FALSE(c->reference.algo);
  EXPECT_FALSE(c->reference.error);
  EXPECT_FALSE(c->tflops);
  EXPECT_EQ(c->reference.heuristics_returned, 3);
  EXPECT_EQ(c->reference.heuristics_valid, 0);
  EXPECT_EQ(c->reference.message, lt.message);
}

TEST_F(StoreCublasLt, ATimingWithoutItsAlgorithmIsRefused) {
  CublasLtReference lt = timed_lt(0.5);
  lt.algo.reset();
  EXPECT_THROW(store_->record_cublaslt(run_, CublasLtRecord{"NVIDIA H200", "sm_90", Shape{}, lt, std::nullopt}),
               StoreError);
  EXPECT_EQ(count("references"), 0);
}

TEST_F(StoreCublasLt, MeasurementKeepsItsCublasLtLinkAndRatio) {
  const Shape shape{2048, 2048, 2048};
  const auto lt = cublaslt(shape, 0.03);
  measure(config("wmma_a"), "k1", shape, 0.06, "sm_90", cublas(shape, 0.027), 0.027, lt, 0.03);
  const auto m = store_->find_measurement("k1");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->cublaslt_id, lt);
  ASSERT_TRUE(m->ratio_to_cublaslt);
  EXPECT_DOUBLE_EQ(*m->ratio_to_cublaslt, 0.5);
  measure(config("wmma_b"), "k2", shape, 0.07, "sm_90");
  EXPECT_FALSE(store_->find_measurement("k2")->cublaslt_id);
  EXPECT_FALSE(store_->find_measurement("k2")->ratio_to_cublaslt);
}

TEST_F(StoreCublasLt, BestViewsShowBothReferences) {
  const Shape shape{4096, 4096, 4096};
  measure(config("wmma_a"), "a", shape, 0.5, "sm_90", cublas(shape, 0.25), 0.25, cublaslt(shape, 0.125), 0.125);
  for (const char* view : {"best", "best_per_shape"}) {
    const auto t = store_->query_named(view);
    ASSERT_EQ(t.rows.size(), 1u) << view;
    EXPECT_EQ(cell(t, 0, "config_name"), Cell(std::string("wmma_a"))) << view;
    EXPECT_EQ(cell(t, 0, "tflops"), Cell(shape.flops() / 0.5e9)) << view;
    EXPECT_EQ(cell(t, 0, "cublas_tflops"), Cell(shape.flops() / 0.25e9)) << view;
    EXPECT_EQ(cell(t, 0, "cublaslt_tflops"), Cell(shape.flops() / 0.125e9)) << view;
    EXPECT_EQ(cell(t, 0, "ratio_to_cublas"), Cell(0.5)) << view;
    EXPECT_EQ(cell(t, 0, "ratio_to_cublaslt"), Cell(0.25)) << view;
  }
  EXPECT_EQ(cell(store_->query_named("best_per_shape"), 0, "cublaslt_algo"),
            Cell(std::string("algo 66 tile 24 stages 35 splitk 1 reduction 0 swizzle 1 custom 2 inner 3 cluster 4")));
}

TEST_F(StoreCublasLt, BestPerShapeLetsSm90AndSm90aCompete) {
  const Shape big{8192, 8192, 8192};
  const Shape small{2048, 2048, 2048};
  // At 8192^3 the sm_90a config is faster; at 2048^3 the sm_90 one is.
  measure(config("wmma_sm90"), "w-big", big, 2.0, "sm_90");
  measure(config("wgmma_sm90a"), "g-big", big, 1.5, "sm_90a");
  measure(config("wmma_sm90"), "w-small", small, 0.05, "sm_90");
  measure(config("wgmma_sm90a"), "g-small", small, 0.06, "sm_90a");

  EXPECT_EQ(store_->query_named("fastest").rows.size(), 4u);  // one per arch and shape
  const auto t = store_->query_named("best_per_shape");
  ASSERT_EQ(t.rows.size(), 2u);  // one per shape, ordered by M
  EXPECT_EQ(cell(t, 0, "M"), Cell(std::int64_t{2048}));
  EXPECT_EQ(cell(t, 0, "config_name"), Cell(std::string("wmma_sm90")));
  EXPECT_EQ(cell(t, 0, "arch"), Cell(std::string("sm_90")));
  EXPECT_EQ(cell(t, 1, "M"), Cell(std::int64_t{8192}));
  EXPECT_EQ(cell(t, 1, "config_name"), Cell(std::string("wgmma_sm90a")));
  EXPECT_EQ(cell(t, 1, "arch"), Cell(std::string("sm_90a")));
  EXPECT_EQ(cell(t, 1, "median_ms"), Cell(1.5));
  // No references recorded: their columns are null, not zero.
  EXPECT_EQ(cell(t, 1, "cublaslt_tflops"), Cell(std::monostate{}));
  EXPECT_EQ(cell(t, 1, "ratio_to_cublaslt"), Cell(std::monostate{}));
}

TEST_F(StoreCublasLt, ReferencesListBothWithTheReasonWhenUntimed) {
  const Shape shape{1024, 1024, 1024};
  cublas(shape, 0.01);
  cublaslt(shape, 0.009);
  CublasLtReference failed;
  failed.message = "cublasLtMatmulAlgoGetHeuristic returned no algorithm";
  store_->record_cublaslt(run_, CublasLtRecord{"NVIDIA H200", "sm_90", Shape{2048, 8, 8}, failed, std::nullopt});
  const auto t = store_->query_named("references");
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(cell(t, 0, "reference"), Cell(std::string("cuBLAS")));
  EXPECT_EQ(cell(t, 0, "median_ms"), Cell(0.01));
  EXPECT_EQ(cell(t, 0, "detail"), Cell(std::string("cublasGemmEx COMPUTE_32F")));
  EXPECT_EQ(cell(t, 1, "reference"), Cell(std::string("cuBLASLt")));
  EXPECT_EQ(cell(t, 1, "median_ms"), Cell(0.009));
  EXPECT_EQ(cell(t, 1, "valid_heuristics"), Cell(std::int64_t{7}));
  EXPECT_EQ(cell(t, 1, "returned_heuristics"), Cell(std::int64_t{8}));
  EXPECT_EQ(cell(t, 2, "M"), Cell(std::int64_t{2048}));
  EXPECT_EQ(cell(t, 2, "median_ms"), Cell(std::monostate{}));
  EXPECT_EQ(cell(t, 2, "detail"), Cell(failed.message));
}

TEST_F(StoreCublasLt, PrintersShowTheCublasLtColumns) {
  const Shape shape{4096, 4096, 4096};
  measure(config("wmma_a"), "a", shape, 0.5, "sm_90", cublas(shape, 0.25), 0.25, cublaslt(shape, 0.125), 0.125);
  const auto t = store_->query_named("best_per_shape");
  const std::string markdown = report::render(t, report::Format::markdown);
  EXPECT_NE(markdown.find("| cublas_tflops | cublaslt_tflops | ratio_to_cublas | ratio_to_cublaslt |"),
            std::string::npos)
      << markdown;
  const std::string csv = report::render(t, report::Format::csv);
  EXPECT_NE(csv.find(",0.5,0.25,"), std::string::npos) << csv;  // the ratios, at full precision
  const std::string json = report::render(t, report::Format::json);
  EXPECT_NE(json.find("\"ratio_to_cublaslt\": 0.25"), std::string::npos) << json;
  const std::string table = report::render(t, report::Format::table);
  EXPECT_NE(table.find("cublaslt_tflops"), std::string::npos) << table;
}

}  // namespace
}  // namespace mpgemm
