// On an sm_90 GPU, the Hopper family end to end: its named points (the design ladder: one consumer, warp
// specialisation, persistent grid, 2-CTA cluster with multicast, TMA-store epilogue, pingpong consumers) verify against
// cuBLAS at the issue's shapes through mpgemm-tune, including ragged ones, and a deliberately broken build of the
// kernel is caught as incorrect by the worker. Skipped, with the reason, without a device or on a GPU that is not
// sm_90.
#include <span>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "codegen/family.hpp"
#include "codegen/wgmma_family.hpp"
#include "compile/nvrtc_compile.hpp"
#include "device/query.hpp"
#include "store/store.hpp"
#include "support/run_command.hpp"
#include "worker/client.hpp"

using namespace mpgemm;
using namespace mpgemm::testing;

namespace {

constexpr const char* kPoints =
    "wgmma_tile128,wgmma_ws128x256,wgmma_persistent,wgmma_cluster,wgmma_tma_store,wgmma_pingpong";

class TuneWgmma : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!device_available(&why)) GTEST_SKIP() << "no CUDA device: " << why;
    const DeviceInfo info = query_device();
    if (info.arch.cc() != 90) GTEST_SKIP() << "the wgmma family needs an sm_90 GPU; this is " << info.arch.str();
    device_ = info;
    dir_ = fresh_dir("tune_wgmma");
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  // The point compiled as is verifies; compiled with -DMPGEMM_WGMMA_FAULT=fault it is caught as incorrect.
  void expect_fault_caught(const Params& params, int fault);
  // Tunes `space` at each shape: every config verifies (no bad element), or is refused up front with a reason that
  // names k-blocks (split-K at a short K); more than `min_ok` verify per shape.
  void expect_space_verifies(const std::string& space, std::span<const Shape> shapes, int min_ok);
  DeviceInfo device_;
  std::filesystem::path dir_;
};

std::string text(const report::Cell& c) {
  auto* s = std::get_if<std::string>(&c);
  return s ? *s : "";
}

}  // namespace

TEST_F(TuneWgmma, NamedPointsVerifyAtTheIssueShapes) {
  const Shape shapes[] = {{2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 8192}, {3000, 3000, 3000},
                          {1000, 1000, 1000}, {4096, 4096, 256},  {128, 8192, 8192},  {777, 1240, 520}};
  for (const Shape& s : shapes) {
    auto db = (dir_ / fmt::format("{}.db", s.str())).string();
    auto r = run_command(
        fmt::format("cd {} && {} configs/sm90a.json --only {} --M {} --N {} --K {} --no-screen --rerank 0 --db {}",
                    MPGEMM_SOURCE_DIR, bin("mpgemm-tune"), kPoints, s.m, s.n, s.k, db));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    Store st = Store::open(db, Store::Mode::read_only);
    auto t = st.query_sql(
        "SELECT c.alias, m.status, m.message, m.ratio_to_cublas, m.bad_count, m.max_abs_err FROM measurements m "
        "JOIN configs c ON c.id = m.config_id WHERE c.alias IS NOT NULL ORDER BY c.id");
    ASSERT_EQ(t.rows.size(), 6u) << s.str();
    for (const auto& row : t.rows) {
      EXPECT_EQ(text(row[1]), "ok") << text(row[0]) << " at " << s.str() << ": " << text(row[2]);
      if (text(row[1]) != "ok") continue;
      EXPECT_EQ(std::get<std::int64_t>(row[4]), 0) << text(row[0]) << " at " << s.str();
      EXPECT_GT(std::get<double>(row[3]), 0.0);
    }
  }
}

TEST_F(TuneWgmma, LessTravelledCornersVerifyAtARaggedShape) {
  // tests/data/spaces/wgmma_odd_tiles.json: BN 160/208/224, 64-row tiles, one consumer, 64-row pingpong, 2-stage
  // rings, a single TMA-store buffer, clusters along N, one CTA per tile; 777 x 1240 x 520 leaves partial tiles on
  // every side.
  auto db = (dir_ / "odd.db").string();
  auto r = run_command(
      fmt::format("cd {} && {} tests/data/spaces/wgmma_odd_tiles.json --no-cublaslt --no-screen --rerank 0 --db {}",
                  MPGEMM_SOURCE_DIR, bin("mpgemm-tune"), db));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  Store st = Store::open(db, Store::Mode::read_only);
  auto t = st.query_sql(
      "SELECT c.name, m.status, m.message, m.bad_count FROM measurements m JOIN configs c ON c.id = m.config_id");
  EXPECT_EQ(t.rows.size(), 50u);
  for (const auto& row : t.rows) {
    EXPECT_EQ(text(row[1]), "ok") << text(row[0]) << ": " << text(row[2]);
    if (text(row[1]) == "ok") {
      EXPECT_EQ(std::get<std::int64_t>(row[3]), 0) << text(row[0]);
    }
  }
}

