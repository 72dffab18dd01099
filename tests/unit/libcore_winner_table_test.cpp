// The library's winners (src/lib/winner_table.hpp) read from a recorded H200 database and from the export format,
// and the dispatch policy on them for an H200 description: no GPU needed. The expected winners are the ones the
// database's own views name (sqlite3 ... "SELECT ... FROM winners"), written down here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include <unistd.h>

#include <fmt/format.h>

#include "common/error.hpp"
#include "lib/export_file.hpp"
#include "lib/winner_table.hpp"
#include "mpgemm/gemm.hpp"
#include "support/h200.hpp"

using namespace mpgemm;
using namespace mpgemm::lib;

namespace {

// One H200, Hopper configs at 2048^3, 4096^3, 8192^3, each shape re-ranked: a recorded database cut to the configs
// its re-ranks timed (tests/data/db/README.md).
const std::filesystem::path kDb = std::filesystem::path(MPGEMM_SOURCE_DIR) / "tests/data/db/h200_rerank_three_cubes.db";

DeviceDescription h200() {
  return mpgemm::testing::h200_description();
}

Decision decide_on(const WinnerTable& table, const DeviceDescription& device, const Shape& shape,
                   double min_ratio = 1.0) {
  std::vector<std::size_t> indices;
  const std::vector<TunedShape> rows = table.policy_rows(device, shape, &indices);
  Decision d = decide(shape, rows, {min_ratio});
  if (d.chosen) d.chosen = indices[*d.chosen];  // index into table.winners()
  return d;
}

// Two entries of real Hopper configs (the recorded database's 4096^3 re-rank winner, and its 2048^3 one as a tuning
// winner at another shape), with ratios derived from the rates as the exporter derives them.
constexpr const char* kExport = R"({
  "format": "mpgemm-export", "version": 1, "generated_by": "mpgemm 0.1.0", "database": "x.db",
  "entries": [
    {"device": "NVIDIA H200", "device_arch": "sm_90", "arch": "sm_90a", "shape": {"M": 4096, "N": 4096, "K": 4096},
     "family": "wgmma", "config": "wgmma_bm128_bn128_bk64_s5_c2_pingpong_cl1x1_m8_tma4_pers",
     "params": {"BM": 128, "BN": 128, "CLUSTER_M": 1, "CLUSTER_N": 1, "CONSUMERS": 2, "C_BUFFERS": 4,
                "EPILOGUE": "tma", "GROUP": 8, "PERSISTENT": 1, "RASTER": "m", "SCHEDULE": "pingpong", "STAGES": 5},
     "tflops": 628.6981842073934, "cublas_tflops": 599.2991748740708, "ratio_cublas": 1.0490556479399462,
     "cublaslt_tflops": null, "ratio_cublaslt": null,
     "l2": "warm", "source": "rerank", "command": "mpgemm-run --config wgmma_bm128_bn128_bk64_s5_c2_pingpong_cl1x1_m8_tma4_pers"},
    {"device": "NVIDIA H200", "device_arch": "sm_90", "arch": "sm_90a", "shape": {"M": 128, "N": 8192, "K": 8192},
     "family": "wgmma", "config": "wgmma_bm128_bn128_bk64_s5_c2_pingpong_cl1x1_m8_tma2_bal",
     "params": {"BM": 128, "BN": 128, "CLUSTER_M": 1, "CLUSTER_N": 1, "CONSUMERS": 2, "C_BUFFERS": 2,
                "EPILOGUE": "tma", "GROUP": 8, "PERSISTENT": 2, "RASTER": "m", "SCHEDULE": "pingpong", "STAGES": 5},
     "tflops": 500, "cublas_tflops": 550, "ratio_cublas": 0.9090909090909091,
     "cublaslt_tflops": 560, "ratio_cublaslt": 0.8928571428571429,
     "l2": "warm", "source": "tune", "command": "mpgemm-run --config wgmma_bm128_bn128_bk64_s5_c2_pingpong_cl1x1_m8_tma2_bal"}]})";

}  // namespace

TEST(WinnerTable, ReadsTheRerankWinnerOfEachShapeFromADatabase) {
  const WinnerTable table = WinnerTable::load(kDb);
  ASSERT_EQ(table.winners().size(), 3u);
  const ShapeWinner& w = table.winners()[1];
  EXPECT_EQ(w.device_name, "NVIDIA H200");
  EXPECT_EQ(w.shape, (Shape{4096, 4096, 4096}));
  // The re-rank's winner, not best_per_shape's (wgmma_..._cl2x1_m8_tma2_pers at 0.889x in the tuning pass).
  EXPECT_EQ(w.config_name, "wgmma_bm128_bn128_bk64_s5_c2_pingpong_cl1x1_m8_tma4_pers");
  EXPECT_TRUE(w.from_rerank);
  EXPECT_EQ(w.family, "wgmma");
  EXPECT_EQ(w.arch.str(), "sm_90a");
  ASSERT_TRUE(w.ratio_to_cublas);
  EXPECT_NEAR(*w.ratio_to_cublas, 1.0491, 1e-4);
  ASSERT_TRUE(w.cublas_ms);
  EXPECT_NEAR(*w.cublas_ms / w.median_ms, *w.ratio_to_cublas, 1e-9);
  EXPECT_GT(get_int(w.params, "BM"), 0);
}

