// The library checks every winner when it opens a file (lib/winner_checks.hpp), through Library::open and the C
// API's mpgemm_open alike: an exported file with one damaged entry (parameters no family builds, a duplicate, a
// negative, absurd or underived ratio, a name that is not its parameters') is refused in one line naming the file
// and /entries/N; a results database whose stored winner's name or ratio disagrees with what they derive from is
// refused naming the row. No GPU needed.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "lib/dispatch_policy.hpp"
#include "lib/winner_checks.hpp"
#include "lib/winner_table.hpp"
#include "mpgemm/gemm.h"
#include "mpgemm/gemm.hpp"
#include "support/h200.hpp"
#include "support/old_database.hpp"

using namespace mpgemm;
using namespace mpgemm::lib;
using nlohmann::json;

namespace {

namespace fs = std::filesystem;

const fs::path kDb = fs::path(MPGEMM_SOURCE_DIR) / "tests/data/db/h200_rerank_three_cubes.db";
constexpr const char* kTma4Pers = "wgmma_bm128_bn128_bk64_s5_c2_pingpong_cl1x1_m8_tma4_pers";

// Three sound entries: the recorded H200 database's 2048^3 and 4096^3 re-rank winners as mpgemm-export wrote them,
// and a wmma tuning winner of another device with round rates (ratios 50 / 40 and 50 / 62.5).
json sound_export() {
  return json::parse(R"({
  "format": "mpgemm-export", "version": 1, "generated_by": "mpgemm 0.1.0", "database": "x.db",
  "entries": [
    {"device": "NVIDIA H200", "device_arch": "sm_90", "arch": "sm_90a", "shape": {"M": 2048, "N": 2048, "K": 2048},
     "family": "wgmma", "config": "wgmma_bm128_bn128_bk64_s5_c2_pingpong_cl1x1_m8_tma2_bal",
     "params": {"BM": 128, "BN": 128, "CLUSTER_M": 1, "CLUSTER_N": 1, "CONSUMERS": 2, "C_BUFFERS": 2,
                "EPILOGUE": "tma", "GROUP": 8, "PERSISTENT": 2, "RASTER": "m", "SCHEDULE": "pingpong", "STAGES": 5},
     "tflops": 642.2284810161198, "cublas_tflops": 617.3413760275896, "ratio_cublas": 1.040313359763234,
     "cublaslt_tflops": 648.3948433335675, "ratio_cublaslt": 0.9857729783718491,
     "l2": "warm", "source": "rerank", "command": "mpgemm-run --config wgmma_bm128_bn128_bk64_s5_c2_pingpong_cl1x1_m8_tma2_bal"},
    {"device": "NVIDIA H200", "device_arch": "sm_90", "arch": "sm_90a", "shape": {"M": 4096, "N": 4096, "K": 4096},
     "family": "wgmma", "config": "wgmma_bm128_bn128_bk64_s5_c2_pingpong_cl1x1_m8_tma4_pers",
     "params": {"BM": 128, "BN": 128, "CLUSTER_M": 1, "CLUSTER_N": 1, "CONSUMERS": 2, "C_BUFFERS": 4,
                "EPILOGUE": "tma", "GROUP": 8, "PERSISTENT": 1, "RASTER": "m", "SCHEDULE": "pingpong", "STAGES": 5},
     "tflops": 628.6981842073934, "cublas_tflops": 599.2991748740708, "ratio_cublas": 1.0490556479399462,
     "cublaslt_tflops": 718.8770990048747, "ratio_cublaslt": 0.8792632544549205,
     "l2": "warm", "source": "rerank", "command": "mpgemm-run --config wgmma_bm128_bn128_bk64_s5_c2_pingpong_cl1x1_m8_tma4_pers"},
    {"device": "NVIDIA GeForce RTX 3090", "device_arch": "sm_86", "arch": "sm_86", "shape": {"M": 4096, "N": 4096, "K": 4096},
     "family": "wmma", "config": "wmma_cp_async_bm128_bn64_bk32_s2_w32x32_p8x8",
     "params": {"BM": 128, "BN": 64, "BK": 32, "WM": 32, "WN": 32, "STAGES": 2, "LOAD": "cp_async", "PAD_A": 8, "PAD_B": 8},
     "tflops": 50, "cublas_tflops": 40, "ratio_cublas": 1.25, "cublaslt_tflops": 62.5, "ratio_cublaslt": 0.8,
     "l2": "warm", "source": "tune", "command": "mpgemm-run --config wmma_cp_async_bm128_bn64_bk32_s2_w32x32_p8x8"}]})");
}

// One kind of damage: what it does to the sound file, the entry the refusal must name, and words it must say.
struct Damage {
  std::string name;
  std::function<void(json&)> apply;
  int entry;
  std::string words;
};

