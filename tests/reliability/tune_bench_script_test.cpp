// The benchmark scripts in tools/ without a GPU: their tuning runs replay a recorded database, and where a step
// needs a GPU (mpgemm-run) a stand-in prints what it would. tools/hopper_bench.sh: one run when the space lists
// the benchmark's shapes, one per shape otherwise, the markdown table from mpgemm-query with both references, the
// CSVs and logs beside it, and a non-zero exit naming the step when something fails; tools/suite_bench.sh,
// tools/paired_rerank.sh and tools/tune_bench.sh's A/A step below; tools/scale_bench.sh's comparison of two
// databases' winners.
#include <gtest/gtest.h>

#include "replay_fixture.hpp"
#include "support/export_fixture.hpp"

namespace mpgemm::testing {
namespace {

class ReliabilityBenchScript : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_dir(std::string("bench_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    // The replay space with two cube shapes, as the benchmark's sizes.
    std::string text = file_text(replay_space());
    const std::string shapes = R"("shapes": [{"M": 1024, "N": 1024, "K": 1024}, {"M": 2048, "N": 512, "K": 1000}])";
    const auto at = text.find(shapes);
    ASSERT_NE(at, std::string::npos) << "the replay space's shapes changed; update this test";
    text.replace(at, shapes.size(), R"("shapes": [{"M": 256, "N": 256, "K": 256}, {"M": 512, "N": 512, "K": 512}])");
    space_ = dir_ / "cubes.json";
    std::ofstream(space_) << text;
    recorded_ = dir_ / "recorded.db";
    make_recorded_db(recorded_, space_.string());
    out_ = dir_ / "out";
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  CommandResult bench(const std::string& sizes, const std::string& space) {
    return run_command(
        fmt::format("OUT={} MPGEMM_BIN={} MPGEMM_BENCH_SIZES='{}' MPGEMM_BENCH_RERUN=0 MPGEMM_BENCH_PAIRED=0 {} {} -- "
                    "--replay {}",
                    out_.string(), std::string(MPGEMM_BINARY_DIR) + "/bin", sizes, source("tools/hopper_bench.sh"),
                    space, recorded_.string()));
  }

  // tools/tune_bench.sh's tools in dir_/bin: the real mpgemm-tune, -query and -worker, and a stand-in mpgemm-run
  // that prints the re-rank a GPU would: the first call the winner at 0.500 ms, 1.050x cuBLAS, every later call
  // `second` at 0.503 ms, 1.045x, and a config named by --rerank-also at 0.510 ms; a note like the real one's,
  // commas and all, follows. An empty `second` prints the header alone (and the --rerank-also row), as a re-rank
  // with nothing else timed ok would. Each call appends its arguments to run_args.txt.
  std::filesystem::path tune_bench_tools(const std::string& second) {
    const std::filesystem::path bin = dir_ / "bin";
    std::filesystem::create_directories(bin);
    for (const char* tool : {"mpgemm-tune", "mpgemm-query", "mpgemm-worker"})
      if (!std::filesystem::exists(bin / tool))
        std::filesystem::create_symlink(std::string(MPGEMM_BINARY_DIR) + "/bin/" + tool, bin / tool);
    const std::string calls = (dir_ / "calls").string(), args_file = (dir_ / "run_args.txt").string();
    std::ofstream run(bin / "mpgemm-run");
    run << "#!/bin/sh\n"
        << "echo \"$*\" >>\"" << args_file << "\"\n"
        << "n=$(cat \"" << calls << "\" 2>/dev/null || echo 0); n=$((n + 1)); echo $n >\"" << calls << "\"\n"
        << "echo place,config,arch,status,tied,median_ms,ratio_to_cublas,ratio_to_cublaslt,samples,registers,"
           "threads,smem_bytes,message\n"
        << "if [ $n -eq 1 ]; then echo '1,cfg_a,sm_90a,ok,0,0.500,1.050,,20,168,384,1000,'; "
        << "elif [ -n '" << second << "' ]; then echo '1," << second
        << ",sm_90a,ok,0,0.503,1.045,,20,168,384,1000,'; fi\n"
        << "also=$(echo \"$*\" | sed -n 's/.*--rerank-also \\([^ ]*\\).*/\\1/p')\n"
        << "[ -z \"$also\" ] || echo \"2,$also,sm_90a,ok,0,0.510,1.029,,20,168,384,1000,\"\n"
        << "echo 'note: re-rank of 512x512x512: cfg_a wins over 1 re-timed config(s), 1 within the 1% tie band'\n";
    run.close();
    std::filesystem::permissions(bin / "mpgemm-run", std::filesystem::perms::owner_all);
    std::filesystem::remove(calls);
    std::filesystem::remove(args_file);
    return bin;
  }

  std::filesystem::path dir_, space_, recorded_, out_;
};

TEST_F(ReliabilityBenchScript, TunesTheListedShapesOnceAndPrintsTheTable) {
  const auto r = bench("256 512", space_.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The space lists exactly the sizes: one tuning run for both.
  EXPECT_TRUE(std::filesystem::exists(out_ / "cubes_tune.log"));
  EXPECT_FALSE(std::filesystem::exists(out_ / "cubes_tune_256.log"));
  EXPECT_EQ(sql_int(out_ / "cubes.db", "SELECT count(*) FROM runs"), 1);
  EXPECT_EQ(sql_int(out_ / "cubes.db", "SELECT count(*) FROM cublaslt_timings"), 2);

  // The table: per shape the best config, its TFLOP/s, both references' and both ratios.
  const std::string table = file_text(out_ / "cubes_bench.md");
  EXPECT_NE(r.output.find(table), std::string::npos) << "the table is printed too";
  for (const char* column :
       {"config_name", "tflops", "cublas_tflops", "cublaslt_tflops", "ratio_to_cublas", "ratio_to_cublaslt"})
    EXPECT_NE(table.find(column), std::string::npos) << column << "\n" << table;
  const auto best =
      sql_rows(out_ / "cubes.db", "SELECT M, config_name, ratio_to_cublaslt FROM best_per_shape ORDER BY M");
  ASSERT_EQ(best.size(), 2u);
  EXPECT_EQ(best[0][0], "256");
  EXPECT_EQ(best[1][0], "512");
  for (const auto& row : best) EXPECT_NE(table.find(row[1]), std::string::npos) << row[1] << "\n" << table;
  EXPECT_NE(best[0][2], "NULL");  // the recording timed cuBLASLt on its first shape
  EXPECT_EQ(table.find("## Problems"), std::string::npos) << table;

  for (const char* csv : {"best_per_shape", "best", "references", "measurements", "failures", "compilations", "runs"})
    EXPECT_GT(std::filesystem::file_size(out_ / fmt::format("cubes_{}.csv", csv)), 0u) << csv;
  EXPECT_EQ(file_text(out_ / "cubes_best_per_shape.csv").substr(0, 20), "M,N,K,config_name,ar");
}

TEST_F(ReliabilityBenchScript, OtherSizesAreTunedOneShapeAtATime) {
  const auto r = bench("512", space_.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(std::filesystem::exists(out_ / "cubes_tune_512.log"));
  EXPECT_EQ(sql_int(out_ / "cubes.db", "SELECT count(*) FROM measurements WHERE M <> 512"), 0);
  EXPECT_GT(sql_int(out_ / "cubes.db", "SELECT count(*) FROM measurements WHERE M = 512"), 0);
}

TEST_F(ReliabilityBenchScript, FailuresAreNamedAndExitNonZero) {
  auto r = bench("256", (dir_ / "missing.json").string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("no search space at"), std::string::npos) << r.output;

  r = bench("25x", space_.string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("positive integers"), std::string::npos) << r.output;

  // 128^3 was never recorded: the replay has nothing for it, the tuning step fails and is named, the shape
  // with data still gets its row, and the exit status says something went wrong.
  r = bench("128 256", space_.string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("tune " + space_.string() + " at 128^3 FAILED"), std::string::npos) << r.output;
  const std::string table = file_text(out_ / "cubes_bench.md");
  EXPECT_NE(table.find("## Problems"), std::string::npos) << table;
  EXPECT_NE(table.find("no verified config at 128^3"), std::string::npos) << table;
  EXPECT_EQ(sql_int(out_ / "cubes.db", "SELECT count(*) FROM best_per_shape WHERE M = 256"), 1);
}

// tools/suite_bench.sh under replay: where the recording timed cuBLASLt (256^3) the re-rank has it in its rounds, and
// the winner's ratio to it is the re-rank's own ("re-rank"); where cuBLASLt never verified (512^3) there is none.
// Tuned with --no-cublaslt, the re-rank has no cuBLASLt and the ratio falls back to the start timings, labelled so.
TEST_F(ReliabilityBenchScript, SuiteBenchTakesCublasLtFromTheRerank) {
  const auto suite = [&](const std::filesystem::path& out, const std::string& extra) {
    return run_command(fmt::format("OUT={} MPGEMM_BIN={} {} {} 256x256x256,512x512x512 -- --replay {} {}", out.string(),
                                   std::string(MPGEMM_BINARY_DIR) + "/bin", source("tools/suite_bench.sh"),
                                   space_.string(), recorded_.string(), extra));
  };
  const auto row = [](const std::string& table, const std::string& shape) {
    const auto at = table.find("| " + shape + " |");
    return at == std::string::npos ? std::string() : table.substr(at, table.find('\n', at) - at);
  };
  const auto in_rounds = dir_ / "suite";
  auto r = suite(in_rounds, "");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto db = in_rounds / "suite.db";
  EXPECT_GT(sql_int(db,
                    "SELECT count(*) FROM rerank_samples WHERE reference = 'cublaslt' AND rerank_id IN "
                    "(SELECT id FROM reranks WHERE M = 256)"),
            0);
  const std::string lt = sql_text(db, "SELECT printf('%.3f', ratio_to_cublaslt) FROM winners WHERE M = 256");
  ASSERT_FALSE(lt.empty());
  std::string table = file_text(in_rounds / "suite_bench.md");
  std::string line = row(table, "256x256x256");
  EXPECT_NE(line.find("| " + lt + " |"), std::string::npos) << table;
  EXPECT_TRUE(line.ends_with("| re-rank |")) << table;
  line = row(table, "512x512x512");
  EXPECT_NE(line.find("| - |"), std::string::npos) << table;  // cuBLASLt never verified there
  EXPECT_TRUE(line.ends_with("| re-rank |")) << table;

  const auto scaled = dir_ / "suite_scaled";
  r = suite(scaled, "--no-cublaslt");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(sql_int(scaled / "suite.db", "SELECT count(*) FROM reranks WHERE cublaslt_median_ms IS NOT NULL"), 0);
  table = file_text(scaled / "suite_bench.md");
  EXPECT_TRUE(row(table, "256x256x256").ends_with("| re-rank, Lt scaled |")) << table;
  EXPECT_TRUE(row(table, "512x512x512").ends_with("| re-rank |")) << table;
}

// tools/paired_rerank.sh with the real mpgemm-query and a stand-in mpgemm-run that prints the row a paired
// re-timing would: the script picks the fastest configs of the shape from SQL, passes --paired and the extra
// arguments, and takes each ratio as cublas_ms / ms.
TEST_F(ReliabilityBenchScript, PairedRerankRetimesTheFastestAndDividesTheirPairedTimes) {
  ASSERT_EQ(bench("256", space_.string()).exit_code, 0);
  const auto top = sql_rows(out_ / "cubes.db",
                            "SELECT c.name FROM measurements m JOIN configs c ON c.id = m.config_id WHERE m.M = 256 "
                            "AND m.status = 'ok' GROUP BY c.name ORDER BY MIN(m.median_ms) LIMIT 2");
  ASSERT_EQ(top.size(), 2u);
  const std::filesystem::path bin = dir_ / "bin";
  std::filesystem::create_directories(bin);
  std::filesystem::create_symlink(std::string(MPGEMM_BINARY_DIR) + "/bin/mpgemm-query", bin / "mpgemm-query");
  {
    // Echoes its arguments to a file; the config runs in 0.5 ms and its paired cuBLAS in 0.55 ms.
    std::ofstream run(bin / "mpgemm-run");
    run << "#!/bin/sh\n"
        << "echo \"$*\" >>\"" << (dir_ / "run_args.txt").string() << "\"\n"
        << "while [ $# -gt 0 ]; do [ \"$1\" = --config ] && name=\"$2\"; shift; done\n"
        << "echo kernel,config,status,ms,GFLOPS,pct_cublas,pct_cublaslt,gain,max_abs_err,max_rel_err,cublas_ms\n"
        << "echo \"$name,$name,ok,0.5,1,110,,,0,0,0.55\"\n";
  }
  std::filesystem::permissions(bin / "mpgemm-run", std::filesystem::perms::owner_all);
  const auto r = run_command(fmt::format(
      "OUT={} MPGEMM_BIN={} MPGEMM_PAIRED_RUNS=7 MPGEMM_PAIRED_ARGS='--warmup 99' {} {} 256 256 256 2",
      (dir_ / "paired").string(), bin.string(), source("tools/paired_rerank.sh"), (out_ / "cubes.db").string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string csv = file_text(dir_ / "paired" / "paired_256x256x256.csv");
  EXPECT_NE(csv.find(top[0][0] + ",ok,0.5,0.55,1.1000"), std::string::npos) << csv;
  EXPECT_NE(csv.find(top[1][0] + ",ok,0.5,0.55,1.1000"), std::string::npos) << csv;
  const std::string args = file_text(dir_ / "run_args.txt");
  EXPECT_NE(args.find("--paired --runs 7"), std::string::npos) << args;
  EXPECT_NE(args.find("--warmup 99"), std::string::npos) << args;
  EXPECT_NE(args.find("--M 256 --N 256 --K 256"), std::string::npos) << args;
  const std::string md = file_text(dir_ / "paired" / "paired_256x256x256.md");
  EXPECT_NE(md.find("| " + top[0][0] + " | ok | 0.5 | 0.55 | 1.1000 |"), std::string::npos) << md;

  // A shape with nothing verified is refused, naming it.
  const auto none =
      run_command(fmt::format("OUT={} MPGEMM_BIN={} {} {} 999 999 999", (dir_ / "paired").string(), bin.string(),
                              source("tools/paired_rerank.sh"), (out_ / "cubes.db").string()));
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.output.find("no verified config at 999x999x999"), std::string::npos) << none.output;
}

// tools/tune_bench.sh's A/A step with the real mpgemm-tune (replaying the recording) and a stand-in mpgemm-run
// that prints the re-rank a GPU would: the winner at the space's middle shape re-ranked with cuBLAS by two
// processes, judged on its time, and refused when the two re-ranked different configs.
TEST_F(ReliabilityBenchScript, TuneBenchTimesTheWinnerInTwoRerankProcesses) {
  std::filesystem::path bin = tune_bench_tools("cfg_a");
  const auto tune_bench = [&] {
    return run_command(
        fmt::format("OUT={} MPGEMM_BIN={} MPGEMM_BENCH_HOPPER={} MPGEMM_BENCH_WARM=0 "
                    "MPGEMM_BENCH_AA_ROUNDS=7 MPGEMM_BENCH_AA_REST=0 MPGEMM_BENCH_ARGS='--replay {}' {} hopper",
                    out_.string(), bin.string(), space_.string(), recorded_.string(), source("tools/tune_bench.sh")));
  };
  const auto r = tune_bench();
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string table = file_text(out_ / "tune_bench.md");
  EXPECT_NE(table.find("A/A at 512^3, `cfg_a` re-ranked with cuBLAS in balanced rounds: 0.5000 ms (1.050x cuBLAS), "
                       "then 0.5030 ms (1.045x); ratio -0.48%"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("within +-1% (+0.60%) | PASS |"), std::string::npos) << table;
  const std::string args = file_text(dir_ / "run_args.txt");
  for (const char* arg : {"--rerank 1 ", "--rounds 7 ", "--M 512 --N 512 --K 512 "})
    EXPECT_NE(args.find(arg), std::string::npos) << arg << "\n" << args;
  const std::string aa_log = file_text(out_ / "aa.log");
  for (const char* rest : {"A/A process 1: resting 0 s first", "A/A process 2: resting 0 s first"})
    EXPECT_NE(aa_log.find(rest), std::string::npos) << aa_log;
  // Each process re-ranks its own copy of the tuned database, which keeps its own winner.
  EXPECT_NE(args.find("--db " + (out_ / "aa_1.db").string() + " "), std::string::npos) << args;
  EXPECT_NE(args.find("--db " + (out_ / "aa_2.db").string() + " "), std::string::npos) << args;
  const std::string measured = "SELECT count(*) FROM measurements";
  EXPECT_EQ(sql_int(out_ / "aa_1.db", measured), sql_int(out_ / "hopper.db", measured));

  // Two processes that re-ranked different configs are no A/A.
  bin = tune_bench_tools("cfg_b");
  const auto other = tune_bench();
  EXPECT_EQ(other.exit_code, 1) << other.output;
  EXPECT_NE(other.output.find("re-ranked different configs (cfg_a, cfg_b)"), std::string::npos) << other.output;

  // A process that timed nothing is named, after the rows of the tuning runs.
  bin = tune_bench_tools("");
  const auto none = tune_bench();
  EXPECT_EQ(none.exit_code, 1) << none.output;
  EXPECT_NE(none.output.find("gave no time or no ratio to cuBLAS"), std::string::npos) << none.output;
  EXPECT_NE(none.output.find("| hopper | cold |"), std::string::npos) << none.output;
}

// tools/tune_bench.sh's warm runs under replay (the recording holds the old shapes and the new ones), in a second
// call that reuses the first call's cold run: the new shapes are the old ones with M doubled and N halved (kept at
// 256 here, so these do twice the work); the model-guided run starts from a copy of the cold database,
// measures its budget (a share of the space, rounded down) per shape, and its winners are placed in the exhaustive
// warm run's times, which the row reports.
TEST_F(ReliabilityBenchScript, TuneBenchTunesNewShapesOfTheSameWorkWarmAndModelGuided) {
  // 256^3 -> 512x256x256 (N halved to 128, kept at 256), 512^3 -> 1024x256x512.
  std::string text = file_text(space_);
  const std::string cubes = R"("shapes": [{"M": 256, "N": 256, "K": 256}, {"M": 512, "N": 512, "K": 512}])";
  const auto at = text.find(cubes);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, cubes.size(),
               R"("shapes": [{"M": 256, "N": 256, "K": 256}, {"M": 512, "N": 512, "K": 512}, )"
               R"({"M": 512, "N": 256, "K": 256}, {"M": 1024, "N": 256, "K": 512}])");
  const auto all_space = dir_ / "all.json";
  std::ofstream(all_space) << text;
  const auto all_recorded = dir_ / "all_recorded.db";
  const RecordedDb rec = make_recorded_db(all_recorded, all_space.string());
  const std::filesystem::path bin = tune_bench_tools("cfg_a");
  // A third of the space per shape: enough picks that some verified among the recording's failures.
  const auto tune_bench = [&](const std::string& env) {
    return run_command(fmt::format(
        "OUT={} MPGEMM_BIN={} MPGEMM_BENCH_HOPPER={} MPGEMM_BENCH_AA_ROUNDS=7 MPGEMM_BENCH_VERDICT_ROUNDS=9 "
        "MPGEMM_BENCH_AA_REST=0 "
        "MPGEMM_BENCH_MODEL_SHARE=0.34 MPGEMM_BENCH_ARGS='--replay {}' {} {} hopper",
        out_.string(), bin.string(), space_.string(), all_recorded.string(), env, source("tools/tune_bench.sh")));
  };
  // Reusing a cold run that never ran is refused, naming what is missing.
  auto r = tune_bench("MPGEMM_BENCH_REUSE_COLD=1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("MPGEMM_BENCH_REUSE_COLD=1 needs an earlier cold run's"), std::string::npos) << r.output;
  // One call runs the cold step alone, the next reuses it for the warm ones.
  r = tune_bench("MPGEMM_BENCH_WARM=0 MPGEMM_BENCH_AA=0");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string cold_table = file_text(out_ / "tune_bench.md");
  EXPECT_EQ(cold_table.find("warm"), std::string::npos) << cold_table;
  EXPECT_FALSE(std::filesystem::exists(out_ / "aa.csv")) << "MPGEMM_BENCH_AA=0 runs no A/A";
  const std::string cold_log = file_text(out_ / "hopper_cold.log");
  r = tune_bench("MPGEMM_BENCH_REUSE_COLD=1 MPGEMM_BENCH_MODEL_RERANK=0");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(sql_int(out_ / "hopper.db", "SELECT count(*) FROM runs"), 1) << "the cold run ran again";
  EXPECT_EQ(file_text(out_ / "hopper_cold.log"), cold_log);
  const std::string cold_row = cold_table.substr(cold_table.find("| hopper | cold |"));
  EXPECT_NE(file_text(out_ / "tune_bench.md").find(cold_row.substr(0, cold_row.find('\n'))), std::string::npos);
  const std::string warm_space = file_text(out_ / "hopper_warm.json");
  EXPECT_NE(warm_space.find("\"M\": 512,\n   \"N\": 256,\n   \"K\": 256"), std::string::npos) << warm_space;
  EXPECT_NE(warm_space.find("\"M\": 1024,\n   \"N\": 256,\n   \"K\": 512"), std::string::npos) << warm_space;

  const std::string table = file_text(out_ / "tune_bench.md");
  const std::size_t configs = rec.candidates, budget = configs * 34 / 100;
  ASSERT_GE(budget, 1u);
  EXPECT_NE(table.find(fmt::format("| hopper | warm (cached cubins, new shapes of the same work) | {} |", 2 * configs)),
            std::string::npos)
      << table;
  const std::string model_row = fmt::format(
      "| hopper | warm, model-guided ({} configs per shape, {:.0f}% of the space; prior: the cold run's "
      "database) | {} |",
      budget, 100.0 * static_cast<double>(budget) / static_cast<double>(configs), 2 * budget);
  EXPECT_NE(table.find(model_row), std::string::npos) << table;
  EXPECT_NE(file_text(out_ / "hopper_model.log").find("starts from"), std::string::npos) << "no prior was used";
  // The copy of the cold database keeps the cold run; the model-guided run added one run at the new shapes only.
  const auto model_db = out_ / "hopper_model.db";
  EXPECT_EQ(sql_int(model_db, "SELECT count(*) FROM runs"), 2);
  EXPECT_EQ(sql_int(model_db, "SELECT count(*) FROM measurements WHERE run_id = 2 AND M = N"), 0);
  EXPECT_LE(sql_int(model_db, "SELECT count(*) FROM measurements WHERE run_id = 2"),
            static_cast<std::int64_t>(2 * budget));

  // Each new shape's line: the model run's fastest config, and its excess over the optimum of the warm run.
  EXPECT_EQ(sql_int(model_db, "SELECT count(*) FROM reranks"), 0)
      << "with MPGEMM_BENCH_MODEL_RERANK=0 it re-ranks nothing";
  const std::string quality = file_text(out_ / "hopper_model_quality.txt");
  double worst = 0;
  for (const char* shape : {"512x256x256", "1024x256x512"}) {
    const auto where = fmt::format("m.M || 'x' || m.N || 'x' || m.K = '{}' AND m.status = 'ok'", shape);
    const std::string picked = sql_text(model_db,
                                        "SELECT c.name FROM measurements m JOIN configs c ON c.id = "
                                        "m.config_id WHERE m.run_id = 2 AND " +
                                            where + " ORDER BY m.median_ms LIMIT 1");
    ASSERT_FALSE(picked.empty()) << shape;
    const auto warm_db = out_ / "hopper_warm.db";
    const double best = std::stod(sql_text(warm_db, "SELECT MIN(median_ms) FROM measurements m WHERE " + where));
    const double mine = std::stod(sql_text(warm_db,
                                           "SELECT m.median_ms FROM measurements m JOIN configs c ON "
                                           "c.id = m.config_id WHERE c.name = '" +
                                               picked + "' AND " + where));
    const double excess = 100 * (mine / best - 1);
    worst = std::max(worst, excess);
    EXPECT_NE(quality.find(fmt::format("{} {} {:+.2f}%", shape, picked, excess)), std::string::npos) << quality;
  }
  // The verdict: each pick re-ranked beside the warm run's five fastest on a copy of its database (the stand-in
  // times the pick at 0.510 ms against 0.500 ms, then 0.503 ms).
  const std::string verdict = file_text(out_ / "hopper_model_verdict.txt");
  EXPECT_NE(verdict.find("512x256x256 "), std::string::npos) << verdict;
  EXPECT_NE(verdict.find(" +2.00% place 2 of 2"), std::string::npos) << verdict;
  EXPECT_NE(verdict.find(" +1.39% place 2 of 2"), std::string::npos) << verdict;
  EXPECT_NE(table.find(fmt::format("(worst of 2 shapes: +2.00%; placed in its first pass: {:+.2f}%)", worst)),
            std::string::npos)
      << table;
  const std::string args = file_text(dir_ / "run_args.txt");
  EXPECT_NE(args.find("--db " + (out_ / "hopper_verdict.db").string() + " --rerank 5 --rerank-also "),
            std::string::npos)
      << args;
  EXPECT_NE(args.find("--M 1024 --N 256 --K 512 "), std::string::npos) << args;
  // The verdict's re-ranks take their own rounds, the A/A's theirs.
  EXPECT_NE(args.find(" --rounds 9 "), std::string::npos) << args;
  EXPECT_NE(args.find(" --rounds 7 "), std::string::npos) << args;
  EXPECT_EQ(sql_int(out_ / "hopper_verdict.db", "SELECT count(*) FROM measurements"),
            sql_int(out_ / "hopper_warm.db", "SELECT count(*) FROM measurements"))
      << "the re-ranks ran on a copy of the warm database";

  // Reusing the warm run but not its cold run is refused: a warm run is judged against its own cold run.
  r = tune_bench("MPGEMM_BENCH_REUSE_WARM=1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("MPGEMM_BENCH_REUSE_WARM=1 needs MPGEMM_BENCH_REUSE_COLD=1"), std::string::npos) << r.output;
  // A third call reuses the exhaustive warm run too: only the model-guided run is run again, judged against it;
  // asked to, it re-ranks its top 3 and its pick is the re-rank's winner. A wide tie band lets the winner rule's
  // smallest footprint, not the fastest median, name it, so the pick can differ from the first pass's fastest.
  const std::string warm_log = file_text(out_ / "hopper_warm.log");
  const std::string warm_row = table.substr(table.find("| hopper | warm (cached"));
  r =
      tune_bench(fmt::format("MPGEMM_BENCH_REUSE_COLD=1 MPGEMM_BENCH_REUSE_WARM=1 MPGEMM_BENCH_MODEL_RERANK=3 "
                             "MPGEMM_BENCH_MODEL_RERANK_WITHIN= MPGEMM_BENCH_MODEL_RERANK_CYCLES=0 "
                             "MPGEMM_BENCH_ARGS='--replay {} --tie-band 0.5'",
                             all_recorded.string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(file_text(out_ / "hopper_warm.log"), warm_log);
  EXPECT_EQ(sql_int(out_ / "hopper_warm.db", "SELECT count(*) FROM runs"), 1) << "the warm run ran again";
  EXPECT_EQ(sql_int(model_db, "SELECT count(*) FROM runs"), 2) << "the model-guided run starts from the cold copy";
  const std::string again = file_text(out_ / "tune_bench.md");
  EXPECT_NE(again.find(warm_row.substr(0, warm_row.find('\n'))), std::string::npos) << again;
  std::string crowned_row = model_row;
  crowned_row.replace(crowned_row.find("database)"), 9, "database; its top 3 re-ranked)");
  EXPECT_NE(again.find(crowned_row), std::string::npos) << again;
  const std::string crowned_quality = file_text(out_ / "hopper_model_quality.txt");
  int crowned_not_fastest = 0;
  for (const char* shape : {"512x256x256", "1024x256x512"}) {
    const std::string where = fmt::format("r.run_id = 2 AND r.M || 'x' || r.N || 'x' || r.K = '{}'", shape);
    EXPECT_EQ(sql_int(model_db, "SELECT r.top_k FROM reranks r WHERE " + where), 3) << shape;
    const std::string winner =
        sql_text(model_db, "SELECT c.name FROM reranks r JOIN configs c ON c.id = r.winner_config_id WHERE " + where);
    ASSERT_FALSE(winner.empty()) << shape;
    EXPECT_NE(crowned_quality.find(fmt::format("{} {} ", shape, winner)), std::string::npos) << crowned_quality;
    const std::string fastest =
        sql_text(model_db, fmt::format("SELECT c.name FROM measurements m JOIN configs c ON c.id = m.config_id WHERE "
                                       "m.run_id = 2 AND m.status = 'ok' AND m.M || 'x' || m.N || 'x' || m.K = '{}' "
                                       "ORDER BY m.median_ms LIMIT 1",
                                       shape));
    crowned_not_fastest += winner != fastest;
  }
  EXPECT_GT(crowned_not_fastest, 0) << "no re-rank winner differs from its first pass's fastest: the test cannot "
                                       "tell the crowned pick from the fastest";

  // A pick the warm run did not verify misses without a re-rank (here: nothing verified at 512x256x256).
  const auto verdict_calls = [&] {
    const std::string logged = file_text(dir_ / "run_args.txt");
    std::size_t n = 0;
    for (auto pos = logged.find("--rerank-also"); pos != std::string::npos; pos = logged.find("--rerank-also", pos + 1))
      ++n;
    return n;
  };
  const std::size_t before = verdict_calls();
  sql_exec(out_ / "hopper_warm.db",
           "UPDATE measurements SET status = 'screened_out', ratio_to_cublas = NULL, ratio_to_cublaslt = NULL "
           "WHERE status = 'ok' AND M = 512 AND N = 256");
  r = tune_bench("MPGEMM_BENCH_REUSE_COLD=1 MPGEMM_BENCH_REUSE_WARM=1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // By default the model run crowns its picks as mpgemm-tune does, its top 5 re-ranked (with every config within
  // 4% of its fastest, by time and by cycles), after 200 ms of settling.
  EXPECT_GE(sql_int(model_db, "SELECT count(*) FROM reranks WHERE run_id = 2"), 1);
  EXPECT_NE(
      file_text(out_ / "tune_bench.md").find("; its top 5 re-ranked with those within 4%, by time and by cycles)"),
      std::string::npos)
      << file_text(out_ / "tune_bench.md");
  const std::string model_argv = sql_text(model_db, "SELECT argv FROM runs WHERE id = 2");
  EXPECT_NE(model_argv.find(R"("--rerank-within","0.04")"), std::string::npos) << model_argv;
  EXPECT_NE(model_argv.find(R"("--rerank-cycles")"), std::string::npos) << model_argv;
  EXPECT_EQ(verdict_calls(), before + 1) << "only 1024x256x512's pick was re-ranked";
  const std::string unverified = file_text(out_ / "hopper_model_verdict.txt");
  EXPECT_NE(unverified.find("+inf% (no pick, or one the warm run did not verify): not re-ranked"), std::string::npos)
      << unverified;
  const std::string missed = file_text(out_ / "tune_bench.md");
  EXPECT_NE(missed.find("(worst of 2 shapes: +inf%"), std::string::npos) << missed;
}

// tools/scale_bench.sh report: per shape, are the one-GPU and all-GPU runs' re-rank winners the same config, and
// does each lie inside the other run's tie band (tied in its re-rank), was re-ranked there but not tied, or was
// not re-ranked there at all. Three shapes, one of each case: tied both ways, the same winner, neither.
TEST_F(ReliabilityBenchScript, ScaleBenchReportsSameWinnersAndTieBands) {
  const Params x = testing::wgmma_winner_params(), y = testing::wgmma_other_params();
  WgmmaConfig zc;
  zc.stages = 3;
  const Params z = zc.to_params();
  struct Entry {
    const Params* config;
    bool tied;
  };
  // One database: per shape its re-rank's entries, the first the winner.
  const auto write = [&](const std::filesystem::path& path,
                         const std::vector<std::pair<Shape, std::vector<Entry>>>& reranks) {
    Store s = Store::open(path, Store::Mode::read_write);
    const auto run = testing::add_run(s, testing::kH200, "sm_90", 132);
    for (const auto& [shape, entries] : reranks) {
      RerankRecord r;
      r.run_id = run;
      r.device_name = testing::kH200;
      r.device_cc = "sm_90";
      r.shape = shape;
      r.rounds = 10;
      r.iters = 20;
      r.rule = "test_rule";
      int place = 1;
      for (const Entry& e : entries) {
        RerankEntryRecord rec;
        rec.config_id = testing::add_config(s, "wgmma", *e.config);
        rec.arch = *Arch::parse("sm_90a");
        rec.prior_median_ms = 0.1;
        rec.timing = TimingStats{0.1, 0.1, 0.1, 3, 10, 20};
        rec.tied = e.tied;
        rec.place = place++;
        if (rec.place == 1) r.winner_config_id = rec.config_id;
        r.entries.push_back(rec);
      }
      s.record_rerank(r);
    }
    s.end_run(run, "finished");
  };
  const Shape a{256, 256, 256}, b{512, 512, 512}, c{1024, 1024, 1024};
  std::filesystem::create_directories(out_);
  write(out_ / "one_gpu.db",
        {{a, {{&x, true}, {&y, true}, {&z, false}}}, {b, {{&x, true}, {&y, false}}}, {c, {{&x, true}, {&y, false}}}});
  write(out_ / "all_gpus.db",
        {{a, {{&y, true}, {&x, true}}}, {b, {{&x, true}, {&y, true}}}, {c, {{&z, true}, {&x, false}}}});
  const std::string report = fmt::format("OUT={} MPGEMM_BIN={} {} report", out_.string(),
                                         std::string(MPGEMM_BINARY_DIR) + "/bin", source("tools/scale_bench.sh"));
  const auto r = run_command(report);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto name = [](const Params& p) { return family("wgmma").config_name(p); };
  const auto row = [&](const Shape& s, const Params& one, const Params& all, const char* verdicts) {
    return fmt::format("| {} | {} | {} | {} |", s.str(), name(one), name(all), verdicts);
  };
  EXPECT_NE(r.output.find(row(a, x, y, "no | yes | yes")), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(row(b, x, x, "yes | yes | yes")), std::string::npos) << r.output;
  // c: the one-GPU winner was re-ranked on all GPUs but not tied; the all-GPU winner was never re-ranked on one.
  EXPECT_NE(r.output.find(row(c, x, z, "no | no | not in its re-rank")), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Same winner at 1 of 3 shapes; each winner inside the other run's tie band at 2 of 3."),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(file_text(out_ / "winners_compare.md").empty());

  // Without the databases the step names what is missing.
  std::filesystem::remove(out_ / "all_gpus.db");
  const auto missing = run_command(report);
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.output.find("no " + (out_ / "all_gpus.db").string()), std::string::npos) << missing.output;
}

}  // namespace
}  // namespace mpgemm::testing
