// Replaying strategies against a small recorded database (tune/strategy/evaluate.hpp): the oracle is the latest
// recording, unrecorded configs count as failed, exhaustive needs exactly the optimum's position, and every
// strategy reaches the optimum within a budget of the whole space.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "common/error.hpp"
#include "store/store.hpp"
#include "support/old_database.hpp"
#include "support/store_fixture.hpp"
#include "tune/strategy/evaluate.hpp"

namespace mpgemm {
namespace {

const char* kSpace = R"({"family": "wmma", "shapes": [{"M": 256, "N": 256, "K": 256}, {"M": 512, "N": 512, "K": 512}],
  "parameters": {"A": {"values": [1, 2, 3, 4]}, "B": {"values": ["x", "y"]}}})";

class TuneStrategyEvaluate : public testing::StoreWithRun {
 protected:
  void record(const std::string& family, std::int64_t a, const std::string& b, Shape shape, double ms,
              Status status = Status::ok) {
    Params p{{"A", a}, {"B", b}};
    const auto config = store_->upsert_config(Candidate{family, p, fmt::format("{}_a{}_{}", family, a, b), {}}, "0011");
    MeasurementRecord r;
    r.run_id = run_;
    r.config_id = config;
    r.result_key = fmt::format("key{}", ++keys_);
    r.device_name = "NVIDIA H200";
    r.device_cc = "sm_90";
    r.arch = *Arch::parse("sm_90a");
    r.shape = shape;
    r.measurement.status = status;
    if (status == Status::ok)
      r.measurement.timing = TimingStats{ms, ms, ms, 1, 1, 1};
    else
      r.measurement.message = "failed";
    store_->record_measurement(r);
  }
  int keys_ = 0;
};

TEST_F(TuneStrategyEvaluate, ReplaysAgainstTheRecording) {
  Space space = parse_space(kSpace, "fixture.json");
  const Shape small{256, 256, 256}, large{512, 512, 512};
  // ms = 1 + |A - 3| + 0.5 (B = x): the optimum is A=3 B="y" (index 5 of 8), the next best 1.5 ms.
  for (std::int64_t a = 1; a <= 4; ++a) {
    for (std::string b : {"x", "y"}) {
      const double ms = 1 + std::abs(static_cast<double>(a - 3)) + (b == "x" ? 0.5 : 0);
      record("wmma", a, b, large, 8 * ms);
      if (a == 4 && b == "y") continue;  // unrecorded on the small shape
      const bool fault = a == 3 && b == "x";
      record("wmma", a, b, small, fault ? 0 : ms, fault ? Status::runtime_fault : Status::ok);
    }
  }
  record("wmma", 3, "y", small, 9.0);   // an older recording of the optimum...
  record("wmma", 3, "y", small, 1.0);   // ...the latest wins
  record("wgmma", 3, "y", small, 0.1);  // another family: not this space's
  store_.reset();

  auto recordings = load_recordings(dir_ / "results.db", "wmma");
  EXPECT_EQ(recordings.size(), 7u + 8u + 2u);
  EvaluationSettings settings;
  settings.seeds = 6;
  settings.strategies = {"exhaustive", "random", "annealing", "model"};
  auto results = evaluate_strategies(space, recordings, settings);
  ASSERT_EQ(results.size(), 8u);  // 4 strategies x 2 shapes
  for (const StrategyEvaluation& e : results) {
    SCOPED_TRACE(e.strategy + " " + e.shape.str());
    EXPECT_EQ(e.configs, 8u);
    EXPECT_EQ(e.budget, 8u);
    ASSERT_TRUE(e.optimum_ms);
    EXPECT_EQ(e.optimum, "A=3 B=\"y\"");
    EXPECT_DOUBLE_EQ(*e.optimum_ms, e.shape == small ? 1.0 : 8.0);
    EXPECT_EQ(e.failed, e.shape == small ? 1u : 0u);
    EXPECT_EQ(e.unrecorded, e.shape == small ? 1u : 0u);
    ASSERT_EQ(e.evaluations.size(), 3u);
    for (const auto& per_seed : e.evaluations) {
      ASSERT_EQ(per_seed.size(), 6u);
      for (const auto& n : per_seed) {
        ASSERT_TRUE(n);  // the whole space is within the budget
        if (e.strategy == "exhaustive") {
          EXPECT_EQ(*n, 6u);
        }
        EXPECT_LE(*n, 8u);
      }
    }
  }
  report::Table t = evaluation_table(results, settings.tolerances);
  EXPECT_EQ(t.rows.size(), 8u);
  EXPECT_EQ(t.columns.front(), "strategy");
  EXPECT_NO_THROW(report::render(t, report::Format::markdown));

  settings.budget = 3;
  settings.strategies = {"exhaustive"};
  settings.shapes = {small};
  results = evaluate_strategies(space, recordings, settings);
  ASSERT_EQ(results.size(), 1u);
  for (const auto& n : results[0].evaluations[0]) EXPECT_FALSE(n);  // the optimum is 6th: beyond a budget of 3
  t = evaluation_table(results, settings.tolerances);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(t.rows[0][8]));  // no median

  // A shape the database never measured is an error that names the shapes it has, not a row of dashes.
  settings.shapes = {Shape{777, 777, 777}};
  try {
    evaluate_strategies(space, recordings, settings);
    ADD_FAILURE() << "an unrecorded shape was replayed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no measurement of the wmma family at 777x777x777"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find(small.str()), std::string::npos) << e.what();
  }
  settings.shapes = {small};

  settings.options["annealing"]["nonsense"] = "1";
  settings.strategies = {"annealing"};
  EXPECT_THROW(evaluate_strategies(space, recordings, settings), UsageError);
}