std::vector<Damage> damages() {
  return {
      {"wgmma BM = 100000", [](json& j) { j["entries"][1]["params"]["BM"] = 100000; }, 1, "BM=100000"},
      {"wmma BM = 100000", [](json& j) { j["entries"][2]["params"]["BM"] = 100000; }, 2, "family wmma builds"},
      {"duplicate entry", [](json& j) { j["entries"].push_back(j["entries"][1]); }, 3, "(the first is /entries/1)"},
      {"ratio -3", [](json& j) { j["entries"][0]["ratio_cublas"] = -3; }, 0, "ratio_cublas = -3 is not a positive"},
      {"ratio 1e308", [](json& j) { j["entries"][0]["ratio_cublas"] = 1e308; }, 0, "ratio_cublas = 1e+308 is outside"},
      {"ratio disagreeing with tflops", [](json& j) { j["entries"][1]["ratio_cublas"] = 1.2; }, 1,
       "ratio_cublas = 1.2 disagrees with the times it is derived from (cublas_tflops = 599.2992, tflops = "
       "628.6982: 1.049056)"},
      {"name disagreeing with params", [](json& j) { j["entries"][1]["params"]["STAGES"] = 4; }, 1,
       "its name is not the one its params give (wgmma_bm128_bn128_bk64_s4_"},
      {"cuBLASLt ratio of a tuning winner disagreeing", [](json& j) { j["entries"][2]["ratio_cublaslt"] = 0.9; }, 2,
       "ratio_cublaslt = 0.9 disagrees"},
      {"tflops 1e308", [](json& j) { j["entries"][0]["tflops"] = 1e308; }, 0, "tflops = 1e+308 is not a positive"},
      {"negative reference", [](json& j) { j["entries"][2]["cublas_tflops"] = -5; }, 2,
       "cublas_tflops = -5 is not a positive"},
      {"ratio without its reference", [](json& j) { j["entries"][2]["cublas_tflops"] = nullptr; }, 2,
       "ratio_cublas = 1.25 is given without cublas_tflops"},
  };
}

class OpenValidation : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("libcore_open_validation_{}_{}", ::getpid(),
                                                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path write(const std::string& name, const json& j) const {
    const fs::path file = dir_ / name;
    std::ofstream(file) << j.dump(1);
    return file;
  }

  fs::path dir_;
};

// Library::open and mpgemm_open both refuse `file` with one line holding every one of `words`.
void expect_refused(const fs::path& file, const std::vector<std::string>& words) {
  try {
    Library::open(file.string());
    ADD_FAILURE() << "opened " << file;
  } catch (const GemmError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.kind(), GemmError::Kind::open_failed);
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    for (const auto& w : words) EXPECT_NE(what.find(w), std::string::npos) << "no '" << w << "' in: " << what;
  }
  mpgemm_library* lib = nullptr;
  EXPECT_EQ(mpgemm_open(file.c_str(), nullptr, &lib), MPGEMM_OPEN_FAILED);
  EXPECT_EQ(lib, nullptr);
  const std::string error = mpgemm_last_error();
  for (const auto& w : words) EXPECT_NE(error.find(w), std::string::npos) << "no '" << w << "' in: " << error;
  mpgemm_close(lib);
}

TEST_F(OpenValidation, TheSoundExportOpens) {
  const fs::path file = write("sound.json", sound_export());
  EXPECT_EQ(Library::open(file.string()).tuned_shapes(), 3u);
  mpgemm_library* lib = nullptr;
  ASSERT_EQ(mpgemm_open(file.c_str(), nullptr, &lib), MPGEMM_OK) << mpgemm_last_error();
  EXPECT_EQ(mpgemm_tuned_shapes(lib), 3u);
  mpgemm_close(lib);
}

TEST_F(OpenValidation, EachKindOfDamagedEntryRefusesTheFileNamingItsIndex) {
  const std::vector<Damage> all = damages();
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Damage& d = all[i];
    SCOPED_TRACE(d.name);
    json j = sound_export();
    d.apply(j);
    const fs::path file = write(fmt::format("damaged_{}.json", i), j);
    expect_refused(file, {file.string() + ": ", fmt::format("/entries/{} (", d.entry), d.words, "the file is refused"});
  }
}

// The recorded database opens (its winners' names are their params', its ratios their times'); one damaged value
// in a copy refuses it, naming the file.
TEST_F(OpenValidation, ADatabaseWhoseWinnerDisagreesWithItselfIsRefused) {
  EXPECT_EQ(Library::open(kDb.string()).tuned_shapes(), 3u);

  const fs::path ratio = dir_ / "ratio.db";
  fs::copy_file(kDb, ratio);
  mpgemm::testing::raw_exec(ratio, "UPDATE rerank_configs SET ratio_to_cublas = ratio_to_cublas * 1.5 WHERE place = 1");
  expect_refused(ratio, {ratio.string(), "ratio"});

  const fs::path name = dir_ / "name.db";
  fs::copy_file(kDb, name);
  mpgemm::testing::raw_exec(
      name, fmt::format("UPDATE configs SET params = json_set(params, '$.STAGES', 4) WHERE name = '{}'", kTma4Pers));
  expect_refused(name, {name.string(), "params"});
}

