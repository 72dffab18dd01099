// mpgemm-run without a GPU: which rows "--config best" stands for (the fastest verified config for the device
// and shape, whatever its family and arch), and the table built from measured rows and both references.
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli/run_table.hpp"
#include "codegen/family.hpp"
#include "store/store.hpp"
#include "support/export_fixture.hpp"
#include "support/old_database.hpp"
#include "support/run_command.hpp"
#include "support/store_fixture.hpp"

namespace mpgemm {
namespace {

using report::Cell;

DeviceDescription h200() {
  DeviceDescription d;
  d.name = "NVIDIA H200";
  d.arch = *Arch::parse("sm_90");
  return d;
}

class CliResolveBest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::per_test_dir();
    db_ = dir_ / "results.db";
    Store store = Store::open(db_, Store::Mode::read_write);
    run_ = store.begin_run(RunInfo{});
    // At 4096^3 the sm_90a config is faster, at 2048^3 the sm_90 one; on another GPU something faster still.
    record(store, "wmma", x_, "sm_90", Shape{4096, 4096, 4096}, 1.0);
    record(store, "wgmma", y_, "sm_90a", Shape{4096, 4096, 4096}, 0.8);
    record(store, "wmma", x_, "sm_90", Shape{2048, 2048, 2048}, 0.1);
    record(store, "wgmma", y_, "sm_90a", Shape{2048, 2048, 2048}, 0.2);
    record(store, "wmma", z_, "sm_90", Shape{4096, 4096, 4096}, 0.01, "NVIDIA H100");
    store.end_run(run_, "finished");
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // Three real configs: the checks of shape_winners() refuse a name that is not the one its params give.
  static Params z_params() {
    Params p = testing::wmma_params();
    p["STAGES"] = std::int64_t{3};
    return p;
  }
  const Params x_ = testing::wmma_params(), y_ = testing::wgmma_winner_params(), z_ = z_params();
  const std::string x_name_ = family("wmma").config_name(x_), y_name_ = family("wgmma").config_name(y_),
                    z_name_ = family("wmma").config_name(z_);

  void record(Store& store, const std::string& family_name, const Params& params, const std::string& arch,
              const Shape& shape, double ms, const std::string& device = "NVIDIA H200") {
    const std::string name = family(family_name).config_name(params);
    const auto config = store.upsert_config(Candidate{family_name, params, name, {}}, "h");
    MeasurementRecord m;
    m.run_id = run_;
    m.config_id = config;
    m.result_key = fmt::format("{}-{}-{}-{}", name, arch, shape.str(), device);
    m.device_name = device;
    m.device_cc = "sm_90";
    m.arch = *Arch::parse(arch);
    m.shape = shape;
    m.measurement.timing = TimingStats{ms, ms, ms, 3, 5, 20};
    store.record_measurement(m);
  }

  cli::RunOptions options(const Shape& shape) const {
    cli::RunOptions o;
    o.db_path = db_;
    o.space_path = testing::source("configs/sm86.json");
    o.shape = shape;
    return o;
  }