TEST_F(TuneStrategyEvaluate, MissingDatabaseIsAnError) {
  EXPECT_THROW(load_recordings(dir_ / "nothing.db", "wmma"), Error);
}

// A config whose stored params are nested 100,000 deep (a hostile database) is refused in one line naming the
// database, the config and the depth, as a mpgemm::Error: it escaped as nlohmann's parse error, which the tool
// printed as an internal error (issue 57, item 12).
TEST_F(TuneStrategyEvaluate, DeeplyNestedParamsAreOneLineNamingTheFile) {
  record("wmma", 1, "x", Shape{256, 256, 256}, 1.0);
  store_.reset();
  const auto path = dir_ / "results.db";
  // Past the CHECK (SQLite's json_valid stops at depth 1000), as an edited file would be.
  testing::raw_exec(path, "PRAGMA ignore_check_constraints = ON; UPDATE configs SET params = '{\"A\": " +
                              std::string(100000, '[') + std::string(100000, ']') + "}'");
  try {
    load_recordings(path, "wmma");
    ADD_FAILURE() << "loaded";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path.string()), std::string::npos) << what;
    EXPECT_NE(what.find("wmma_a1_x"), std::string::npos) << what;
    EXPECT_NE(what.find("has malformed params: "), std::string::npos) << what;
    EXPECT_NE(what.find("nesting deeper than 64 levels"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST(TuneStrategyEvaluateFile, ReadsAnOlderSchemaLeavingTheFileAsItWas) {
  // A schema 5 database, migrated in memory; the file is not written.
  const std::string path = std::string(MPGEMM_SOURCE_DIR) + "/tests/data/db/h200_wgmma_schema5.db";
  const auto bytes = [&] {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  const std::string before = bytes();
  const auto recordings = load_recordings(path, "wgmma");
  EXPECT_GT(recordings.size(), 100u);
  EXPECT_EQ(bytes(), before);
  EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
}

}  // namespace
}  // namespace mpgemm

namespace mpgemm {
namespace {

// A named point outside the domains (A=9) that beats every config inside them: only exhaustive can propose it,
// so the optimum every strategy is measured against is the domains' best, and the point is reported apart.
class TuneStrategyEvaluatePoints : public testing::StoreWithRun {};

TEST_F(TuneStrategyEvaluatePoints, APointOutsideTheDomainsIsNotTheOptimum) {
  const char* space_text = R"({"family": "wmma", "shapes": [{"M": 256, "N": 256, "K": 256}],
    "parameters": {"A": {"values": [1, 2, 3, 4]}, "B": {"values": ["x", "y"]}},
    "points": {"outside": {"A": 9, "B": "x"}, "inside": {"A": 2, "B": "y"}}})";
  Space space = parse_space(space_text, "points.json");
  const Shape shape{256, 256, 256};
  std::vector<Recording> recordings;
  auto add = [&](std::int64_t a, const std::string& b, double ms, const std::string& device = "NVIDIA H200") {
    Recording r;
    r.shape = shape;
    r.device_name = device;
    r.observation.params = Params{{"A", a}, {"B", b}};
    r.observation.status = Status::ok;
    r.observation.ms = ms;
    recordings.push_back(r);
  };
  for (std::int64_t a = 1; a <= 4; ++a)
    for (std::string b : {"x", "y"}) add(a, b, 2.0 + static_cast<double>(a) + (b == "x" ? 0.5 : 0.0));
  add(9, "x", 1.0);  // the outside point: the fastest recorded
  EvaluationSettings settings;
  settings.seeds = 4;
  settings.strategies = {"exhaustive", "random"};
  auto results = evaluate_strategies(space, recordings, settings);
  ASSERT_EQ(results.size(), 2u);
  for (const StrategyEvaluation& e : results) {
    SCOPED_TRACE(e.strategy);
    EXPECT_EQ(e.configs, 8u);  // the domains' configs; the inside point is one of them
    EXPECT_EQ(e.points_outside, 1u);
    EXPECT_EQ(e.budget, 9u);  // everything there is to propose: the 8 and the outside point
    ASSERT_TRUE(e.optimum_ms);
    EXPECT_DOUBLE_EQ(*e.optimum_ms, 3.0);  // A=1 B="y", not the outside point's 1.0
    ASSERT_TRUE(e.faster_point_ms);
    EXPECT_DOUBLE_EQ(*e.faster_point_ms, 1.0);
    EXPECT_EQ(e.faster_point, "outside");
    for (const auto& seed : e.evaluations[0]) EXPECT_TRUE(seed) << "every seed reaches the domains' optimum";
  }

  const report::Table t = evaluation_table(results, settings.tolerances);
  ASSERT_EQ(t.columns.back(), "faster_outside");
  EXPECT_EQ(std::get<std::string>(t.rows[0].back()), "outside (1 ms)");

  // Options for a strategy that is not replayed are a mistake, not ignored.
  settings.options["model"]["initial"] = "3";
  EXPECT_THROW(evaluate_strategies(space, recordings, settings), UsageError);

  // Two devices: the caller must say which; then only its recordings count.
  add(1, "y", 0.5, "NVIDIA A100-SXM4-80GB");
  EXPECT_THROW(recordings_of_device(recordings, std::nullopt), UsageError);
  EXPECT_THROW(recordings_of_device(recordings, std::string("NVIDIA B200")), UsageError);
  const auto h200 = recordings_of_device(recordings, std::string("NVIDIA H200"));
  EXPECT_EQ(h200.size(), 9u);
  EXPECT_EQ(recordings_of_device(h200, std::nullopt).size(), 9u);
}

}  // namespace
}  // namespace mpgemm
