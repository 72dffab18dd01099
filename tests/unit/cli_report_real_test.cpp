// mpgemm-report on the H200's own results: a Hopper benchmark database (tests/data/db/h200_wgmma_schema5.db) and
// the WMMA runs kept as CSV (tests/data/wmma/*_measurements.csv, rebuilt into a database by
// tests/support/csv_import.hpp). Where they come from: tests/data/db/README.md, tests/data/wmma/README.md.
#include <gtest/gtest.h>

#include "reliability/replay_fixture.hpp"
#include "support/csv_import.hpp"
#include "support/report_check.hpp"

namespace mpgemm::testing {
namespace {

DeviceDescription h200() {
  DeviceDescription d;
  d.name = "NVIDIA H200";
  d.arch = *Arch::parse("sm_90");
  d.sm_count = 132;
  d.driver_version = d.runtime_version = "13.0";
  d.cublas_version = "13.1.0";
  return d;
}

class ReportRealTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_dir(std::string("report_real_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::filesystem::path dir_;
};

TEST_F(ReportRealTest, TheH200WmmaLadderFromItsCsvs) {
  // The two tuning runs of 2026-11-29: the writeup's space at 2048³, then configs/sm90.json at 2048³ and
  // 4096³.
  const auto db = dir_ / "h200_wmma.db";
  auto done = import_measurements_csv(db, source("tests/data/wmma/sm86_space_2048_measurements.csv"),
                                      source("configs/sm86.json"), h200(), "test import");
  EXPECT_EQ(done.measurements, 133u);
  done = import_measurements_csv(db, source("tests/data/wmma/sm90_space_measurements.csv"), source("configs/sm90.json"),
                                 h200(), "test import");
  EXPECT_EQ(done.measurements, 230u);
  EXPECT_EQ(sql_int(db, "SELECT count(*) FROM runs"), 2);
  // The CSVs' ratios all point at one cuBLAS timing per run and shape: the derived median holds for every
  // row.
  EXPECT_EQ(sql_int(db,
                    "SELECT count(*) FROM measurements AS m JOIN cublas_timings AS t ON t.id = m.cublas_id "
                    "WHERE m.status = 'ok' AND abs(m.ratio_to_cublas * m.median_ms / t.median_ms - 1) > 1e-6"),
            0);

  const auto out = dir_ / "out";
  const auto r = run_report(db, out, "--sections ladder,shapes,roofline");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto numbers = drawn_numbers(out);
  expect_pictures(out, numbers);

  // cuBLAS as each tuning run printed it (results/wmma/tune_sm86_2048.log, tune_sm90.log): the ladder takes
  // the run of the best config, the writeup's space's at 2048³ (0.0567 ms against 0.0571), the sm90 space's
  // at 4096³.
  const std::map<std::int64_t, std::pair<std::int64_t, double>> run_and_cublas{{2048, {1, 0.0270}},
                                                                               {4096, {2, 0.1864}}};
  // README, "Results on the H200" (re-measured by mpgemm-run the same day).
  const std::map<std::int64_t, std::map<std::string, double>> readme{
      {2048, {{"naive", 0.6447}, {"shared", 0.3305}, {"cp_async", 0.1085}, {"best tuned", 0.0567}}},
      {4096, {{"naive", 5.05}, {"shared", 2.62}, {"cp_async", 0.757}, {"best tuned", 0.418}}}};
  for (const std::int64_t size : {2048, 4096}) {
    SCOPED_TRACE(size);
    const auto* ladder = record_for(numbers, "ladder", "NVIDIA H200", {size, size, size});
    ASSERT_NE(ladder, nullptr);
    std::vector<std::string> steps;
    double previous = 0;
    for (const auto& b : (*ladder)["bars"]) {
      const std::string step = b["step"];
      steps.push_back(step);
      EXPECT_GT(b["tflops"].get<double>(), previous) << "the ladder climbs: " << step;
      previous = b["tflops"].get<double>();
      EXPECT_EQ(b["run_id"], run_and_cublas.at(size).first) << step;
      if (step == "cuBLAS") {
        EXPECT_NEAR(b["median_ms"].get<double>(), run_and_cublas.at(size).second, 0.00005);
        continue;
      }
      const auto row = sql_rows(db, fmt::format("SELECT median_ms, run_id FROM measurements WHERE id = {}",
                                                b["measurement_id"].get<std::int64_t>()));
      ASSERT_EQ(row.size(), 1u);
      EXPECT_EQ(b["median_ms"].get<double>(), num(row[0][0])) << step;  // the CSV's row, as recorded
      EXPECT_NEAR(b["median_ms"].get<double>(), readme.at(size).at(step), 0.01 * readme.at(size).at(step)) << step;
    }
    EXPECT_EQ(steps, (std::vector<std::string>{"naive", "shared", "cp_async", "best tuned", "cuBLAS"}));
    EXPECT_NE((*ladder)["notes"].dump().find("cuBLASLt was not measured"), std::string::npos) << (*ladder)["notes"];
  }

  // Both runs measured 2048³: the roofline shows each config once, at its fastest.
  const auto* roof = record_for(numbers, "roofline", "NVIDIA H200", {2048, 2048, 2048});
  ASSERT_NE(roof, nullptr);
  const auto fastest = sql_rows(db,
                                "SELECT c.name, max(m.tflops) FROM measurements AS m JOIN configs AS c ON c.id = "
                                "m.config_id WHERE m.status = 'ok' AND m.M = 2048 GROUP BY c.id");
  ASSERT_EQ((*roof)["points"].size(), fastest.size());
  std::map<std::string, double> drawn;
  for (const auto& p : (*roof)["points"]) drawn[p["config"]] = p["tflops"].get<double>();
  for (const auto& f : fastest) EXPECT_EQ(drawn.at(f[0]), num(f[1])) << f[0];
}

TEST_F(ReportRealTest, OneLadderFromTheNaiveKernelToTheHopperFamily) {
  // The WMMA runs imported into a copy of the Hopper benchmark's database: at 2048³ the ladder climbs from
  // the named points through the WMMA family's best to the wgmma family's, against the best config's
  // cuBLAS(Lt).
  const auto db = dir_ / "h200_all.db";
  std::filesystem::copy_file(source("tests/data/db/h200_wgmma_schema5.db"), db);
  import_measurements_csv(db, source("tests/data/wmma/sm86_space_2048_measurements.csv"), source("configs/sm86.json"),
                          h200(), "test import");
  import_measurements_csv(db, source("tests/data/wmma/sm90_space_measurements.csv"), source("configs/sm90.json"),
                          h200(), "test import");
  const auto out = dir_ / "out";
  const auto r = run_report(db, out, "--sections ladder --shape 2048x2048x2048");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto numbers = drawn_numbers(out);
  expect_pictures(out, numbers);
  const auto* ladder = record_for(numbers, "ladder", "NVIDIA H200", {2048, 2048, 2048});
  ASSERT_NE(ladder, nullptr);
  std::vector<std::string> steps;
  std::map<std::string, nlohmann::json> bars;
  for (const auto& b : (*ladder)["bars"]) {
    steps.push_back(b["step"]);
    bars[b["step"]] = b;
  }
  EXPECT_EQ(steps,
            (std::vector<std::string>{"naive", "shared", "cp_async", "best wmma", "best tuned", "cuBLAS", "cuBLASLt"}));
  double previous = 0;
  for (const char* step : {"naive", "shared", "cp_async", "best wmma", "best tuned"}) {
    EXPECT_GT(bars[step]["tflops"].get<double>(), previous) << step;
    previous = bars[step]["tflops"].get<double>();
  }
  const auto family_best = [&](const char* family) {
    return sql_rows(db, fmt::format("SELECT m.id, m.tflops FROM measurements AS m JOIN configs AS c ON c.id = "
                                    "m.config_id WHERE c.family = '{}' AND m.status = 'ok' AND m.M = 2048 ORDER BY "
                                    "m.median_ms, m.id LIMIT 1",
                                    family))[0];
  };
  const auto wmma = family_best("wmma"), wgmma = family_best("wgmma");
  EXPECT_EQ(bars["best wmma"]["measurement_id"], std::stoll(wmma[0]));
  EXPECT_EQ(bars["best wmma"]["tflops"].get<double>(), num(wmma[1]));
  EXPECT_EQ(bars["best tuned"]["measurement_id"], std::stoll(wgmma[0]));
  EXPECT_EQ(bars["best tuned"]["family"], "wgmma");
  const auto cublas = sql_rows(db,
                               "SELECT t.tflops FROM measurements AS m JOIN cublas_timings AS t ON t.id = "
                               "m.cublas_id WHERE m.id = " +
                                   wgmma[0]);
  EXPECT_EQ(bars["cuBLAS"]["tflops"].get<double>(), num(cublas[0][0]));
  EXPECT_NEAR(bars["naive"]["pct_of_cublas"].get<double>(),
              100 * bars["naive"]["tflops"].get<double>() / num(cublas[0][0]), 1e-9);
  EXPECT_NE((*ladder)["notes"].dump().find("Measured in another run than the best config's"), std::string::npos)
      << (*ladder)["notes"];
}

TEST_F(ReportRealTest, TheHopperBenchmarkDatabase) {
  std::filesystem::create_directories(dir_ / "db");
  const auto db = dir_ / "db" / "sm90a_focus.db";
  std::filesystem::copy_file(source("tests/data/db/h200_wgmma_schema5.db"), db);
  const auto before = folder_contents(db.parent_path());
  const auto out = dir_ / "out";
  const auto r = run_report(db, out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(folder_contents(db.parent_path()), before);
  const auto numbers = drawn_numbers(out);
  expect_pictures(out, numbers);
  // 3 shapes: a ladder, convergence, heat map, spread and roofline each; one outcomes and one shape chart.
  EXPECT_EQ(numbers["sections"]["ladder"]["images"].size(), 3u);
  EXPECT_EQ(numbers["sections"]["params"]["images"].size(), 6u);
  EXPECT_EQ(numbers["sections"]["shapes"]["images"].size(), 1u);
  EXPECT_TRUE(numbers["sections"]["profiles"]["images"].empty());

  // Per shape: the fastest verified config against both references, from the tables.
  const auto expected =
      sql_rows(db,
               "SELECT m.M, c.name, m.tflops, t.tflops, l.tflops FROM measurements AS m JOIN configs AS c ON c.id = "
               "m.config_id JOIN cublas_timings AS t ON t.id = m.cublas_id JOIN cublaslt_timings AS l ON l.id = "
               "m.cublaslt_id WHERE m.id IN (SELECT (SELECT id FROM measurements AS x WHERE x.status = 'ok' AND x.M = "
               "s.M "
               "ORDER BY x.median_ms, x.id LIMIT 1) FROM (SELECT DISTINCT M FROM measurements) AS s) ORDER BY m.M");
  const auto& shapes = numbers["sections"]["shapes"]["numbers"][0]["shapes"];
  ASSERT_EQ(shapes.size(), expected.size());
  ASSERT_EQ(expected.size(), 3u);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(shapes[i]["shape"][0], std::stoll(expected[i][0]));
    EXPECT_EQ(shapes[i]["config"], expected[i][1]);
    EXPECT_EQ(shapes[i]["best_tflops"].get<double>(), num(expected[i][2]));
    EXPECT_EQ(shapes[i]["cublas_tflops"].get<double>(), num(expected[i][3]));
    EXPECT_EQ(shapes[i]["cublaslt_tflops"].get<double>(), num(expected[i][4]));
    EXPECT_NEAR(shapes[i]["ratio_to_cublaslt"].get<double>(), num(expected[i][2]) / num(expected[i][4]), 1e-12);
  }
  // No WMMA points in this database: the ladder says so rather than inventing bars.
  for (const auto& l : numbers["sections"]["ladder"]["numbers"]) {
    EXPECT_EQ(l["bars"].size(), 3u);
    EXPECT_NE(l["notes"].dump().find("wmma_naive: not measured"), std::string::npos);
  }
  EXPECT_NE(r.output.find("No Nsight Compute counters in this database"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace mpgemm::testing