  std::filesystem::path dir_;
  std::filesystem::path db_;
  std::int64_t run_ = 0;
};

TEST_F(CliResolveBest, TakesTheFastestConfigAcrossArchesForThisDevice) {
  std::string note;
  const auto big = cli::resolve_rows(options(Shape{4096, 4096, 4096}), h200(), &note);
  EXPECT_TRUE(note.empty()) << note;
  ASSERT_EQ(big.size(), 4u);  // the space's three named points, then the best tuned config
  EXPECT_EQ(big[0].label, "wmma_naive");
  EXPECT_FALSE(big[0].arch);
  EXPECT_EQ(big.back().label, "best tuned");
  EXPECT_EQ(big.back().candidate.name, y_name_);
  EXPECT_EQ(big.back().candidate.family, "wgmma");
  ASSERT_TRUE(big.back().arch);
  EXPECT_EQ(big.back().arch->str(), "sm_90a");  // compiled again for the arch it was measured with

  const auto small = cli::resolve_rows(options(Shape{2048, 2048, 2048}), h200(), &note);
  ASSERT_EQ(small.back().label, "best tuned");
  EXPECT_EQ(small.back().candidate.name, x_name_);
  EXPECT_EQ(small.back().arch->str(), "sm_90");
}

// A shape with a re-rank takes its winner (view winners), even where the tuning's fastest was another config; the
// other shapes keep best_per_shape.
TEST_F(CliResolveBest, TakesTheReRankWinnerWhenTheShapeHasOne) {
  {
    Store store = Store::open(db_, Store::Mode::read_write);
    const auto run = store.begin_run(RunInfo{});
    RerankRecord r;
    r.run_id = run;
    r.device_name = "NVIDIA H200";
    r.device_cc = "sm_90";
    r.shape = Shape{4096, 4096, 4096};
    r.rounds = 10;
    r.iters = 20;
    r.rule = "test";
    RerankEntryRecord winner;
    winner.config_id = *store.find_config_id(x_name_);
    winner.arch = *Arch::parse("sm_90");
    winner.place = 1;
    winner.tied = true;
    winner.timing = TimingStats{0.9, 0.9, 0.9, 2, 10, 20};  // a winner was timed: one without a median is refused
    r.winner_config_id = winner.config_id;
    r.entries = {winner};
    store.record_rerank(r);
    store.end_run(run, "finished");
  }
  std::string note;
  const auto big = cli::resolve_rows(options(Shape{4096, 4096, 4096}), h200(), &note);
  ASSERT_EQ(big.back().label, "best tuned");
  EXPECT_EQ(big.back().candidate.name, x_name_);  // not y, the tuning's fastest
  EXPECT_EQ(big.back().arch->str(), "sm_90");
  const auto small = cli::resolve_rows(options(Shape{2048, 2048, 2048}), h200(), &note);
  EXPECT_EQ(small.back().candidate.name, x_name_);
  DeviceDescription h100 = h200();
  h100.name = "NVIDIA H100";
  // Another device's winners are not this one's.
  EXPECT_EQ(cli::resolve_rows(options(Shape{4096, 4096, 4096}), h100, &note).back().candidate.name, z_name_);
}

TEST_F(CliResolveBest, AShapeWithoutMeasurementsGivesANote) {
  std::string note;
  const auto rows = cli::resolve_rows(options(Shape{1024, 1024, 1024}), h200(), &note);
  EXPECT_EQ(rows.size(), 3u);
  EXPECT_NE(note.find("no verified config for NVIDIA H200 at 1024x1024x1024"), std::string::npos) << note;
}

// A database whose winner disagrees with itself (one damaged byte in its params: the name says one config, the
// params compile another) is refused whole, naming the row, whatever shape is asked for: never run as another
// kernel.
TEST_F(CliResolveBest, AWinnerWhoseNameItsParamsDoNotGiveRefusesTheDatabase) {
  testing::raw_exec(
      db_, fmt::format("UPDATE configs SET params = json_set(params, '$.STAGES', 3) WHERE name = '{}'", y_name_));
  for (const Shape& shape : {Shape{4096, 4096, 4096}, Shape{2048, 2048, 2048}}) {
    try {
      cli::plan_rows(options(shape));
      ADD_FAILURE() << "a damaged winner was taken at " << shape.str();
    } catch (const StoreError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      for (const std::string& w :
           {"database " + db_.string() + ": ",
            fmt::format("the best_per_shape row \"{}\" for \"NVIDIA H200\" at 4096x4096x4096 (measurement ", y_name_),
            std::string("the name and the params disagree"), std::string("the database is refused")})
        EXPECT_NE(what.find(w), std::string::npos) << "no '" << w << "' in: " << what;
    }
  }
}

// --config NAME takes a configs row: the same check of its params against its name.
TEST_F(CliResolveBest, ANamedConfigWhoseParamsDisagreeWithItsNameIsRefused) {
  testing::raw_exec(
      db_, fmt::format("UPDATE configs SET params = json_set(params, '$.STAGES', 3) WHERE name = '{}'", x_name_));
  cli::RunOptions o = options(Shape{4096, 4096, 4096});
  o.selector = x_name_;
  try {
    cli::plan_rows(o);
    ADD_FAILURE() << "a damaged config was taken";
  } catch (const StoreError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(fmt::format("the configs row {} (config ", x_name_)), std::string::npos) << what;
    EXPECT_NE(what.find("the name and the params disagree"), std::string::npos) << what;
  }
  // Params that are not JSON (ill-formed UTF-8, past the table's CHECK as damage is) are refused as well, not
  // thrown as nlohmann's parse_error.
  testing::raw_exec(db_, fmt::format("PRAGMA ignore_check_constraints = ON; UPDATE configs SET params = "
                                     "CAST(X'7B22424DFF223A203132387D' AS TEXT) WHERE name = '{}'",
                                     x_name_));
  EXPECT_THROW(cli::plan_rows(o), StoreError);
}

