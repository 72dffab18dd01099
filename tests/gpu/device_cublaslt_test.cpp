// cuBLASLt, the second reference, in this process on a real GPU: its best of the heuristic's top algorithms
// agrees with cuBLAS on the project's row-major layout, is timed with the candidates' protocol and names its
// algorithm; a tolerance nothing can meet leaves it without a timing and says why, instead of failing.
// Without a device every test is skipped with the reason.
#include <memory>

#include <gtest/gtest.h>

#include "device/cublaslt.hpp"
#include "device/problem.hpp"
#include "device/query.hpp"
#include "device/session.hpp"

namespace mpgemm {
namespace {

class DeviceCublasLtTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!device_available(&skip_reason_)) return;
    try {
      session_ = std::make_unique<DeviceSession>(0);
      lt_ = std::make_unique<CublasLtSession>(*session_);
    } catch (const std::exception& e) {
      setup_error_ = e.what();
    }
  }
  static void TearDownTestSuite() {
    lt_.reset();
    session_.reset();
  }
  void SetUp() override {
    if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
    ASSERT_TRUE(setup_error_.empty()) << setup_error_;
  }

  static inline std::string skip_reason_;
  static inline std::string setup_error_;
  static inline std::unique_ptr<DeviceSession> session_;
  static inline std::unique_ptr<CublasLtSession> lt_;
};

void expect_verified_and_timed(const CublasLtReference& lt, const Shape& shape) {
  EXPECT_GE(lt.heuristics_returned, 1) << shape.str() << ": " << lt.message;
  EXPECT_LE(lt.heuristics_returned, kCublasLtHeuristics);
  EXPECT_GE(lt.heuristics_valid, 1) << shape.str() << ": " << lt.message;
  EXPECT_LE(lt.heuristics_valid, lt.heuristics_returned);
  ASSERT_TRUE(lt.timing) << shape.str() << ": " << lt.message;
  EXPECT_GT(lt.timing->median_ms, 0);
  EXPECT_LE(lt.timing->min_ms, lt.timing->median_ms);
  EXPECT_LE(lt.timing->median_ms, lt.timing->max_ms);
  EXPECT_EQ(lt.timing->warmup, 3);
  EXPECT_EQ(lt.timing->runs, 5);
  EXPECT_EQ(lt.timing->iters, 20);
  ASSERT_TRUE(lt.algo);
  EXPECT_GE(lt.algo->algo_id, 0);
  EXPECT_GE(lt.algo->splitk, 1);
  EXPECT_LE(lt.algo->workspace_bytes, static_cast<std::int64_t>(kCublasLtWorkspaceBytes));
  ASSERT_TRUE(lt.error);
  EXPECT_EQ(lt.error->bad_count, 0);
  EXPECT_EQ(lt.error->nan_count, 0);
  EXPECT_LE(lt.error->max_abs, 0.5);
}

TEST_F(DeviceCublasLtTest, BestOfHeuristicsVerifiesAgainstCublasAndIsTimed) {
  const Shape shape{512, 256, 384};
  ProblemContext problem(*session_, shape, 7);
  const CublasLtReference lt = lt_->best_of_heuristics(problem, 3, 5, 20, 0.5, 1e-3);
  expect_verified_and_timed(lt, shape);
  // A second shape on the same session (one handle, one workspace), M != N so a transposed layout would fail.
  const Shape tall{1024, 128, 256};
  ProblemContext other(*session_, tall, 8);
  expect_verified_and_timed(lt_->best_of_heuristics(other, 3, 5, 20, 0.5, 1e-3), tall);
}

TEST_F(DeviceCublasLtTest, AnImpossibleToleranceLeavesItUntimedWithTheReason) {
  // atol 0 and rtol 0 demand bit-identical sums; a split-K or differently ordered algorithm differs in the
  // last bits. Whatever cuBLASLt picks, the outcome is consistent: a timing only for algorithms that matched
  // exactly.
  const Shape shape{256, 256, 4096};
  ProblemContext problem(*session_, shape, 9);
  const CublasLtReference lt = lt_->best_of_heuristics(problem, 1, 2, 2, 0.0, 0.0);
  EXPECT_GE(lt.heuristics_returned, 1) << lt.message;
  if (lt.timing) {
    ASSERT_TRUE(lt.error);
    EXPECT_EQ(lt.error->max_abs, 0.0);
  } else {
    EXPECT_EQ(lt.heuristics_valid, 0);
    EXPECT_NE(lt.message.find("none of the"), std::string::npos) << lt.message;
  }
  // Every algorithm left out is named with its reason.
  if (lt.heuristics_valid < lt.heuristics_returned) {
    EXPECT_NE(lt.message.find("heuristic "), std::string::npos) << lt.message;
  }
}

}  // namespace
}  // namespace mpgemm
