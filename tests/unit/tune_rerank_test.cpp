// The top-K re-rank against the replay backend: a database built here by hand (configs, compilations,
// measurements and cuBLAS as a GPU run records them), re-ranked without a GPU. The expected winners come from
// the numbers written in each test and the rule in tune/rerank.hpp, not from the code under test.
#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "codegen/wmma_family.hpp"
#include "common/error.hpp"
#include "store/store.hpp"
#include "support/interleaved_position.hpp"
#include "support/store_fixture.hpp"
#include "tune/replay_backend.hpp"
#include "tune/rerank.hpp"

namespace mpgemm {
namespace {

const Shape kShape{1024, 1024, 1024};

// A buildable wmma config: BM x BN block tile, WN-wide warp tiles (threads = (BM/32) x (BN/WN) x 32).
Candidate wmma(int bm, int bn, int wn, int stages = 2) {
  WmmaConfig c;
  c.bm = bm;
  c.bn = bn;
  c.wn = wn;
  c.stages = stages;
  return Candidate{"wmma", c.to_params(), c.name(), std::nullopt};
}

class Rerank : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::per_test_dir();
    store_.emplace(Store::open(dir_ / "results.db", Store::Mode::read_write));
    RunInfo info;
    info.mode = "gpu";
    DeviceDescription d;
    d.name = "NVIDIA H200";
    d.arch = *Arch::parse("sm_90");
    d.sm_count = 132;
    info.set_device(d);
    run_ = store_->begin_run(info);
    store_->record_cublas(
        run_, CublasRecord{"NVIDIA H200", "sm_90", kShape, TimingStats{0.9, 0.9, 0.9, 3, 5, 20}, 0, std::nullopt});
    store_->end_run(run_, "finished");
    rerank_run_ = store_->begin_run(RunInfo{});
  }
  void TearDown() override {
    store_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // Records `c` measured ok at `median_ms`, compiled with `registers` per thread.
  std::string measured(const Candidate& c, double median_ms, int registers, int shared_bytes = 0,
                       double sm_clock_mhz = 0) {
    const auto id = store_->upsert_config(c, "source");
    CompileResult compiled;
    compiled.status = Status::ok;
    compiled.arch = *Arch::parse("sm_90");
    compiled.registers = registers;
    compiled.shared_bytes = shared_bytes;
    compiled.compile_key = "key_" + c.name;
    const auto compilation = store_->record_compilation(id, run_, compiled);
    MeasurementRecord m;
    m.run_id = run_;
    m.config_id = id;
    m.compilation_id = compilation;
    m.result_key = "result_" + c.name;
    m.device_name = "NVIDIA H200";
    m.device_cc = "sm_90";
    m.arch = compiled.arch;
    m.shape = kShape;
    m.measurement.status = Status::ok;
    m.measurement.timing = TimingStats{median_ms, median_ms, median_ms, 3, 5, 20};
    m.measurement.sm_clock_mhz = sm_clock_mhz;
    store_->record_measurement(m);
    return c.name;
  }

  RerankOutcome rerank(int top_k = 5, double tie_band = 0.01, std::optional<double> within = std::nullopt,
                       MeasureSettings settings = {}, std::vector<std::string> also = {}) {
    auto backend = make_replay_backend(dir_ / "results.db", settings);
    RerankOptions o;
    o.top_k = top_k;
    o.within = within;
    o.also = std::move(also);
    o.tie_band = tie_band;
    o.protocol = RerankProtocol{2, 6, 10};
    o.min_kernel_ms = min_kernel_ms_;
    o.max_batch_ms = max_batch_ms_;
    o.by_cycles_too = by_cycles_too_;
    o.run_id = rerank_run_;
    o.compile = [](const Candidate&, const Arch& arch) {  // replay needs no cubin
      CompileResult c;
      c.status = Status::ok;
      c.arch = arch;
      return c;
    };
    return rerank_shape(*store_, *backend, kShape, o);
  }

  std::string winner() {
    Store reader = Store::open(dir_ / "results.db", Store::Mode::read_only);
    const auto t = reader.query_named("winners");
    if (t.rows.empty()) return "";
    return std::get<std::string>(t.rows.at(0).at(3));
  }

  std::filesystem::path dir_;
  std::optional<Store> store_;
  std::int64_t run_ = 0;
  std::int64_t rerank_run_ = 0;
  double min_kernel_ms_ = 0;  // rerank()'s sizing by time (0: off)
  double max_batch_ms_ = 0;
  bool by_cycles_too_ = false;
};

// Sizing by time, worked by hand from the H200's shapes: 28 us kernels get the rounds that add up to 50 ms each
// (10 rounds of 20 launches were 5.6 ms), 1.75 ms kernels batches of 2 launches (3.5 ms, not 35), and neither
// count moves when the limits are off or already met.
TEST(RerankSizing, RoundsAddUpToTheMinimumAndBatchesStayUnderTheirLimit) {
  const RerankProtocol fixed{3, 10, 20, false, 200};
  const auto small = sized_rerank_protocol(fixed, 0.028, 50, 5);
  EXPECT_EQ(small.iters, 20);   // 0.56 ms a batch: under 5
  EXPECT_EQ(small.rounds, 90);  // ceil(50 / 0.56)
  EXPECT_EQ(small.warmup, 3);
  EXPECT_EQ(small.settle_ms, 200);
  const auto big = sized_rerank_protocol(fixed, 1.75, 50, 5);
  EXPECT_EQ(big.iters, 2);    // floor(5 / 1.75)
  EXPECT_EQ(big.rounds, 15);  // ceil(50 / 3.5)
  const auto huge = sized_rerank_protocol(fixed, 12.0, 50, 5);
  EXPECT_EQ(huge.iters, 1);    // never below one launch
  EXPECT_EQ(huge.rounds, 10);  // 10 x 12 ms already over 50: rounds are never lowered
  const auto tiny = sized_rerank_protocol(fixed, 0.000001, 50, 5);
  EXPECT_EQ(tiny.rounds, kRerankMaxSizedRounds);
  for (const double fastest : {0.0, -1.0}) {  // nothing known: as asked
    const auto p = sized_rerank_protocol(fixed, fastest, 50, 5);
    EXPECT_EQ(p.rounds, 10);
    EXPECT_EQ(p.iters, 20);
  }
  const auto off = sized_rerank_protocol(fixed, 0.028, 0, 0);
  EXPECT_EQ(off.rounds, 10);
  EXPECT_EQ(off.iters, 20);
  // Asked for more rounds than the sizing's cap: never fewer than asked.
  EXPECT_EQ(sized_rerank_protocol(RerankProtocol{3, 5000, 20}, 0.001, 500, 5).rounds, 5000);
  const auto rounds_only = sized_rerank_protocol(fixed, 1.75, 50, 0);
  EXPECT_EQ(rounds_only.iters, 20);
  EXPECT_EQ(rounds_only.rounds, 10);  // 10 x 20 x 1.75 = 350 ms
}

TEST_F(Rerank, TheFastestWinsWhenNoneTie) {
  // 128x64 tiles with 32-wide warp tiles: 8 warps, 256 threads each.
  const auto a = measured(wmma(128, 64, 32), 1.00, 128);
  const auto b = measured(wmma(64, 64, 32), 1.05, 64);
  const auto c = measured(wmma(128, 128, 32), 1.10, 64);
  const auto d = measured(wmma(64, 128, 32), 1.20, 64);
  const RerankOutcome out = rerank();
  ASSERT_TRUE(out.recorded) << out.note;
  EXPECT_EQ(out.names, (std::vector<std::string>{a, b, c, d}));
  EXPECT_EQ(winner(), a);
  const auto& e = out.record.entries;
  ASSERT_EQ(e.size(), 4u);
  EXPECT_TRUE(e[0].tied);
  EXPECT_FALSE(e[1].tied);
  for (std::size_t i = 0; i < e.size(); ++i) {
    EXPECT_EQ(e[i].place, static_cast<int>(i) + 1);
    EXPECT_EQ(e[i].samples.size(), 6u);  // one per round
  }
  ASSERT_TRUE(e[0].ratio_to_cublas);
  EXPECT_DOUBLE_EQ(*e[0].ratio_to_cublas, 0.9);  // cuBLAS 0.9 ms over the same rounds / 1.0 ms
  EXPECT_FALSE(e[0].ratio_to_cublaslt);          // the recording has no cuBLASLt: not in the rounds
  EXPECT_TRUE(out.record.cublaslt_samples.empty());
  EXPECT_EQ(e[0].threads, 256);
  EXPECT_EQ(out.record.cublas_samples.size(), 6u);
  EXPECT_EQ(out.record.rule, std::string(kRerankRule));

  // Every sample is stored, each round's 5 entries at positions 0-4 in that round's order (a Williams square).
  Store reader = Store::open(dir_ / "results.db", Store::Mode::read_only);
  EXPECT_EQ(reader.query_sql("SELECT * FROM rerank_samples").rows.size(), 5u * 6u);
  EXPECT_EQ(reader
                .query_sql("SELECT round FROM rerank_samples GROUP BY round "
                           "HAVING count(DISTINCT position) = 5 AND min(position) = 0 AND max(position) = 4")
                .rows.size(),
            6u);
  const auto cublas =
      reader.query_sql("SELECT round, position FROM rerank_samples WHERE config_id IS NULL ORDER BY round");
  ASSERT_EQ(cublas.rows.size(), 6u);
  const std::vector<bool> all_five(5, true);  // 4 configs and cuBLAS (entry 4)
  for (const auto& row : cublas.rows)
    EXPECT_EQ(std::get<std::int64_t>(row[1]),
              testing::interleaved_position(static_cast<int>(std::get<std::int64_t>(row[0])), all_five, 4));
}

// The re-rank sizes its rounds and batches from the fastest stored median (1.0 ms here), records the counts it
// used, takes that many samples of every entry and says so in its note.
TEST_F(Rerank, SizedByTimeFromTheFastestStoredMedian) {
  measured(wmma(128, 64, 32), 1.00, 128);
  measured(wmma(64, 64, 32), 1.05, 64);
  min_kernel_ms_ = 100;
  max_batch_ms_ = 5;
  const RerankOutcome out = rerank();
  ASSERT_TRUE(out.recorded) << out.note;
  EXPECT_EQ(out.record.iters, 5);    // 10 launches of 1 ms over the 5 ms batch limit
  EXPECT_EQ(out.record.rounds, 20);  // 100 ms / (5 x 1 ms), over the 6 asked for
  for (const auto& e : out.record.entries) EXPECT_EQ(e.samples.size(), 20u);
  EXPECT_EQ(out.record.cublas_samples.size(), 20u);
  EXPECT_NE(out.note.find("20 rounds of 5 launches"), std::string::npos) << out.note;
  Store reader = Store::open(dir_ / "results.db", Store::Mode::read_only);
  const auto stored = reader.query_sql("SELECT rounds, iters FROM reranks");
  ASSERT_EQ(stored.rows.size(), 1u);
  EXPECT_EQ(std::get<std::int64_t>(stored.rows[0][0]), 20);
  EXPECT_EQ(std::get<std::int64_t>(stored.rows[0][1]), 5);
}

// With by_cycles_too the re-rank takes the K fastest by time and the K fewest by cycles (median x clock), and,
// with `within`, every config within it of either leader: a config timed in a low clock step joins the rounds.
TEST_F(Rerank, ByCyclesTooAddsWhatALowClockStepPushedDown) {
  const auto fast = measured(wmma(128, 64, 32), 1.00, 128, 0, 1935);      // 1935 cycles: first by time
  const auto second = measured(wmma(64, 64, 32), 1.01, 64, 0, 1935);      // within 1% by time
  const auto low_step = measured(wmma(128, 128, 32), 1.05, 64, 0, 1725);  // 1811: fewest cycles
  const auto slow = measured(wmma(64, 128, 32), 1.20, 64, 0, 1935);       // far by both
  const auto names = [](const RerankOutcome& out) {
    auto n = out.names;
    std::sort(n.begin(), n.end());
    return n;
  };
  const auto sorted = [](std::vector<std::string> n) {
    std::sort(n.begin(), n.end());
    return n;
  };
  EXPECT_EQ(names(rerank(1, 0.01, 0.02)), sorted({fast, second}));  // by time: within 2% of the fastest
  by_cycles_too_ = true;
  EXPECT_EQ(names(rerank(1, 0.01, 0.02)), sorted({fast, second, low_step}));
  EXPECT_EQ(names(rerank(1, 0.01)), sorted({fast, low_step}));  // the leader of each, K = 1
  const auto all_four = names(rerank(4, 0.01));                 // both rankings hold all four: each is taken once
  EXPECT_EQ(all_four, sorted({fast, second, low_step, slow}));
}

// Without clocks there are no cycles: ranked by cycles the configs follow by median, and no cut by cycles takes
// more than K (the leader's cycles are unknown), so --rerank-cycles adds nothing to the cut by time.
TEST_F(Rerank, ByCyclesTooWithoutClocksAddsNothing) {
  const auto fast = measured(wmma(128, 64, 32), 1.00, 128);
  const auto second = measured(wmma(64, 64, 32), 1.01, 64);
  measured(wmma(128, 128, 32), 1.05, 64);
  measured(wmma(64, 128, 32), 1.50, 64);
  by_cycles_too_ = true;
  auto n = rerank(1, 0.01, 0.02).names;
  std::sort(n.begin(), n.end());
  std::vector<std::string> expected{fast, second};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(n, expected);
}

// Within 1% of the fastest, the smaller register footprint (registers x threads) wins; outside it, speed does.
// A recording with cuBLASLt timed at the shape's start: cuBLASLt is one more entry of the rounds (K + 2 entries,
// at its place in each round's order), its median and every config's ratio to it are stored, the winners view
// and the printed table carry them; --no-cublaslt leaves it out.
TEST_F(Rerank, CublasLtJoinsTheRoundsWhenTheShapeHasIt) {
  CublasLtReference lt;
  lt.heuristics_returned = 8;
  lt.heuristics_valid = 8;
  lt.timing = TimingStats{0.8, 0.8, 0.8, 3, 5, 20};
  lt.algo = CublasLtAlgo{66, 24, 35, 1, 0, 1, 0, 0, 2, 1048576, 1.37};
  lt.error = ErrorStats{0.0021, 3.1e-6, 0, 0, 0.5, 1e-3};
  store_->record_cublaslt(run_, CublasLtRecord{"NVIDIA H200", "sm_90", kShape, lt, std::nullopt});
  const auto a = measured(wmma(128, 64, 32), 1.00, 128);
  measured(wmma(64, 64, 32), 1.25, 64);
  measured(wmma(128, 128, 32), 1.60, 64);
  const RerankOutcome out = rerank();
  ASSERT_TRUE(out.recorded) << out.note;
  EXPECT_EQ(winner(), a);
  ASSERT_TRUE(out.record.cublaslt_median_ms);
  EXPECT_DOUBLE_EQ(*out.record.cublaslt_median_ms, 0.8);
  EXPECT_EQ(out.record.cublaslt_samples.size(), 6u);  // one per round
  const auto& e = out.record.entries;
  ASSERT_EQ(e.size(), 3u);
  ASSERT_TRUE(e[0].ratio_to_cublaslt);
  EXPECT_DOUBLE_EQ(*e[0].ratio_to_cublaslt, 0.8);  // 0.8 ms over the same rounds / 1.0 ms
  ASSERT_TRUE(e[1].ratio_to_cublaslt);
  EXPECT_DOUBLE_EQ(*e[1].ratio_to_cublaslt, 0.64);  // / 1.25 ms
  EXPECT_DOUBLE_EQ(*e[0].ratio_to_cublas, 0.9);
  EXPECT_NE(out.note.find("0.800x cuBLASLt"), std::string::npos) << out.note;

  // Five entries (3 configs, cuBLAS, cuBLASLt as entry 4): cuBLASLt at its place in each round's order.
  Store reader = Store::open(dir_ / "results.db", Store::Mode::read_only);
  EXPECT_EQ(reader.query_sql("SELECT * FROM rerank_samples").rows.size(), 5u * 6u);
  const auto lt_samples =
      reader.query_sql("SELECT round, position FROM rerank_samples WHERE reference = 'cublaslt' ORDER BY round");
  ASSERT_EQ(lt_samples.rows.size(), 6u);
  const std::vector<bool> all_five(5, true);  // 3 configs, cuBLAS and cuBLASLt (entry 4)
  for (const auto& row : lt_samples.rows)
    EXPECT_EQ(std::get<std::int64_t>(row[1]),
              testing::interleaved_position(static_cast<int>(std::get<std::int64_t>(row[0])), all_five, 4));
  const auto w = reader.query_sql("SELECT ratio_to_cublaslt, cublaslt_median_ms FROM winners");
  ASSERT_EQ(w.rows.size(), 1u);
  EXPECT_EQ(w.rows[0], (std::vector<report::Cell>{0.8, 0.8}));

  // The table every printer takes: the ratio to cuBLASLt beside the ratio to cuBLAS.
  const report::Table t = rerank_table(out);
  const auto col = std::find(t.columns.begin(), t.columns.end(), "ratio_to_cublaslt");
  ASSERT_NE(col, t.columns.end());
  EXPECT_EQ(*(col - 1), "ratio_to_cublas");
  EXPECT_EQ(t.rows.at(0).at(static_cast<std::size_t>(col - t.columns.begin())), report::Cell(0.8));

  // --no-cublaslt: the rounds hold the configs and cuBLAS only.
  MeasureSettings without;
  without.cublaslt = false;
  const RerankOutcome plain = rerank(5, 0.01, std::nullopt, without);
  ASSERT_TRUE(plain.recorded) << plain.note;
  EXPECT_FALSE(plain.record.cublaslt_median_ms);
  EXPECT_TRUE(plain.record.cublaslt_samples.empty());
  EXPECT_FALSE(plain.record.entries.at(0).ratio_to_cublaslt);
  EXPECT_EQ(plain.record.cublas_samples.size(), 6u);
}

TEST_F(Rerank, TiesInTheBandGoToTheSmallerRegisterFootprint) {
  const auto fast = measured(wmma(128, 64, 32), 1.000, 128);        // 256 threads x 128 registers
  const auto lean = measured(wmma(64, 64, 32), 1.008, 96);          // 128 threads x 96: inside 1%
  const auto out_of_band = measured(wmma(64, 128, 32), 1.011, 32);  // 256 threads x 32, but 1.1% slower
  const RerankOutcome out = rerank();
  ASSERT_TRUE(out.recorded) << out.note;
  EXPECT_EQ(out.names, (std::vector<std::string>{lean, fast, out_of_band}));
  EXPECT_TRUE(out.record.entries[0].tied);
  EXPECT_TRUE(out.record.entries[1].tied);
  EXPECT_FALSE(out.record.entries[2].tied);
  EXPECT_EQ(winner(), lean);

  // With no band, the fastest median wins outright.
  EXPECT_EQ(rerank(5, 0.0).names.front(), fast);
  EXPECT_EQ(winner(), fast);
}

TEST_F(Rerank, EqualFootprintsFallBackToSharedMemoryThenName) {
  const auto big_smem = measured(wmma(128, 64, 32, 3), 1.0, 64, 0);  // 3 stages: more dynamic shared memory
  const auto small_smem = measured(wmma(128, 64, 32, 2), 1.0, 64, 0);
  EXPECT_EQ(rerank().names, (std::vector<std::string>{small_smem, big_smem}));
}

TEST_F(Rerank, TheSameDatabaseNamesTheSameWinnerEveryTime) {
  measured(wmma(128, 64, 32), 1.000, 128);
  measured(wmma(64, 64, 32), 1.004, 96);
  measured(wmma(128, 128, 32), 1.002, 64);
  measured(wmma(64, 128, 32), 1.003, 64);
  const RerankOutcome first = rerank();
  ASSERT_TRUE(first.recorded);
  for (int i = 0; i < 3; ++i) {
    const RerankOutcome again = rerank();
    EXPECT_EQ(again.names, first.names);
    EXPECT_EQ(winner(), first.names.front());
  }
  // The stored inputs of the rule give the stored winner.
  const auto stored = store_->find_latest_rerank("NVIDIA H200", kShape);
  ASSERT_TRUE(stored);
  std::vector<RerankContender> contenders;
  for (const auto& e : stored->entries)
    contenders.push_back({store_->find_config(e.config_id)->candidate.name, e.arch.str(), e.timing->median_ms,
                          e.registers, e.threads, e.smem_bytes});
  const auto placing = apply_winner_rule(contenders, stored->tie_band);
  EXPECT_EQ(contenders[placing.order.front()].name, first.names.front());
  EXPECT_EQ(stored->winner_config_id, stored->entries.front().config_id);
}

// A recording with a re-rank replays that re-rank's samples, not the tuning medians.
TEST_F(Rerank, RecordedSamplesAreReplayed) {
  const auto a = measured(wmma(128, 64, 32), 1.00, 64);
  const auto b = measured(wmma(64, 64, 32), 1.20, 64);
  ASSERT_EQ(rerank().names.front(), a);
  // A re-rank that timed b faster (as on a GPU where a's tuning time was a lucky one).
  auto recorded = *store_->find_latest_rerank("NVIDIA H200", kShape);
  for (auto& e : recorded.entries)
    for (auto& s : e.samples) s.ms = store_->find_config(e.config_id)->candidate.name == a ? 1.10 : 0.95;
  store_->record_rerank(recorded);
  const RerankOutcome out = rerank();
  EXPECT_EQ(out.names.front(), b);
  EXPECT_EQ(winner(), b);
}

TEST_F(Rerank, TopKLimitsTheConfigsAndZeroTurnsItOff) {
  const auto a = measured(wmma(128, 64, 32), 1.0, 64);
  const auto b = measured(wmma(64, 64, 32), 1.1, 64);
  measured(wmma(64, 128, 32), 1.2, 64);
  EXPECT_EQ(rerank(2).names, (std::vector<std::string>{a, b}));
  const RerankOutcome off = rerank(0);
  EXPECT_FALSE(off.recorded);
  EXPECT_EQ(off.note, "re-rank off");
}

// --rerank-within: every config within (1 + X) x the fastest stored median joins the K fastest; the rest stay out.
TEST_F(Rerank, WithinTakesEveryConfigTheFirstPassCannotTellApart) {
  const auto a = measured(wmma(128, 64, 32), 1.00, 64);
  const auto b = measured(wmma(64, 64, 32), 1.02, 64);
  const auto c = measured(wmma(64, 128, 32), 1.039, 64);
  measured(wmma(128, 128, 32), 1.05, 64);
  EXPECT_EQ(rerank(1, 0.01, 0.04).names.size(), 3u);
  const RerankOutcome out = rerank(1, 0.01, 0.04);
  EXPECT_EQ(out.record.top_k, 3) << "the configs it asked for";
  auto names = out.names;
  std::sort(names.begin(), names.end());
  std::vector<std::string> expected{a, b, c};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(names, expected);
  EXPECT_EQ(rerank(4, 0.01, 0.04).names.size(), 4u) << "K still takes the K fastest";
  EXPECT_EQ(rerank(1, 0.01, 0.0).names.size(), 1u);
}

// --rerank-also: a named config joins the K fastest wherever the first pass put it (another run's pick judged
// beside this database's best); named twice or already among them, it is timed once.
TEST_F(Rerank, AlsoAddsTheNamedConfigsBesideTheTopK) {
  const auto a = measured(wmma(128, 64, 32), 1.00, 64);
  measured(wmma(64, 64, 32), 1.05, 64);
  const auto c = measured(wmma(64, 128, 32), 1.20, 64);
  const RerankOutcome out = rerank(1, 0.01, std::nullopt, {}, {c, a, c});
  ASSERT_TRUE(out.recorded) << out.note;
  auto names = out.names;
  std::sort(names.begin(), names.end());
  std::vector<std::string> expected{a, c};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(names, expected);
  EXPECT_EQ(out.record.top_k, 2) << "the configs it timed";
  EXPECT_EQ(out.names.front(), a) << "the replayed medians keep their order";
}

TEST_F(Rerank, AlsoRefusesAConfigWithoutAVerifiedMeasurement) {
  measured(wmma(128, 64, 32), 1.00, 64);
  try {
    rerank(1, 0.01, std::nullopt, {}, {"wmma_not_measured"});
    FAIL() << "a config the database never verified at the shape was re-ranked";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("wmma_not_measured"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(kShape.str()), std::string::npos) << e.what();
  }
}

TEST_F(Rerank, NothingToRerankIsNotRecorded) {
  const RerankOutcome out = rerank();
  EXPECT_FALSE(out.recorded);
  EXPECT_NE(out.note.find("no verified config"), std::string::npos) << out.note;
  EXPECT_EQ(winner(), "");
}

TEST(RerankRule, HandWorkedOrder) {
  // fastest 2.00 ms; band 1% -> up to 2.02 ms.
  const std::vector<RerankContender> c{
      {"e_slow", "sm_90", 2.50, 32, 128, 0},      // out of band: last
      {"d_unknown", "sm_90", 2.00, -1, 256, 0},   // tied, registers unknown: after every known footprint
      {"c_big", "sm_90", 2.01, 128, 256, 1000},   // tied, footprint 32768
      {"b_lean", "sm_90", 2.015, 64, 256, 5000},  // tied, footprint 16384: the winner
      {"a_lean", "sm_90", 2.015, 64, 256, 9000},  // tied, same footprint, more shared memory
      {"f_out", "sm_90", 2.03, 16, 128, 0},       // just out of band
  };
  const auto p = apply_winner_rule(c, 0.01);
  EXPECT_EQ(p.order, (std::vector<std::size_t>{3, 4, 2, 1, 5, 0}));
  EXPECT_EQ(p.tied, (std::vector<bool>{false, true, true, true, true, false}));
  EXPECT_TRUE(apply_winner_rule({}, 0.01).order.empty());
  // Same footprint and shared memory: by name, then arch.
  const auto q =
      apply_winner_rule({{"b", "sm_90a", 1, 1, 1, 1}, {"a", "sm_90a", 1, 1, 1, 1}, {"a", "sm_90", 1, 1, 1, 1}}, 0);
  EXPECT_EQ(q.order, (std::vector<std::size_t>{2, 1, 0}));
}

}  // namespace
}  // namespace mpgemm