// Column `name` of row `row`.
Cell cell(const report::Table& t, std::size_t row, std::string_view name) {
  const auto it = std::find(t.columns.begin(), t.columns.end(), name);
  EXPECT_NE(it, t.columns.end()) << name;
  if (it == t.columns.end() || row >= t.rows.size()) return {};
  return t.rows[row][static_cast<std::size_t>(it - t.columns.begin())];
}

double number(const Cell& c) {
  EXPECT_TRUE(std::holds_alternative<double>(c));
  return std::holds_alternative<double>(c) ? std::get<double>(c) : 0;
}

std::vector<cli::RunOutcome> outcomes() {
  cli::RunOutcome ok;
  ok.row.label = "best tuned";
  ok.row.candidate.name = "wgmma_y";
  ok.measurement.timing = TimingStats{0.5, 0.5, 0.5, 3, 5, 20};
  ok.measurement.error = ErrorStats{0.125, 1e-5, 0, 0, 0.5, 1e-3};
  cli::RunOutcome rejected;
  rejected.row.label = "wmma_naive";
  rejected.row.candidate.name = "wmma_direct";
  rejected.measurement.status = Status::constraint_rejected;
  rejected.measurement.message = "M=1000 is not a multiple of 16";
  return {rejected, ok};
}

ShapeReference references(bool with_cublaslt, bool timed = true) {
  ShapeReference ref;
  ref.timing = TimingStats{0.25, 0.25, 0.25, 3, 5, 20};
  if (!with_cublaslt) return ref;
  CublasLtReference lt;
  lt.heuristics_returned = 8;
  if (timed) {
    lt.heuristics_valid = 6;
    lt.timing = TimingStats{0.2, 0.2, 0.2, 3, 5, 20};
    lt.algo = CublasLtAlgo{66, 24, 35, 1, 0, 0, 0, 0, 0, 0, 1.0};
    lt.error = ErrorStats{0.0625, 1e-6, 0, 0, 0.5, 1e-3};
  } else {
    lt.message = "none of the 8 algorithms verified: ...";
  }
  ref.cublaslt = lt;
  return ref;
}

