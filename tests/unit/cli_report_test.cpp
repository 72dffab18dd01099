// mpgemm-report (tools/mpgemm_report, Python + matplotlib) on a recorded database: every picture is a
// sensible PNG, the numbers it drew (numbers.json) equal SQL queries written here from the tables,
// independently of the script; a database with failures only or without cuBLASLt gives notes, not empty
// pictures; the database is left as it was.
#include <gtest/gtest.h>

#include <cmath>

#include "reliability/replay_fixture.hpp"
#include "support/report_check.hpp"

namespace mpgemm::testing {
namespace {

constexpr const char* kDevice = "NVIDIA H200";
const std::vector<std::int64_t> kCube{1024, 1024, 1024};  // cuBLASLt timed here
const std::vector<std::int64_t> kOdd{2048, 512, 1000};    // cuBLASLt recorded without a timing here

std::string shape_where(const std::vector<std::int64_t>& s, const char* alias = "m") {
  return fmt::format("{0}.device_name = '{1}' AND {0}.M = {2} AND {0}.N = {3} AND {0}.K = {4}", alias, kDevice, s[0],
                     s[1], s[2]);
}

class ReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_dir(std::string("report_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_ / "db");
    db_ = dir_ / "db" / "recorded.db";
    make_recorded_db(db_);
    out_ = dir_ / "out";
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // The H200's Nsight Compute CSVs (tests/data/ncu), recorded as profiles of the cube shape.
  void add_profiles() {
    for (const char* label : {"wmma_naive", "wmma_shared", "best", "cublas"}) {
      const auto r = run_command(fmt::format("{} {} {} --label {} --M 1024 --N 1024 --K 1024", bin("mpgemm-profile"),
                                             db_.string(), source(fmt::format("tests/data/ncu/{}.csv", label)), label));
      ASSERT_EQ(r.exit_code, 0) << r.output;
    }
  }

  std::filesystem::path dir_, db_, out_;
};

// The fastest verified measurement of a shape, from the tables: id, tflops, config name, cuBLAS and cuBLASLt
// ids.
std::vector<std::string> fastest(const std::filesystem::path& db, const std::vector<std::int64_t>& s) {
  auto rows = sql_rows(db,
                       "SELECT m.id, m.tflops, c.name, ifnull(m.cublas_id, 'NULL'), ifnull(m.cublaslt_id, 'NULL')"
                       " FROM measurements AS m JOIN configs AS c ON c.id = m.config_id WHERE m.status = 'ok' AND " +
                           shape_where(s) + " ORDER BY m.median_ms, m.id LIMIT 1");
  return rows.empty() ? std::vector<std::string>{} : rows[0];
}

TEST_F(ReportTest, DrawsEveryPictureWithTheDatabasesNumbers) {
  add_profiles();
  const auto before = folder_contents(db_.parent_path());
  const auto r = run_report(db_, out_);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(folder_contents(db_.parent_path()), before) << "the database folder changed (a -wal, -shm or a write)";

  const auto numbers = drawn_numbers(out_);
  expect_pictures(out_, numbers);
  for (const char* section : {"outcomes", "ladder", "shapes", "convergence", "params", "roofline", "profiles"})
    EXPECT_FALSE(numbers["sections"][section]["images"].empty()) << section;

  for (const auto& shape : {kCube, kOdd}) {
    SCOPED_TRACE(fmt::format("{}x{}x{}", shape[0], shape[1], shape[2]));
    const auto best = fastest(db_, shape);
    ASSERT_FALSE(best.empty());
    const double cublas = num(sql_text(db_, "SELECT tflops FROM cublas_timings WHERE id = " + best[3]));
    const auto lt = sql_rows(db_, "SELECT tflops FROM cublaslt_timings WHERE median_ms IS NOT NULL AND id = " +
                                      (best[4] == "NULL" ? std::string("-1") : best[4]));

    // The ladder: best tuned, cuBLAS, cuBLASLt when timed, and each named point's fastest verified
    // measurement.
    const auto* ladder = record_for(numbers, "ladder", kDevice, shape);
    ASSERT_NE(ladder, nullptr);
    std::map<std::string, nlohmann::json> bars;
    for (const auto& b : (*ladder)["bars"]) bars[b["step"]] = b;
    EXPECT_EQ(bars.at("best tuned")["measurement_id"], std::stoll(best[0]));
    EXPECT_EQ(bars.at("best tuned")["tflops"].get<double>(), num(best[1]));
    EXPECT_EQ(bars.at("best tuned")["config"], best[2]);
    EXPECT_EQ(bars.at("cuBLAS")["tflops"].get<double>(), cublas);
    EXPECT_EQ(bars.count("cuBLASLt"), lt.size());
    if (!lt.empty()) {
      EXPECT_EQ(bars.at("cuBLASLt")["tflops"].get<double>(), num(lt[0][0]));
    }
    for (const auto& [step, b] : bars)
      EXPECT_NEAR(b["pct_of_cublas"].get<double>(), 100 * b["tflops"].get<double>() / cublas, 1e-9) << step;
    for (const auto& [step, alias] :
         {std::pair{"naive", "wmma_naive"}, {"shared", "wmma_shared"}, {"cp_async", "wmma_cp_async"}}) {
      const auto point = sql_rows(db_, fmt::format("SELECT m.id, m.tflops FROM measurements AS m JOIN configs AS c "
                                                   "ON c.id = m.config_id WHERE c.alias = '{}' AND m.status = 'ok' "
                                                   "AND {} ORDER BY m.median_ms, m.id LIMIT 1",
                                                   alias, shape_where(shape)));
      ASSERT_EQ(bars.count(step), point.size()) << step;
      if (!point.empty()) {
        EXPECT_EQ(bars.at(step)["measurement_id"], std::stoll(point[0][0])) << step;
      } else {
        EXPECT_NE((*ladder)["notes"].dump().find(alias), std::string::npos) << (*ladder)["notes"];
      }
    }

    // The shape chart: the same three, and the ratios.
    const nlohmann::json* row = nullptr;
    for (const auto& d : numbers["sections"]["shapes"]["numbers"])
      for (const auto& s : d["shapes"])
        if (s["shape"] == nlohmann::json(shape)) row = &s;
    ASSERT_NE(row, nullptr);
    EXPECT_EQ((*row)["best_tflops"].get<double>(), num(best[1]));
    EXPECT_EQ((*row)["cublas_tflops"].get<double>(), cublas);
    EXPECT_NEAR((*row)["ratio_to_cublas"].get<double>(), num(best[1]) / cublas, 1e-12);
    EXPECT_EQ((*row)["cublaslt_tflops"].is_null(), lt.empty());

    // Convergence: the running best after each recorded measurement, and the seconds since the run started.
    const auto* conv = record_for(numbers, "convergence", kDevice, shape);
    ASSERT_NE(conv, nullptr);
    ASSERT_EQ((*conv)["runs"].size(), 1u);
    const auto series =
        sql_rows(db_,
                 "SELECT (julianday(m.created_at) - julianday(r.started_at)) * 86400, ifnull(max(CASE WHEN m.status = "
                 "'ok' THEN m.tflops END) OVER (ORDER BY m.id ROWS UNBOUNDED PRECEDING), 'NULL') FROM measurements AS "
                 "m "
                 "JOIN runs AS r ON r.id = m.run_id WHERE " +
                     shape_where(shape) + " ORDER BY m.id");
    const auto& points = (*conv)["runs"][0]["points"];
    ASSERT_EQ(points.size(), series.size());
    for (std::size_t i = 0; i < series.size(); ++i) {
      EXPECT_EQ(points[i][0], i + 1);
      EXPECT_NEAR(points[i][1].get<double>(), num(series[i][0]), 1e-3);
      if (series[i][1] == "NULL") {
        EXPECT_TRUE(points[i][2].is_null()) << i;
      } else {
        EXPECT_EQ(points[i][2].get<double>(), num(series[i][1])) << i;
      }
    }

    // Parameter effects: best TFLOP/s per (BM, BN) over each config's fastest measurement, and per STAGES
    // value.
    const nlohmann::json* params = nullptr;
    for (const auto& p : numbers["sections"]["params"]["numbers"])
      if (p["shape"] == nlohmann::json(shape) && p["family"] == "wmma") params = &p;
    ASSERT_NE(params, nullptr);
    const std::string per_config =
        "(SELECT c.id, c.params, max(m.tflops) AS t FROM measurements AS m JOIN configs AS c ON c.id = "
        "m.config_id "
        "WHERE m.status = 'ok' AND " +
        shape_where(shape) + " GROUP BY c.id)";
    std::map<std::pair<std::int64_t, std::int64_t>, std::pair<double, std::int64_t>> cells;
    for (const auto& c : sql_rows(db_,
                                  "SELECT json_extract(params, '$.BM'), json_extract(params, '$.BN'), max(t), "
                                  "count(*) FROM " +
                                      per_config + " GROUP BY 1, 2"))
      cells[{std::stoll(c[0]), std::stoll(c[1])}] = {num(c[2]), std::stoll(c[3])};
    const auto& heat = (*params)["heatmap"];
    std::size_t drawn = 0;
    for (std::size_t i = 0; i < heat["row_values"].size(); ++i)
      for (std::size_t j = 0; j < heat["column_values"].size(); ++j) {
        const auto& cell = heat["cells"][i][j];
        const auto key =
            std::pair{heat["row_values"][i].get<std::int64_t>(), heat["column_values"][j].get<std::int64_t>()};
        if (cell["max_tflops"].is_null()) {
          EXPECT_EQ(cells.count(key), 0u);
          continue;
        }
        ++drawn;
        EXPECT_EQ(cell["max_tflops"].get<double>(), cells.at(key).first);
        EXPECT_EQ(cell["configs"], cells.at(key).second);
      }
    EXPECT_EQ(drawn, cells.size());
    const auto stages = sql_rows(db_, "SELECT json_extract(params, '$.STAGES'), count(*), min(t), max(t) FROM " +
                                          per_config + " GROUP BY 1 ORDER BY 1");
    const auto& spread = (*params)["spread"]["STAGES"];
    ASSERT_EQ(spread.size(), stages.size());
    for (std::size_t i = 0; i < stages.size(); ++i) {
      EXPECT_EQ(spread[i]["value"], std::stoll(stages[i][0]));
      EXPECT_EQ(spread[i]["configs"], std::stoll(stages[i][1]));
      EXPECT_EQ(spread[i]["min_tflops"].get<double>(), num(stages[i][2]));
      EXPECT_EQ(spread[i]["max_tflops"].get<double>(), num(stages[i][3]));
    }

    // Roofline: every verified config once (its fastest measurement), at 2MNK / (A read per block column + B
    // per block row + C once). The recording measured each config once per shape.
    const auto* roof = record_for(numbers, "roofline", kDevice, shape);
    ASSERT_NE(roof, nullptr);
    ASSERT_EQ(sql_int(db_,
                      "SELECT count(*) - count(DISTINCT config_id) FROM measurements AS m WHERE m.status = "
                      "'ok' AND " +
                          shape_where(shape)),
              0);
    const auto ok = sql_rows(db_,
                             "SELECT m.id, m.tflops, json_extract(c.params, '$.BM'), json_extract(c.params, "
                             "'$.BN') FROM measurements AS m JOIN configs AS c ON c.id = m.config_id WHERE "
                             "m.status = 'ok' AND " +
                                 shape_where(shape) + " ORDER BY m.id");
    ASSERT_EQ((*roof)["points"].size(), ok.size());
    const double M = static_cast<double>(shape[0]), N = static_cast<double>(shape[1]),
                 K = static_cast<double>(shape[2]);
    for (std::size_t i = 0; i < ok.size(); ++i) {
      const auto& p = (*roof)["points"][i];
      EXPECT_EQ(p["measurement_id"], std::stoll(ok[i][0]));
      EXPECT_EQ(p["tflops"].get<double>(), num(ok[i][1]));
      const double bytes =
          2 * M * K * std::ceil(N / num(ok[i][3])) + 2 * K * N * std::ceil(M / num(ok[i][2])) + 4 * M * N;
      EXPECT_NEAR(p["intensity"].get<double>(), 2 * M * N * K / bytes, 1e-9);
    }
    EXPECT_EQ((*roof)["ceilings"]["bandwidth_tbps"], 4.8);

    // Outcomes: measurements per status.
    const nlohmann::json* counts = nullptr;
    for (const auto& d : numbers["sections"]["outcomes"]["numbers"])
      for (const auto& s : d["shapes"])
        if (s["shape"] == nlohmann::json(shape)) counts = &s["counts"];
    ASSERT_NE(counts, nullptr);
    const auto statuses = sql_rows(
        db_, "SELECT status, count(*) FROM measurements AS m WHERE " + shape_where(shape) + " GROUP BY status");
    EXPECT_EQ(counts->size(), statuses.size());
    for (const auto& s : statuses) EXPECT_EQ((*counts)[s[0]], std::stoll(s[1])) << s[0];
  }

  // Nsight Compute: the newest value of each counter per label, as mpgemm-query --compare shows them.
  const auto* prof = record_for(numbers, "profiles", kDevice, kCube);
  ASSERT_NE(prof, nullptr);
  EXPECT_EQ((*prof)["labels"], nlohmann::json({"wmma_naive", "wmma_shared", "best", "cublas"}));
  std::size_t compared = 0;
  for (const auto& m : (*prof)["metrics"])
    for (const auto& [label, value] : m["values"].items()) {
      ++compared;
      EXPECT_EQ(value.get<double>(),
                num(sql_text(db_, fmt::format("SELECT value FROM profile_metrics WHERE label = '{}' AND metric = '{}' "
                                              "ORDER BY id DESC LIMIT 1",
                                              label, m["metric"].get<std::string>()))))
          << label << " " << m["metric"];
    }
  EXPECT_GE(compared, 4u * 8u) << "the writeup's counters of four kernels";
  EXPECT_NE(bytes_of(out_ / "report.md").find("attributed to the database's only device"), std::string::npos);
}

TEST_F(ReportTest, CountersInUnitsOfDifferentScaleAreDrawnInOne) {
  // ncu writes a slow kernel's duration in ms and a fast one's in us: one panel, one unit (the largest value's).
  add_profiles();
  sql_exec(db_,
           "UPDATE profile_metrics SET unit = 'ms', value = 5.05 WHERE label = 'wmma_naive' AND metric = "
           "'gpu__time_duration.sum'");
  sql_exec(db_,
           "UPDATE profile_metrics SET unit = 'us', value = 189.5 WHERE label = 'best' AND metric = "
           "'gpu__time_duration.sum'");
  sql_exec(db_,
           "UPDATE profile_metrics SET unit = 'ns', value = 27968 WHERE label = 'cublas' AND metric = "
           "'gpu__time_duration.sum'");
  const auto r = run_report(db_, out_, "--sections profiles --metrics gpu__time_duration.sum");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto numbers = drawn_numbers(out_);
  const auto* prof = record_for(numbers, "profiles", kDevice, kCube);
  ASSERT_NE(prof, nullptr);
  const auto& m = (*prof)["metrics"].at(0);
  EXPECT_EQ(m["unit"], "ms");
  EXPECT_DOUBLE_EQ(m["values"]["wmma_naive"].get<double>(), 5.05);
  EXPECT_NEAR(m["values"]["best"].get<double>(), 0.1895, 1e-12);
  EXPECT_NEAR(m["values"]["cublas"].get<double>(), 0.027968, 1e-12);
}

TEST_F(ReportTest, FailuresOnlyGiveNotesNotEmptyPictures) {
  sql_exec(db_,
           "UPDATE measurements SET status = 'timeout', median_ms = NULL, min_ms = NULL, max_ms = NULL, "
           "warmup = NULL, runs = NULL, iters = NULL, tflops = NULL, ratio_to_cublas = NULL, "
           "ratio_to_cublaslt = NULL, message = 'the kernel did not finish' WHERE status = 'ok'");
  ASSERT_EQ(sql_int(db_, "SELECT count(*) FROM measurements WHERE status = 'ok'"), 0);
  const auto r = run_report(db_, out_);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("No verified measurement on NVIDIA H200 at 1024³"), std::string::npos) << r.output;
  const auto numbers = drawn_numbers(out_);
  expect_pictures(out_, numbers);
  // What can be drawn is: the outcomes (all failures) and the references; nothing else is an empty picture.
  EXPECT_EQ(numbers["sections"]["outcomes"]["images"].size(), 1u);
  for (const char* section : {"ladder", "convergence", "params", "roofline"}) {
    EXPECT_TRUE(numbers["sections"][section]["images"].empty()) << section;
    EXPECT_FALSE(numbers["sections"][section]["notes"].empty()) << section;
  }
  const std::string md = bytes_of(out_ / "report.md");
  EXPECT_NE(md.find("no ladder to draw"), std::string::npos);
  EXPECT_NE(md.find("timeout"), std::string::npos) << "the notes say what happened instead";
  EXPECT_NE(md.find("No Nsight Compute counters"), std::string::npos);
}

TEST_F(ReportTest, WithoutCublasLtTheChartsSaySo) {
  // As recorded: cuBLASLt timed at the cube, recorded without a timing (and why) at the other shape.
  auto r = run_report(db_, out_, "--sections shapes,ladder");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string why = sql_text(db_, "SELECT message FROM cublaslt_timings WHERE median_ms IS NULL");
  ASSERT_FALSE(why.empty());
  EXPECT_NE(bytes_of(out_ / "report.md").find("cuBLASLt has no timing on NVIDIA H200 at 2048×512×1000: " + why),
            std::string::npos);

  // A device on which cuBLASLt was never measured: a note, on the chart and in the report, and no cuBLASLt
  // bar.
  sql_exec(db_, "UPDATE measurements SET cublaslt_id = NULL, ratio_to_cublaslt = NULL; DELETE FROM cublaslt_timings");
  r = run_report(db_, out_, "--sections shapes,ladder");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto numbers = drawn_numbers(out_);
  expect_pictures(out_, numbers);
  EXPECT_EQ(numbers["sections"]["shapes"]["images"].size(), 1u);
  for (const auto& s : numbers["sections"]["shapes"]["numbers"][0]["shapes"])
    EXPECT_TRUE(s["cublaslt_tflops"].is_null());
  for (const auto& l : numbers["sections"]["ladder"]["numbers"])
    for (const auto& b : l["bars"]) EXPECT_NE(b["step"], "cuBLASLt");
  EXPECT_NE(numbers["sections"]["shapes"]["notes"].dump().find("cuBLASLt has no timing on NVIDIA H200 at any shape: "
                                                               "it was not measured"),
            std::string::npos)
      << numbers["sections"]["shapes"]["notes"];
}

TEST_F(ReportTest, WhileAWriterHoldsTheDatabaseItReadsTheCommittedRows) {
  // A writer with a committed change still in its -wal (no checkpoint while it stays open): the report must
  // read it, through SQLite's normal read-only mode, and leave the writer's files to the writer. A closed
  // database rests in rollback-journal mode (the store's last writer switches it back); writers use WAL.
  sqlite3* writer = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &writer), SQLITE_OK);
  const auto best = fastest(db_, kCube);
  ASSERT_EQ(sqlite3_exec(writer,
                         ("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; UPDATE measurements SET median_ms "
                          "= median_ms / 2, "
                          "tflops = tflops * 2 WHERE id = " +
                          best[0])
                             .c_str(),
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  ASSERT_TRUE(std::filesystem::exists(db_.string() + "-wal"));
  const auto r = run_report(db_, out_, "--sections ladder");
  sqlite3_close(writer);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto numbers = drawn_numbers(out_);
  const auto* ladder = record_for(numbers, "ladder", kDevice, kCube);
  ASSERT_NE(ladder, nullptr);
  for (const auto& b : (*ladder)["bars"]) {
    if (b["step"] == "best tuned") {
      EXPECT_EQ(b["tflops"].get<double>(), num(best[1]) * 2);
    }
  }
}

// A report written into the folder of an earlier one leaves one report there: the earlier report's pictures that
// this one did not draw are removed (its numbers.json lists them), and files the reports did not write stay.
TEST_F(ReportTest, ARewrittenFolderHoldsOneReport) {
  auto r = run_report(db_, out_, "--sections ladder,roofline");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto first = drawn_numbers(out_);
  ASSERT_FALSE(first["sections"]["roofline"]["images"].empty());
  const std::string roofline = first["sections"]["roofline"]["images"][0];
  ASSERT_TRUE(std::filesystem::exists(out_ / roofline));
  std::ofstream(out_ / "mine.png") << "not the report's";
  r = run_report(db_, out_, "--sections ladder");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out_ / roofline)) << "a picture of the earlier report was left behind";
  for (const auto& img : drawn_numbers(out_)["sections"]["ladder"]["images"])
    EXPECT_TRUE(std::filesystem::exists(out_ / img.get<std::string>())) << img;
  EXPECT_TRUE(std::filesystem::exists(out_ / "mine.png"));
}