TEST(WinnerTable, PolicyOnTheRecordedH200Winners) {
  const WinnerTable table = WinnerTable::load(kDb);
  Decision d = decide_on(table, h200(), {2048, 2048, 2048});
  EXPECT_EQ(d.route, Route::tuned) << d.reason;
  d = decide_on(table, h200(), {3000, 3000, 3000});
  EXPECT_EQ(d.route, Route::nearest) << d.reason;
  ASSERT_TRUE(d.chosen);
  EXPECT_EQ(table.winners()[*d.chosen].shape, (Shape{4096, 4096, 4096}));
  d = decide_on(table, h200(), {8000, 8192, 8000});
  EXPECT_EQ(d.route, Route::nearest) << d.reason;
  ASSERT_TRUE(d.chosen);
  EXPECT_EQ(table.winners()[*d.chosen].shape, (Shape{8192, 8192, 8192}));
  // K = 1001: TMA needs row strides of 16 bytes, so no Hopper winner is valid: cuBLAS, saying why.
  d = decide_on(table, h200(), {4096, 4096, 1001});
  EXPECT_EQ(d.route, Route::cublas) << d.reason;
  EXPECT_NE(d.reason.find("no tuned winner is valid"), std::string::npos) << d.reason;
  // 2048^3's winner is 1.040x cuBLAS: below a bar of 1.045 it is not run.
  EXPECT_EQ(decide_on(table, h200(), {2048, 2048, 2048}, 1.045).route, Route::cublas);
}

TEST(WinnerTable, OtherDevicesAndArchesHaveNothingTuned) {
  const WinnerTable table = WinnerTable::load(kDb);
  DeviceDescription a100 = h200();
  a100.name = "NVIDIA A100-SXM4-80GB";
  a100.arch = Arch{8, 0, false};
  EXPECT_EQ(decide_on(table, a100, {4096, 4096, 4096}).route, Route::cublas);
  // A device of the same name seen as another arch: the family refuses it (check_device).
  DeviceDescription odd = h200();
  odd.arch = Arch{8, 6, false};
  const Decision d = decide_on(table, odd, {4096, 4096, 4096});
  EXPECT_EQ(d.route, Route::cublas);
  EXPECT_NE(d.reason.find("sm_90"), std::string::npos) << d.reason;
}

TEST(WinnerTable, ReadsTheExportFormat) {
  const std::vector<ShapeWinner> w = read_export(kExport, "x.json");
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].config_name, "wgmma_bm128_bn128_bk64_s5_c2_pingpong_cl1x1_m8_tma4_pers");
  EXPECT_EQ(w[0].arch.str(), "sm_90a");
  EXPECT_EQ(w[0].device_cc, "sm_90");
  EXPECT_EQ(w[0].shape, (Shape{4096, 4096, 4096}));
  EXPECT_TRUE(w[0].from_rerank);
  EXPECT_FALSE(w[1].from_rerank);
  EXPECT_NEAR(w[0].tflops(), 628.6981842073934, 1e-9);
  EXPECT_NEAR(*w[0].ratio_to_cublas, 1.0490556479399462, 1e-12);
  EXPECT_FALSE(w[0].cublaslt_ms);
  EXPECT_FALSE(w[0].ratio_to_cublaslt);
  EXPECT_NEAR(*w[1].ratio_to_cublaslt, 0.8928571428571429, 1e-12);
  EXPECT_EQ(get_string(w[0].params, "EPILOGUE"), "tma");
  EXPECT_EQ(get_int(w[1].params, "C_BUFFERS"), 2);
}

TEST(WinnerTable, RefusesWhatIsNotAVersion1Export) {
  EXPECT_THROW(read_export("[1, 2", "bad.json"), Error);
  EXPECT_THROW(read_export(R"({"format": "other", "version": 1, "entries": []})", "f.json"), Error);
  EXPECT_THROW(read_export(R"({"format": "mpgemm-export", "version": 2, "entries": []})", "v.json"), Error);
  try {
    read_export(R"({"format": "mpgemm-export", "version": 1, "generated_by": "t", "database": "d",
                    "entries": [{"device": "X"}]})",
                "e.json");
    FAIL() << "a missing field was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("e.json: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("/entries/0"), std::string::npos) << e.what();
  }
}

TEST(WinnerTable, LoadTellsADatabaseFromAnExportByContent) {
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("libcore_winner_table_{}", ::getpid());
  std::filesystem::create_directories(dir);
  const auto file = dir / "winners.db";  // a JSON file whatever its name says
  std::ofstream(file) << kExport;
  EXPECT_EQ(WinnerTable::load(file).winners().size(), 2u);
  std::filesystem::remove_all(dir);
}

TEST(Library, OpenFailsWithATypedError) {
  try {
    Library::open("/nonexistent/results.db");
    FAIL() << "opened a missing file";
  } catch (const GemmError& e) {
    EXPECT_EQ(e.kind(), GemmError::Kind::open_failed);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/results.db"), std::string::npos) << e.what();
  }
}

TEST(Library, OpensAnOlderSchemaLeavingTheFileAsItWas) {
  // A schema 5 database: read through a migrated copy in memory; the committed file is not written.
  const std::string path = std::string(MPGEMM_SOURCE_DIR) + "/tests/data/db/h200_wgmma_schema5.db";
  const auto bytes = [&] {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string before = bytes();
  const Library lib = Library::open(path);
  EXPECT_GT(lib.tuned_shapes(), 0u);
  EXPECT_EQ(bytes(), before);
  EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
}

TEST(Library, OpensADatabaseWithoutAGpu) {
  const Library lib = Library::open(kDb.string());
  EXPECT_EQ(lib.tuned_shapes(), 3u);
  EXPECT_EQ(lib.path(), kDb.string());
  EXPECT_EQ(Library::last_dispatch(), nullptr);
  EXPECT_STREQ(to_string(Path::nearest), "nearest");
}