TEST(CliRunTable, ShowsCublasLtNextToCublas) {
  const Shape shape{4096, 4096, 4096};
  std::vector<std::string> notes;
  const report::Table t = cli::run_table(outcomes(), references(true), shape, &notes);
  EXPECT_EQ(t.columns, (std::vector<std::string>{"kernel", "config", "status", "ms", "GFLOPS", "pct_cublas",
                                                 "pct_cublaslt", "gain", "max_abs_err", "max_rel_err", "cublas_ms"}));
  ASSERT_EQ(t.rows.size(), 4u);  // rejected point, best tuned, cuBLAS, cuBLASLt
  EXPECT_EQ(cell(t, 0, "status"), Cell(std::string("constraint_rejected")));
  EXPECT_EQ(cell(t, 0, "pct_cublaslt"), Cell(std::monostate{}));
  EXPECT_DOUBLE_EQ(number(cell(t, 1, "pct_cublas")), 50.0);
  EXPECT_DOUBLE_EQ(number(cell(t, 1, "pct_cublaslt")), 40.0);
  EXPECT_DOUBLE_EQ(number(cell(t, 1, "GFLOPS")), shape.flops() / 0.5e6);
  EXPECT_EQ(cell(t, 2, "kernel"), Cell(std::string("cuBLAS")));
  EXPECT_DOUBLE_EQ(number(cell(t, 2, "pct_cublaslt")), 80.0);
  EXPECT_DOUBLE_EQ(number(cell(t, 2, "gain")), 2.0);
  EXPECT_EQ(cell(t, 3, "kernel"), Cell(std::string("cuBLASLt")));
  EXPECT_EQ(cell(t, 3, "config"),
            Cell(std::string("cublasLtMatmul algo 66 tile 24 stages 35 splitk 1 reduction 0 swizzle 0 custom 0 inner 0 "
                             "cluster 0")));
  EXPECT_EQ(cell(t, 3, "status"), Cell(std::string("reference")));
  EXPECT_DOUBLE_EQ(number(cell(t, 3, "ms")), 0.2);
  EXPECT_DOUBLE_EQ(number(cell(t, 3, "pct_cublas")), 125.0);
  EXPECT_DOUBLE_EQ(number(cell(t, 3, "pct_cublaslt")), 100.0);
  EXPECT_DOUBLE_EQ(number(cell(t, 3, "gain")), 1.25);
  EXPECT_EQ(cell(t, 3, "max_abs_err"), Cell(0.0625));
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0], "wmma_naive: constraint_rejected M=1000 is not a multiple of 16");
  EXPECT_EQ(notes[1], "cuBLASLt: the fastest of 6 verified of 8 heuristic algorithms");

  // Every printer shows the same rows.
  const std::string markdown = report::render(t, report::Format::markdown);
  EXPECT_NE(markdown.find("pct_cublaslt"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| cuBLASLt "), std::string::npos) << markdown;
  const std::string csv = report::render(t, report::Format::csv);
  EXPECT_NE(csv.find("cuBLASLt,cublasLtMatmul algo 66"), std::string::npos) << csv;
}

TEST(CliRunTable, APairedRowIsComparedWithItsOwnCublasTiming) {
  std::vector<cli::RunOutcome> rows = outcomes();
  rows[1].measurement.paired_cublas = TimingStats{0.55, 0.54, 0.56, 3, 5, 20};
  std::vector<std::string> notes;
  const report::Table t = cli::run_table(rows, references(false), Shape{4096, 4096, 4096}, &notes);
  EXPECT_DOUBLE_EQ(number(cell(t, 1, "pct_cublas")), 110.0);  // 0.55 / 0.5, not the shape's 0.25 / 0.5
  EXPECT_DOUBLE_EQ(number(cell(t, 1, "cublas_ms")), 0.55);
  EXPECT_EQ(cell(t, 0, "cublas_ms"), Cell(std::monostate{}));  // not timed
  EXPECT_DOUBLE_EQ(number(cell(t, 2, "cublas_ms")), 0.25);     // the cuBLAS row is the shape's reference
  EXPECT_DOUBLE_EQ(number(cell(t, 2, "pct_cublas")), 100.0);
}

TEST(CliRunTable, WithoutCublasLtItsColumnIsEmpty) {
  std::vector<std::string> notes;
  const report::Table skipped = cli::run_table(outcomes(), references(false), Shape{}, &notes);
  ASSERT_EQ(skipped.rows.size(), 3u);  // no cuBLASLt row
  EXPECT_EQ(cell(skipped, 1, "pct_cublaslt"), Cell(std::monostate{}));
  EXPECT_EQ(cell(skipped, 2, "pct_cublaslt"), Cell(std::monostate{}));
  EXPECT_EQ(notes.size(), 1u);

  notes.clear();
  const report::Table untimed = cli::run_table(outcomes(), references(true, false), Shape{}, &notes);
  ASSERT_EQ(untimed.rows.size(), 3u);
  EXPECT_EQ(cell(untimed, 1, "pct_cublaslt"), Cell(std::monostate{}));
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[1], "cuBLASLt: no timing: none of the 8 algorithms verified: ...");
}

}  // namespace
}  // namespace mpgemm