TEST_F(ReportTest, ScopeAndRefusals) {
  auto r = run_report(db_, out_, "--shape 2048x512x1000 --sections ladder,roofline");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto numbers = drawn_numbers(out_);
  EXPECT_EQ(numbers["sections"]["ladder"]["numbers"].size(), 1u);
  EXPECT_EQ(numbers["sections"]["ladder"]["numbers"][0]["shape"], nlohmann::json(kOdd));
  EXPECT_EQ(numbers["sections"].size(), 2u);

  r = run_report(db_, out_, "--device 'NVIDIA H100'");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("nothing measured for NVIDIA H100 at any shape (the database has: "), std::string::npos)
      << r.output;
  for (const char* known : {"NVIDIA H200 1024x1024x1024", "NVIDIA H200 2048x512x1000"})
    EXPECT_NE(r.output.find(known), std::string::npos) << r.output;
  r = run_report(db_, out_, "--shape 12x");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = run_report(db_, out_, "--sections ladder,pie");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown section(s) pie"), std::string::npos) << r.output;
  r = run_report(db_, out_, "--sections ladder,roofline,ladder");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("section(s) given twice: ladder"), std::string::npos) << r.output;

  r = run_report(dir_ / "missing.db", out_);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("no such database file"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "missing.db"));
  const auto other = dir_ / "other.db";
  sql_exec(other, "CREATE TABLE t (x)");
  r = run_report(other, out_);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("not an mpgemm results database"), std::string::npos) << r.output;

  r = run_command(bin("mpgemm-report") + " --help");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* word : {"ladder", "roofline", "convergence", "--heatmap", "--shape", "--device", "read-only"})
    EXPECT_NE(r.output.find(word), std::string::npos) << word;
}