TEST_F(TuneWgmma, SplitKVerifiesAtSkinnySmallKWaveQuantisedAndRaggedShapes) {
  // tests/data/spaces/wgmma_split_k.json: 2, 3 and 8 slices, all tiles or the last wave's, stream-K, coop and pingpong,
  // clusters, balanced grids. A config with fewer k-blocks than slices is refused up front, never wrong.
  const Shape shapes[] = {{16, 4096, 4096},   {128, 8192, 8192}, {3000, 3000, 3000},
                          {1000, 1000, 1000}, {4096, 4096, 256}, {777, 1240, 520}};
  expect_space_verifies("tests/data/spaces/wgmma_split_k.json", shapes, 20);
}

TEST_F(TuneWgmma, SwapABVerifiesAtSkinnyAndRaggedShapes) {
  // tests/data/spaces/wgmma_swap_ab.json: C's transpose computed by the wgmmas, 8- to 64-row tiles, coop and
  // pingpong, clusters along M and N, split-K, persistent and per-tile grids. M = 1 and 40 leave most of a tile's
  // rows outside C; 777 x 1240 x 520 leaves partial tiles on every side.
  const Shape shapes[] = {{16, 4096, 4096}, {1, 1240, 520}, {40, 3000, 1000}, {777, 1240, 520}};
  expect_space_verifies("tests/data/spaces/wgmma_swap_ab.json", shapes, 60);
}

TEST_F(TuneWgmma, RowsEpilogueVerifiesAtSquareSkinnyAndRaggedShapes) {
  // tests/data/spaces/wgmma_rows.json: C stored as whole lines after a transpose across each warp, coop with one or
  // two consumers and pingpong, BN 64, 96, 160 and 256, clusters along M and N, persistent and
  // per-tile grids, dependent launches. 777 x 1240 x 520 and 1000^3 leave partial tiles, rows and column groups.
  const Shape shapes[] = {{2048, 2048, 2048}, {3000, 3000, 3000}, {4096, 4096, 256},
                          {128, 8192, 8192},  {1000, 1000, 1000}, {777, 1240, 520}};
  expect_space_verifies("tests/data/spaces/wgmma_rows.json", shapes, 20);
}

TEST_F(TuneWgmma, DependentLaunchesVerifyAtTheIssueShapes) {
  // tests/data/spaces/wgmma_dependent_launch.json: PDL 1 and 2 across schedules, clusters, epilogues, grids, split-K,
  // stream-K and swapped tiles; each verified overlapping an earlier launch of itself, then timed back to back.
  const Shape shapes[] = {{2048, 2048, 2048}, {3000, 3000, 3000}, {1000, 1000, 1000}, {4096, 4096, 256},
                          {128, 8192, 8192},  {16, 4096, 4096},   {512, 512, 512},    {777, 1240, 520}};
  expect_space_verifies("tests/data/spaces/wgmma_dependent_launch.json", shapes, 60);
}

TEST_F(TuneWgmma, L2HintsVerifyAtSquareSkinnySmallKAndRaggedShapes) {
  // tests/data/spaces/wgmma_l2_hints.json: C's stores evict-first (and A's and B's loads evict-last) in all three
  // epilogues, coop and pingpong, clusters multicasting A or B, split-K and stream-K (later slices read C back),
  // swapped tiles. A hint moves lines in the L2; the result must not change.
  const Shape shapes[] = {{2048, 2048, 2048}, {4096, 4096, 256}, {16, 4096, 4096}, {777, 1240, 520}};
  expect_space_verifies("tests/data/spaces/wgmma_l2_hints.json", shapes, 40);
}

TEST_F(TuneWgmma, DeepStagesVerifyAtSmallSkinnySmallKAndRaggedShapes) {
  // tests/data/spaces/wgmma_deep_stages.json: BK 128 and 256 (one 3-D copy of A and one copy per B chunk take 2 or 4
  // k-blocks of 64 per stage) across swapped and unswapped tiles, schedules, epilogues, B multicast, split-K, stream-K,
  // dependent launches and evict-first stores. K = 576 leaves the last stage (of 128 or 256) part outside A and B.
  const Shape shapes[] = {{512, 512, 512}, {16, 4096, 4096}, {4096, 4096, 256}, {777, 1240, 576}};
  expect_space_verifies("tests/data/spaces/wgmma_deep_stages.json", shapes, 40);
}

