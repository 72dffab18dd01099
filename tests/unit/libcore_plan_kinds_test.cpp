// The library's per-kind planning (src/lib/plan.hpp plan_call) on the CPU: a table of winners of two kinds read from
// a database made for the test (tests/support/kinds_fixture.hpp), planned for an H200 description. A winner of one
// kind never serves another; a kind without a winner goes to cuBLAS of that kind, or is refused where cuBLAS does
// not compute it; every reason names the kind.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "codegen/family.hpp"
#include "export/export_collect.hpp"
#include "lib/cublas_path.hpp"
#include "lib/export_file.hpp"
#include "lib/plan.hpp"
#include "lib/public_problem.hpp"
#include "lib/winner_table.hpp"
#include "support/h200.hpp"
#include "support/kinds_fixture.hpp"
#include "support/store_fixture.hpp"

namespace mpgemm {
namespace {

namespace fs = std::filesystem;
using lib::plan_call;
using lib::WinnerTable;
using testing::kBig;
using testing::kLinear;

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

class PlanKinds : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::per_test_dir();
    fs::create_directories(dir_);
    db_ = dir_ / "kinds.db";
    testing::write_kinds_db(db_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  lib::Planned plan(const WinnerTable& table, const ProblemKind& kind, const Shape& shape, double min_ratio = 1.0) {
    return plan_call(table, testing::h200_description(), GemmProblem{shape, kind}, {min_ratio});
  }
  fs::path dir_, db_;
};

TEST_F(PlanKinds, TheTableHoldsEveryKindOfTheDatabase) {
  const WinnerTable table = WinnerTable::load(db_);
  int linear = 0;
  for (const ShapeWinner& w : table.winners()) linear += w.kind == kLinear;
  EXPECT_EQ(linear, 1);
  EXPECT_EQ(table.winners().size(), 4u);  // H200 4096^3 and 2048^3, RTX 1024^3 of the default kind; kLinear 4096^3
}

TEST_F(PlanKinds, EachKindTakesItsOwnWinnerAndRatio) {
  const WinnerTable table = WinnerTable::load(db_);
  const std::string winner = family("wgmma").config_name(testing::wgmma_winner_params());
  const std::string other = family("wgmma").config_name(testing::wgmma_other_params());

  const lib::Planned d = plan(table, ProblemKind{}, kBig);
  EXPECT_EQ(d.dispatch.path, Path::tuned) << d.dispatch.reason;
  EXPECT_EQ(d.dispatch.config, winner);  // the default kind's re-rank winner
  EXPECT_EQ(d.dispatch.problem, "mk_kn_fp16_fp32");
  EXPECT_TRUE(starts_with(d.dispatch.reason, "mk_kn_fp16_fp32: tuned at 4096x4096x4096")) << d.dispatch.reason;

  const lib::Planned l = plan(table, kLinear, kBig);
  EXPECT_EQ(l.dispatch.path, Path::tuned) << l.dispatch.reason;
  EXPECT_EQ(l.dispatch.config, other);  // kLinear's own winner, not the default kind's
  ASSERT_NE(l.winner, nullptr);
  EXPECT_EQ(l.winner->kind, kLinear);
  // The ratio is against kLinear's cuBLAS (0.16 ms), not the default kind's (0.19 ms).
  EXPECT_NEAR(l.dispatch.ratio_cublas, testing::kLinearCublasMs / 0.140, 1e-9);
  EXPECT_EQ(l.dispatch.problem, "mk_nk_bf16_bf16");
  EXPECT_TRUE(starts_with(l.dispatch.reason, "mk_nk_bf16_bf16: tuned at 4096x4096x4096")) << l.dispatch.reason;
  EXPECT_FALSE(l.no_vendor);
}

TEST_F(PlanKinds, AWinnerOfOneKindNeverServesAnother) {
  const WinnerTable table = WinnerTable::load(db_);
  const ProblemKind beta = *ProblemKind::parse("mk_nk_bf16_bf16_beta");   // kLinear reading C
  const ProblemKind transposed = *ProblemKind::parse("km_kn_fp16_fp32");  // the default kind with A stored K x M
  for (const ProblemKind& kind : {beta, transposed}) {
    for (const Shape& shape : {kBig, Shape{4096, 4096, 2048}, Shape{2048, 2048, 2048}}) {
      const lib::Planned p = plan(table, kind, shape, /*min_ratio=*/0.0);  // any winner of the kind would run
      EXPECT_EQ(p.dispatch.path, Path::cublas) << kind.name() << " " << shape.str() << ": " << p.dispatch.reason;
      EXPECT_EQ(p.winner, nullptr);
      EXPECT_EQ(p.dispatch.config, lib::kVendorConfig);
      EXPECT_EQ(p.dispatch.tuned_m, 0);
      EXPECT_TRUE(starts_with(p.dispatch.reason, kind.name() + ": no tuned shapes of this problem kind"))
          << p.dispatch.reason;
      EXPECT_FALSE(p.no_vendor);
    }
  }
  // The nearest shape of kLinear is kLinear's winner even where a default-kind shape is nearer.
  const lib::Planned near = plan(table, kLinear, Shape{2048, 2048, 2048});
  EXPECT_EQ(near.dispatch.path, Path::nearest) << near.dispatch.reason;
  EXPECT_EQ(near.dispatch.tuned_m, 4096);
  ASSERT_NE(near.winner, nullptr);
  EXPECT_EQ(near.winner->kind, kLinear);
}

TEST_F(PlanKinds, AKindCublasDoesNotComputeHasNoVendorPath) {
  const WinnerTable table = WinnerTable::load(db_);
  const ProblemKind mixed = *ProblemKind::parse("mk_kn_fp16_bf16");
  const lib::Planned p = plan(table, mixed, kBig);
  EXPECT_EQ(p.dispatch.path, Path::cublas);
  ASSERT_TRUE(p.no_vendor);
  EXPECT_NE(p.dispatch.reason.find("do not compute fp16 operands into bf16"), std::string::npos) << p.dispatch.reason;
}

TEST_F(PlanKinds, AnotherDeviceHasNoWinners) {
  const WinnerTable table = WinnerTable::load(db_);
  DeviceDescription h100 = testing::h200_description();
  h100.name = "NVIDIA H100 80GB HBM3";
  const lib::Planned p = plan_call(table, h100, GemmProblem{kBig, kLinear}, {1.0});
  EXPECT_EQ(p.dispatch.path, Path::cublas);
  EXPECT_TRUE(starts_with(p.dispatch.reason, "mk_nk_bf16_bf16: no tuned shapes")) << p.dispatch.reason;
}

// An exported file (format version 2) carries every kind: the library reads it and plans each kind with its own
// winner, as it does from the database.
TEST_F(PlanKinds, AnExportedFileServesTheKindsInIt) {
  const Store store = Store::open(db_, Store::Mode::read_only);
  const fs::path file = dir_ / "winners.json";
  std::ofstream(file) << to_json(collect_export(store, ExportOptions{db_, std::nullopt})).dump(2);
  const WinnerTable table = WinnerTable::load(file);
  EXPECT_EQ(table.winners().size(), 4u);
  const lib::Planned l = plan(table, kLinear, kBig);
  EXPECT_EQ(l.dispatch.path, Path::tuned) << l.dispatch.reason;
  EXPECT_EQ(l.dispatch.config, family("wgmma").config_name(testing::wgmma_other_params()));
  EXPECT_NEAR(l.dispatch.ratio_cublas, testing::kLinearCublasMs / 0.140, 1e-6);
  const lib::Planned d = plan(table, ProblemKind{}, kBig);
  EXPECT_EQ(d.dispatch.config, family("wgmma").config_name(testing::wgmma_winner_params()));
  EXPECT_EQ(plan(table, *ProblemKind::parse("mk_nk_bf16_bf16_beta"), kBig).dispatch.path, Path::cublas);
}

// The public API over the same database: plan_for() plans for a device the file names without a GPU (the H200's
// winners serve only the H200; a device the file does not know is refused naming the ones it does), tuned() lists
// every entry with its kind, and preload() needs a device.
TEST_F(PlanKinds, PlanForANamedDeviceNeedsNoGpu) {
  const Library lib = Library::open(db_.string());
  const Problem linear = lib::to_public(kLinear);
  const Dispatch l = lib.plan_for(testing::kH200, linear, kBig.m, kBig.n, kBig.k);
  EXPECT_EQ(l.path, Path::tuned) << l.reason;
  EXPECT_EQ(l.config, family("wgmma").config_name(testing::wgmma_other_params()));
  EXPECT_EQ(l.problem, "mk_nk_bf16_bf16");
  const Dispatch near = lib.plan_for(testing::kH200, linear, 3000, kBig.n, kBig.k);
  EXPECT_EQ(near.path, Path::nearest) << near.reason;
  const Dispatch beta = lib.plan_for(testing::kH200, parse_problem("mk_nk_bf16_bf16_beta"), 64, 64, 64);
  EXPECT_EQ(beta.path, Path::cublas) << beta.reason;
  try {
    (void)lib.plan_for("NVIDIA B200", linear, 64, 64, 64);
    ADD_FAILURE() << "an unknown device was planned for";
  } catch (const GemmError& e) {
    EXPECT_EQ(e.kind(), GemmError::Kind::bad_argument);
    EXPECT_NE(std::string(e.what()).find(testing::kH200), std::string::npos) << e.what();
  }
}

TEST_F(PlanKinds, TunedListsEveryEntryWithItsKind) {
  const Library lib = Library::open(db_.string());
  const std::vector<Library::Tuned> entries = lib.tuned();
  ASSERT_EQ(entries.size(), lib.tuned_shapes());
  int linear = 0;
  for (const Library::Tuned& t : entries) {
    EXPECT_FALSE(t.config.empty());
    EXPECT_GT(t.m * t.n * t.k, 0);
    if (t.problem == "mk_nk_bf16_bf16") {
      ++linear;
      EXPECT_EQ(t.device, testing::kH200);
      EXPECT_EQ(t.arch, "sm_90a");
      EXPECT_NEAR(t.ratio_cublas, testing::kLinearCublasMs / 0.140, 1e-6);
    }
  }
  EXPECT_EQ(linear, 1);
}

TEST_F(PlanKinds, PreloadWithoutADeviceSaysSo) {
  Library lib = Library::open(db_.string());
  try {
    // With a GPU (not an H200 or RTX 3050 of the file, whose shapes differ) the vendor path is prepared.
    EXPECT_EQ(lib.preload(Problem{}, 64, 48, 40).path, Path::cublas);
  } catch (const GemmError& e) {
    EXPECT_EQ(e.kind(), GemmError::Kind::no_device) << e.what();
  }
}

TEST(PublicProblem, MirrorsTheKindBothWays) {
  for (const ProblemKind& k : ProblemKind::all()) {
    const Problem p = lib::to_public(k);
    EXPECT_EQ(lib::to_kind(p), k);
    EXPECT_EQ(to_string(p), k.name());
    EXPECT_EQ(parse_problem(k.name()), p);
  }
  EXPECT_EQ(to_string(Problem{}), "mk_kn_fp16_fp32");
  Problem fp32_in;
  fp32_in.in = Problem::Type::fp32;
  EXPECT_THROW(lib::to_kind(fp32_in), GemmError);
  try {
    parse_problem("mk_kn_fp8_fp32");
    ADD_FAILURE() << "fp8 parsed";
  } catch (const GemmError& e) {
    EXPECT_EQ(e.kind(), GemmError::Kind::bad_argument);
    EXPECT_NE(std::string(e.what()).find("fp8"), std::string::npos) << e.what();
  }
  // A fused epilogue parses as a kind but is no Problem yet (it has no bias): refused, never dropped silently.
  try {
    parse_problem("mk_nk_bf16_bf16_bias_gelu");
    ADD_FAILURE() << "an epilogue kind became a Problem";
  } catch (const GemmError& e) {
    EXPECT_EQ(e.kind(), GemmError::Kind::bad_argument);
    EXPECT_NE(std::string(e.what()).find("fuses the bias_gelu epilogue"), std::string::npos) << e.what();
  }
  ProblemKind fused = *ProblemKind::parse("mk_nk_bf16_bf16_bias");
  ASSERT_TRUE(lib::vendor_gap(fused));
  EXPECT_NE(lib::vendor_gap(fused)->find("cublasGemmEx"), std::string::npos);
  EXPECT_FALSE(lib::vendor_gap(*ProblemKind::parse("mk_nk_bf16_bf16")));
}

}  // namespace
}  // namespace mpgemm