// Two problem kinds at one shape (schema 14) are two shapes of the report, each drawn with its own kind's rows: the
// copy of the cube's measurements as mk_nk_bf16_bf16, twice as slow and with no reference of its kind, never lends
// the default kind its configs nor borrows its cuBLAS. --problem keeps one kind.
TEST_F(ReportTest, EachProblemKindIsAShapeOfItsOwn) {
  sql_exec(db_,
           "INSERT INTO measurements (run_id, config_id, compilation_id, result_key, device_name, device_cc, arch, M, "
           "N, K, status, median_ms, min_ms, max_ms, warmup, runs, iters, tflops, message, problem) "
           "SELECT run_id, config_id, compilation_id, result_key || '-linear', device_name, device_cc, arch, M, N, K, "
           "status, 2 * median_ms, 2 * min_ms, 2 * max_ms, warmup, runs, iters, tflops / 2, message, "
           "'mk_nk_bf16_bf16' FROM measurements AS m WHERE " +
               shape_where(kCube));
  const auto cube = fastest(db_, kCube);
  ASSERT_FALSE(cube.empty());
  auto r = run_report(db_, out_, "--shape 1024x1024x1024 --sections shapes");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto rows = drawn_numbers(out_)["sections"]["shapes"]["numbers"][0]["shapes"];
  ASSERT_EQ(rows.size(), 2u) << rows.dump();
  EXPECT_EQ(rows[0]["problem"], "mk_kn_fp16_fp32");  // the default kind first
  EXPECT_EQ(rows[0]["config"], cube[2]);
  EXPECT_NEAR(rows[0]["best_tflops"].get<double>(), std::stod(cube[1]), 1e-9);
  EXPECT_FALSE(rows[0]["cublas_tflops"].is_null());
  EXPECT_EQ(rows[1]["problem"], "mk_nk_bf16_bf16");
  EXPECT_NEAR(rows[1]["best_tflops"].get<double>(), std::stod(cube[1]) / 2, 1e-9);
  EXPECT_TRUE(rows[1]["cublas_tflops"].is_null()) << "a reference of another kind";

  r = run_report(db_, out_, "--problem mk_nk_bf16_bf16 --sections shapes,ladder");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto numbers = drawn_numbers(out_);
  rows = numbers["sections"]["shapes"]["numbers"][0]["shapes"];
  ASSERT_EQ(rows.size(), 1u) << rows.dump();
  EXPECT_EQ(rows[0]["problem"], "mk_nk_bf16_bf16");
  EXPECT_EQ(numbers["scope"]["problem"], "mk_nk_bf16_bf16");
  EXPECT_EQ(numbers["sections"]["ladder"]["numbers"].size(), 1u);

  r = run_report(db_, out_, "--problem km_kn_fp16_fp32_beta");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("of kind km_kn_fp16_fp32_beta"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("NVIDIA H200 1024x1024x1024_mk_nk_bf16_bf16"), std::string::npos) << r.output;
  r = run_report(db_, out_, "--problem mk_kn_fp16_fp64");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("not a problem kind: 'mk_kn_fp16_fp64' is none of the 48 kinds mpgemm-query "
                          "--problem-kinds lists"),
            std::string::npos)
      << r.output;
}

