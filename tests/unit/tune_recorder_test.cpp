// The recorder's references of a shape: cuBLAS's recorded at every preparation, cuBLASLt's search once per run
// when the worker kept the shape (a lane coming back to it, the re-rank preparing it again).
#include <gtest/gtest.h>

#include "support/store_fixture.hpp"
#include "tune/recorder.hpp"

namespace mpgemm {
namespace {

class RecorderReferences : public testing::StoreWithRun {
 protected:
  ShapeReference reference(double cublas_ms, double cublaslt_ms, bool kept) const {
    ShapeReference r;
    r.timing = TimingStats{cublas_ms, cublas_ms, cublas_ms, 3, 5, 20};
    CublasLtReference lt;
    lt.heuristics_returned = 8;
    lt.heuristics_valid = 8;
    lt.timing = TimingStats{cublaslt_ms, cublaslt_ms, cublaslt_ms, 3, 5, 20};
    lt.algo = CublasLtAlgo{66, 24, 35, 1, 0, 1, 0, 0, 2, 1048576, 1.37};
    lt.error = ErrorStats{0.0021, 3.1e-6, 0, 0, 0.5, 1e-3};
    r.cublaslt = lt;
    r.kept = kept;
    return r;
  }
  std::int64_t count(const std::string& table) const {
    const Store reader = Store::open(dir_ / "results.db", Store::Mode::read_only);
    return std::get<std::int64_t>(reader.query_sql("SELECT count(*) FROM " + table).rows.at(0).at(0));
  }

  DeviceDescription device_ = [] {
    DeviceDescription d;
    d.name = "NVIDIA H200";
    d.arch = *Arch::parse("sm_90");
    return d;
  }();
  Shape shape_{1024, 512, 256};
};

TEST_F(RecorderReferences, AKeptShapesSearchIsRecordedOnce) {
  Recorder recorder(*store_, run_);
  const RecordedReferences first = recorder.references(device_, shape_, reference(0.50, 0.45, false));
  ASSERT_TRUE(first.cublaslt_id);
  const RecordedReferences again = recorder.references(device_, shape_, reference(0.52, 0.45, true), &first);
  EXPECT_EQ(again.cublaslt_id, first.cublaslt_id);
  EXPECT_EQ(again.cublaslt_ms, 0.45);
  EXPECT_NE(again.cublas_id, first.cublas_id);  // cuBLAS was timed again
  EXPECT_EQ(again.cublas_ms, 0.52);
  EXPECT_EQ(count("cublaslt_timings"), 1);
  EXPECT_EQ(count("cublas_timings"), 2);
  // A shape prepared anew (not kept), or kept with nothing recorded before, records its search.
  recorder.references(device_, shape_, reference(0.50, 0.44, false), &first);
  recorder.references(device_, shape_, reference(0.50, 0.43, true), nullptr);
  EXPECT_EQ(count("cublaslt_timings"), 3);
}

}  // namespace
}  // namespace mpgemm