void TuneWgmma::expect_space_verifies(const std::string& space, std::span<const Shape> shapes, int min_ok) {
  for (const Shape& s : shapes) {
    auto db = (dir_ / fmt::format("space_{}.db", s.str())).string();
    // One cubin cache for every shape: each config is compiled once, not once per shape.
    auto r = run_command(
        fmt::format("cd {} && {} {} --M {} --N {} --K {} --no-cublaslt --no-screen --rerank 0 --db {} --cubin-cache {}",
                    MPGEMM_SOURCE_DIR, bin("mpgemm-tune"), space, s.m, s.n, s.k, db, (dir_ / "cubins").string()));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    Store st = Store::open(db, Store::Mode::read_only);
    auto t = st.query_sql(
        "SELECT c.name, m.status, m.message, m.bad_count FROM measurements m JOIN configs c ON c.id = m.config_id");
    int ok = 0;
    for (const auto& row : t.rows) {
      const std::string status = text(row[1]);
      if (status == "constraint_rejected") {
        EXPECT_NE(text(row[2]).find("k-blocks"), std::string::npos) << text(row[0]) << " at " << s.str();
        continue;
      }
      EXPECT_EQ(status, "ok") << text(row[0]) << " at " << s.str() << ": " << text(row[2]);
      if (status != "ok") continue;
      ++ok;
      EXPECT_EQ(std::get<std::int64_t>(row[3]), 0) << text(row[0]) << " at " << s.str();
    }
    EXPECT_GT(ok, min_ok) << s.str();
  }
}

TEST_F(TuneWgmma, BrokenBuildIsCaughtAsIncorrect) {
  // Points compiled with a test-only fault: MPGEMM_WGMMA_FAULT=1 steps A's descriptor 8 halves along K instead of
  // 16 (the wgmma A, or the wgmma B when swapped); =2 makes every split-K (or stream-K) slice store instead of add;
  // =3 makes the rows epilogue's transpose put each lane's pieces one store instruction off.
  // Either kernel runs to completion and writes every element, so only the comparison with cuBLAS can catch it.
  Params split = WgmmaConfig{}.to_params();
  split["SPLIT_K"] = std::int64_t{4};
  split["SPLIT_MODE"] = std::string("all");
  WgmmaConfig swapped;
  swapped.bm = 16;
  swapped.bn = 128;
  swapped.swap_ab = true;
  Params stream = WgmmaConfig{}.to_params();
  stream["SPLIT_K"] = std::int64_t{1};
  stream["SPLIT_MODE"] = std::string("stream");
  WgmmaConfig rows;
  rows.bn = 128;
  rows.schedule = WgmmaSchedule::pingpong;
  rows.epilogue = WgmmaEpilogue::rows;
  for (const auto& [params, fault] : {std::pair{WgmmaConfig{}.to_params(), 1},
                                      {split, 2},
                                      {swapped.to_params(), 1},
                                      {stream, 2},
                                      {rows.to_params(), 3}}) {
    SCOPED_TRACE(fmt::format("MPGEMM_WGMMA_FAULT={}", fault));
    expect_fault_caught(params, fault);
  }
}

void TuneWgmma::expect_fault_caught(const Params& params, int fault) {
  const Family& fam = family("wgmma");
  const KernelSpec spec = fam.kernel_spec(params, device_.arch);
  CompileOptions broken;
  broken.extra_options = {fmt::format("-DMPGEMM_WGMMA_FAULT={}", fault)};
  for (const auto& [options, expected] : {std::pair{CompileOptions{}, Status::ok}, {broken, Status::incorrect}}) {
    const CompileResult compiled = compile(spec, options);
    ASSERT_EQ(compiled.status, Status::ok) << compiled.log;
    WorkerClient client;
    client.hello();
    const Shape shape{1024, 1024, 1024};
    PrepareShapeRequest prepare;
    prepare.shape = shape;
    prepare.seed = 42;
    prepare.warmup = prepare.runs = prepare.iters = 1;
    prepare.cublaslt = false;
    client.prepare_shape(prepare);
    DeviceDescription device;
    device.name = device_.name;
    device.arch = device_.arch;
    device.sm_count = device_.sm_count;
    device.smem_per_block_optin = device_.smem_per_block_optin;
    MeasureRequest req;
    req.family = "wgmma";
    req.params = params;
    req.cubin = compiled.cubin;
    req.lowered_name = compiled.lowered_name;
    req.geometry = fam.launch_geometry(params, shape, device);
    req.warmup = 1;
    req.runs = 1;
    req.iters = 1;
    const Measurement m = client.measure(req);
    EXPECT_EQ(m.status, expected) << m.message;
    if (expected == Status::incorrect) {
      ASSERT_TRUE(m.error.has_value());
      EXPECT_GT(m.error->bad_count, 0);
      EXPECT_EQ(m.error->nan_count, 0) << "every element was written, only wrongly";
    }
  }
}