// A database from elsewhere is untrusted (issue 57): a view redefined to put the slowest kernel first, or one that
// never ends, is refused from the schema alone, before a winner is read; the file itself is not written. The refusal
// names the file's own version (kDb is at 12), which the check compares against before any migration.
TEST_F(OpenValidation, ADatabaseWithARedefinedViewIsRefusedAtOnce) {
  const fs::path slowest = dir_ / "slowest.db";
  fs::copy_file(kDb, slowest);
  mpgemm::testing::raw_exec(slowest,
                            "DROP VIEW winners; CREATE VIEW winners AS SELECT * FROM (SELECT r.device_name, "
                            "r.device_cc, rc.arch, r.M, r.N, r.K FROM reranks AS r JOIN rerank_configs AS rc ON "
                            "rc.rerank_id = r.id ORDER BY rc.median_ms DESC);");
  expect_refused(slowest, {slowest.string(), "view winners is not the one version 12 defines"});

  const fs::path endless = dir_ / "endless.db";
  fs::copy_file(kDb, endless);
  mpgemm::testing::raw_exec(endless,
                            "DROP VIEW best_per_shape; CREATE VIEW best_per_shape AS WITH RECURSIVE n(i) AS "
                            "(SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT * FROM best, n;");
  const auto start = std::chrono::steady_clock::now();
  expect_refused(endless, {endless.string(), "view best_per_shape is not the one version 12 defines"});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

// The checks of a database's winners name the view row and the view's columns.
TEST_F(OpenValidation, ADatabaseWinnerIsNamedByItsViewRow) {
  std::vector<ShapeWinner> winners = WinnerTable::load(kDb).winners();
  ASSERT_EQ(winners.size(), 3u);
  ASSERT_TRUE(winners[1].from_rerank);
  EXPECT_NO_THROW(check_winners(winners, WinnerSource::database, kDb));
  const auto refusal = [&](const std::vector<ShapeWinner>& w) {
    try {
      check_winners(w, WinnerSource::database, kDb);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  std::vector<ShapeWinner> damaged = winners;
  *damaged[1].ratio_to_cublas *= 1.01;
  std::string what = refusal(damaged);
  for (const char* w : {"database ",
                        "the winners row \"wgmma_bm128_bn128_bk64_s5_c2_pingpong_cl1x1_m8_tma4_pers\" "
                        "for \"NVIDIA H200\" at 4096x4096x4096",
                        "ratio_to_cublas = ", "cublas_median_ms = ", "median_ms = ", "the database is refused"})
    EXPECT_NE(what.find(w), std::string::npos) << "no '" << w << "' in: " << what;

  damaged = winners;
  damaged[2].from_rerank = false;  // as best_per_shape gives it: references as rates
  *damaged[2].ratio_to_cublas *= 1.01;
  what = refusal(damaged);
  for (const char* w : {"the best_per_shape row", "cublas_tflops = "})
    EXPECT_NE(what.find(w), std::string::npos) << "no '" << w << "' in: " << what;

  damaged = winners;
  damaged[2].config_name = kTma4Pers;  // another winner's name over this one's params
  what = refusal(damaged);
  EXPECT_NE(what.find("the name and the params disagree"), std::string::npos) << what;

  damaged = winners;
  damaged.push_back(winners[0]);
  what = refusal(damaged);
  EXPECT_NE(what.find("a second winner for \"NVIDIA H200\" at 2048x2048x2048"), std::string::npos) << what;
}

// A winner whose params its family cannot read (a table built without load's checks) is a reason for the policy
// to pass over it, never an exception that would make plan() fail for every shape of its device.
TEST(WinnerTablePolicy, AWinnerWhoseParamsDoNotReadIsInvalidNotThrown) {
  std::vector<ShapeWinner> winners = WinnerTable::load(kDb).winners();
  ASSERT_EQ(winners.size(), 3u);
  winners[1].params["SCHEDULE"] = std::string("bogus");
  const WinnerTable table(std::move(winners));
  std::vector<std::size_t> indices;
  std::vector<TunedShape> rows;
  ASSERT_NO_THROW(rows = table.policy_rows(mpgemm::testing::h200_description(), Shape{4096, 4096, 4096}, &indices));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_TRUE(rows[1].invalid);
  EXPECT_FALSE(rows[0].invalid);
  const Decision d = decide({4096, 4096, 4096}, rows, {});
  ASSERT_TRUE(d.chosen);
  EXPECT_NE(*d.chosen, 1u) << d.reason;
}

}  // namespace
