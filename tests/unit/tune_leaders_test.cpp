// --leaders-from: which configs count as having led in a database (Store::leaders: the first-pass band per device
// and shape, the re-ranks' places, one family), and mpgemm-tune taking only those of its space.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "codegen/family.hpp"
#include "space/space.hpp"
#include "support/old_database.hpp"
#include "support/run_command.hpp"
#include "support/store_fixture.hpp"
#include "tune/candidates.hpp"

namespace mpgemm {
namespace {

using testing::raw_exec;

// A measurement row of config `config` at `shape` on `device`: 'ok' with `ms`, or a fault (ms NULL), or `status`.
std::string measurement(std::int64_t run, std::int64_t config, const std::string& device, const Shape& shape,
                        std::optional<double> ms, std::string status = "") {
  static int key = 0;
  if (status.empty()) status = ms ? "ok" : "runtime_fault";
  return fmt::format(
      "INSERT INTO measurements (run_id, config_id, result_key, device_name, device_cc, arch, M, N, K, status, "
      "median_ms) VALUES ({}, {}, 'key{}', '{}', 'sm_90', 'sm_90a', {}, {}, {}, '{}', {});",
      run, config, ++key, device, shape.m, shape.n, shape.k, status, ms ? fmt::format("{}", *ms) : "NULL");
}

// A re-rank of `shape` whose entries are (config, place) in order; place 0 stands for "not placed" (NULL).
std::string rerank(std::int64_t id, std::int64_t run, const Shape& shape,
                   const std::vector<std::pair<std::int64_t, int>>& entries) {
  std::string sql = fmt::format(
      "INSERT INTO reranks (id, run_id, device_name, device_cc, M, N, K, top_k, warmup, rounds, iters, tie_band, "
      "rule) VALUES ({}, {}, 'NVIDIA H200', 'sm_90', {}, {}, {}, 5, 3, 20, 20, 0.01, 'test');",
      id, run, shape.m, shape.n, shape.k);
  for (const auto& [config, place] : entries)
    sql += fmt::format(
        "INSERT INTO rerank_configs (rerank_id, config_id, arch, prior_median_ms, status, samples, tied, place) "
        "VALUES ({}, {}, 'sm_90a', 1.0, '{}', 20, 0, {});",
        id, config, place ? "ok" : "runtime_fault", place ? std::to_string(place) : "NULL");
  return sql;
}

class StoreLeaders : public testing::StoreWithRun {};

TEST_F(StoreLeaders, TheBandIsPerDeviceAndShapeAndThePlacesAddTheirConfigs) {
  const Shape a{1024, 1024, 1024}, b{4096, 4096, 4096};
  const auto fast = config("wmma_fast"), near = config("wmma_near"), edge = config("wmma_edge"),
             slow = config("wmma_slow"), failed = config("wmma_failed"), placed = config("wmma_placed"),
             unplaced = config("wmma_unplaced"), other_gpu = config("wmma_other_gpu"),
             screened = config("wmma_screened");
  const auto other_family =
      store_->upsert_config(Candidate{"wgmma", {{"BM", std::int64_t{64}}}, "wgmma_x", std::nullopt}, "ff");
  const std::string h200 = "NVIDIA H200";
  raw_exec(dir_ / "results.db",
           measurement(run_, fast, h200, a, 1.00) + measurement(run_, near, h200, a, 1.02) +
               measurement(run_, edge, h200, a, 1.029) + measurement(run_, slow, h200, a, 1.031) +
               measurement(run_, failed, h200, a, std::nullopt) + measurement(run_, other_family, h200, a, 0.5) +
               // A screen's time is a median too, of a few launches: it neither leads nor sets the fastest.
               measurement(run_, screened, h200, a, 0.7, "screened_out") +
               // At b, slow leads: a config's standing counts at every shape where it was measured.
               measurement(run_, slow, h200, b, 8.0) + measurement(run_, fast, h200, b, 9.0) +
               // The H100's shape has its own fastest: other_gpu leads there, 2x the H200's fastest at a.
               measurement(run_, other_gpu, "NVIDIA H100", a, 2.0) + measurement(run_, near, "NVIDIA H100", a, 10.0) +
               measurement(run_, placed, h200, b, 20.0) + measurement(run_, unplaced, h200, b, 20.0) +
               rerank(1, run_, b, {{placed, 2}, {unplaced, 0}, {other_family, 1}}));

  Store reader = Store::open(dir_ / "results.db", Store::Mode::read_only);
  const auto leaders = reader.leaders("wmma", LeaderRule{0.03, 8});
  EXPECT_EQ(leaders.names, (std::vector<std::string>{"wmma_edge", "wmma_fast", "wmma_near", "wmma_other_gpu",
                                                     "wmma_placed", "wmma_slow"}));
  EXPECT_EQ(leaders.shapes, 3u);  // a and b on the H200, a on the H100

  EXPECT_EQ(reader.leaders("wmma", LeaderRule{0.0, 0}).names,
            (std::vector<std::string>{"wmma_fast", "wmma_other_gpu", "wmma_slow"}));
  EXPECT_EQ(reader.leaders("wmma", LeaderRule{0.0, 1}).names,
            (std::vector<std::string>{"wmma_fast", "wmma_other_gpu", "wmma_slow"}));  // placed is 2nd
  EXPECT_EQ(reader.leaders("wmma", LeaderRule{0.0, 2}).names,
            (std::vector<std::string>{"wmma_fast", "wmma_other_gpu", "wmma_placed", "wmma_slow"}));
  EXPECT_EQ(reader.leaders("wgmma", LeaderRule{}).names, (std::vector<std::string>{"wgmma_x"}));
  EXPECT_TRUE(reader.leaders("nope", LeaderRule{}).names.empty());
  EXPECT_EQ(reader.leaders("nope", LeaderRule{}).shapes, 0u);
}

// mpgemm-tune --leaders-from takes the space's configs that led in the database: --dry-run counts them, --only
// narrows them further, and what cannot select anything is a usage error.
TEST(TuneLeaders, TheTunerTakesOnlyTheLeadersOfItsSpace) {
  const auto dir = testing::fresh_dir("tune_leaders");
  const std::string space_path = testing::source("configs/sm86.json");
  const Space space = load_space(space_path);
  const auto candidates = build_candidates(space, family(space.family));
  ASSERT_GE(candidates.size(), 4u);
  const auto db = dir / "old.db";
  {
    Store store = Store::open(db, Store::Mode::read_write);
    const auto run = store.begin_run(RunInfo{});
    std::string rows;
    for (std::size_t i = 0; i < 4; ++i) {
      const auto id = store.upsert_config(candidates[i], "00112233aabbccdd");
      rows += measurement(run, id, "NVIDIA H200", Shape{512, 512, 512}, 1.0 + 0.01 * static_cast<double>(i));
    }
    const auto stranger =
        store.upsert_config(Candidate{"wmma", {{"BM", std::int64_t{1}}}, "wmma_not_here", std::nullopt}, "aa");
    rows += measurement(run, stranger, "NVIDIA H200", Shape{512, 512, 512}, 0.99);
    raw_exec(db, rows);
  }
  const auto tune = [&](const std::string& extra) {
    return testing::run_command(fmt::format("{} {} --db {} --leaders-from {} {} --dry-run", testing::bin("mpgemm-tune"),
                                            space_path, (dir / "new.db").string(), db.string(), extra));
  };
  // Within 3% of 0.99 (up to 1.0197): the stranger (not in this space), candidates 0 and 1 (1.00, 1.01).
  auto r = tune("");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("would take 2 configs per shape (--leaders-from: 2 of the space's"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("; 3 led at 1 shape(s) of "), std::string::npos) << r.output;
  r = tune("--leaders-within 0.08");
  EXPECT_NE(r.output.find("would take 4 configs per shape"), std::string::npos) << r.output;
  r = tune("--leaders-within 0.08 --only =" + candidates[3].name);
  EXPECT_NE(r.output.find("would take 1 configs per shape"), std::string::npos) << r.output;

  r = tune("--leaders-within 0");  // only the stranger leads
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("none of the 1 configs that led there (at 1 shape(s)) is a config of this space"),
            std::string::npos)
      << r.output;
  // --only's own mistakes are told as such, before the leaders are looked at.
  r = tune("--only =no_such_config");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--only matches no config of the space"), std::string::npos) << r.output;
  r = tune("--only wmma,=no_such_config");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--only =no_such_config: no config or point of the space has that name"), std::string::npos)
      << r.output;
  r = tune("--strategy random --budget 5");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("use the exhaustive strategy"), std::string::npos) << r.output;
  r = tune("--leaders-within 1.5");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--leaders-within must be between 0 and 1"), std::string::npos) << r.output;
  r = testing::run_command(fmt::format("{} {} --leaders-places 3 --dry-run", testing::bin("mpgemm-tune"), space_path));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("need --leaders-from"), std::string::npos) << r.output;
  r = testing::run_command(fmt::format("{} {} --leaders-from {} --dry-run", testing::bin("mpgemm-tune"), space_path,
                                       (dir / "none.db").string()));
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("none.db"), std::string::npos) << r.output;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mpgemm