// Where a shape was re-ranked its winner is the re-rank's, as mpgemm-query's best view crowns it: drawn with the
// medians of cuBLAS and cuBLASLt from the same rounds and the re-rank's ratios (what the README's table gives),
// never the first pass's fastest beside first-pass references. Here the re-rank crowns the cube's second-fastest
// config of the first pass, 400 us a launch against cuBLAS's 420 us and cuBLASLt's 410 us in its rounds.
TEST_F(ReportTest, AReRankedShapeIsDrawnWithItsWinnerAndTheRoundsReferences) {
  const auto cube = fastest(db_, kCube);
  ASSERT_FALSE(cube.empty());
  const auto second =
      sql_rows(db_,
               "SELECT c.id, c.name, m.arch FROM measurements AS m JOIN configs AS c ON "
               "c.id = m.config_id WHERE m.status = 'ok' AND " +
                   shape_where(kCube) + " AND c.name <> '" + cube[2] + "' ORDER BY m.median_ms, m.id LIMIT 1");
  ASSERT_EQ(second.size(), 1u);
  sql_exec(db_, fmt::format(
                    "INSERT INTO reranks (id, run_id, device_name, device_cc, M, N, K, top_k, warmup, rounds, iters, "
                    "tie_band, rule, winner_config_id, cublas_median_ms, cublaslt_median_ms, problem) "
                    "SELECT 1, run_id, device_name, device_cc, M, N, K, 2, 1, 10, 5, 0.01, 'rule', {}, 0.42, 0.41, "
                    "problem FROM measurements AS m WHERE m.id = {};"
                    "INSERT INTO rerank_configs (rerank_id, config_id, arch, prior_median_ms, status, samples, "
                    "median_ms, min_ms, max_ms, ratio_to_cublas, ratio_to_cublaslt, tied, place) "
                    "VALUES (1, {}, '{}', 1, 'ok', 10, 0.4, 0.4, 0.4, 0.42 / 0.4, 0.41 / 0.4, 1, 1)",
                    second[0][0], cube[0], second[0][0], second[0][2]));
  auto r = run_report(db_, out_, "--shape 1024x1024x1024 --sections shapes");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto rows = drawn_numbers(out_)["sections"]["shapes"]["numbers"][0]["shapes"];
  ASSERT_EQ(rows.size(), 1u) << rows.dump();
  const double flops = 2.0 * 1024 * 1024 * 1024;
  EXPECT_EQ(rows[0]["chosen_by"], "re-rank");
  EXPECT_EQ(rows[0]["config"], second[0][1]);
  EXPECT_EQ(rows[0]["rerank_id"], 1);
  EXPECT_NEAR(rows[0]["best_tflops"].get<double>(), flops / 0.4e9, 1e-9);
  EXPECT_NEAR(rows[0]["cublas_tflops"].get<double>(), flops / 0.42e9, 1e-9);
  EXPECT_NEAR(rows[0]["cublaslt_tflops"].get<double>(), flops / 0.41e9, 1e-9);
  EXPECT_NEAR(rows[0]["ratio_to_cublas"].get<double>(), 1.05, 1e-12);
  EXPECT_NEAR(rows[0]["ratio_to_cublaslt"].get<double>(), 1.025, 1e-12);
  const std::string md = file_text(out_ / "report.md");
  EXPECT_NE(md.find("| 1024³ | `" + second[0][1] + "` | re-rank |"), std::string::npos) << md;

  // Without a re-rank the first pass's fastest is the winner, and the table says so.
  sql_exec(db_, "DELETE FROM rerank_configs; DELETE FROM reranks");
  r = run_report(db_, out_, "--shape 1024x1024x1024 --sections shapes");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto first = drawn_numbers(out_)["sections"]["shapes"]["numbers"][0]["shapes"];
  EXPECT_EQ(first[0]["chosen_by"], "first pass");
  EXPECT_EQ(first[0]["config"], cube[2]);
  EXPECT_NE(file_text(out_ / "report.md").find("| 1024³ | `" + cube[2] + "` | first pass |"), std::string::npos);
}

}  // namespace
}  // namespace mpgemm::testing
