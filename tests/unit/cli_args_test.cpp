#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <vector>

#include <fmt/format.h>

#include "cli/args.hpp"
#include "cli/measure_options.hpp"
#include "cli/progress.hpp"
#include "cli/tune_args.hpp"
#include "common/error.hpp"
#include "tune/tune_input.hpp"

using namespace mpgemm;
using namespace mpgemm::cli;

namespace {
ArgParser make() {
  ArgParser p("prog", "does things", "Longer description.");
  p.positional("FILE", "input").option("--n", "INT", "a number", "3").flag("--dry", "do nothing");
  return p;
}
ParsedArgs parse(const ArgParser& p, std::vector<const char*> argv) {
  argv.insert(argv.begin(), "prog");
  return p.parse(static_cast<int>(argv.size()), argv.data());
}
// mpgemm-tune's options, and what they make of `argv` after "mpgemm-tune s.json".
ArgParser tune_parser() {
  ArgParser p("mpgemm-tune", "", "");
  add_tune_options(p);
  return p;
}
TuneOptions tune_args(const ArgParser& p, std::vector<const char*> argv) {
  argv.insert(argv.begin(), {"mpgemm-tune", "s.json"});
  return tune_options_from(p.parse(static_cast<int>(argv.size()), argv.data()), static_cast<int>(argv.size()),
                           argv.data());
}
}  // namespace

TEST(Args, ParsesOptionsFlagsAndPositionals) {
  auto p = make();
  auto a = parse(p, {"in.json", "--n", "7", "--dry"});
  EXPECT_EQ(a.positionals().at(0), "in.json");
  EXPECT_EQ(a.get_int("--n"), 7);
  EXPECT_TRUE(a.has("--dry"));
  auto b = parse(p, {"--n=9", "x"});
  EXPECT_EQ(b.get_int("--n"), 9);
  EXPECT_FALSE(b.has("--dry"));
}

TEST(Args, AListDropsEmptyItems) {
  auto p = make();
  EXPECT_EQ(parse(p, {"x", "--n", ",a,,b c,"}).get_list("--n"), (std::vector<std::string>{"a", "b c"}));
  EXPECT_EQ(parse(p, {"x", "--n", "a"}).get_list("--n"), (std::vector<std::string>{"a"}));
  EXPECT_TRUE(parse(p, {"x", "--n", ","}).get_list("--n").empty());
  EXPECT_TRUE(parse(p, {"x"}).get_list("--n").empty()) << "not given";
}

TEST(Args, RejectsUnknownMissingAndBadValues) {
  auto p = make();
  EXPECT_THROW(parse(p, {"x", "--bogus"}), UsageError);
  EXPECT_THROW(parse(p, {}), UsageError);
  EXPECT_THROW(parse(p, {"x", "--n"}), UsageError);
  EXPECT_THROW(parse(p, {"x", "y"}), UsageError);
  EXPECT_THROW(parse(p, {"x", "--dry=1"}), UsageError);
  EXPECT_THROW(parse(p, {"x", "--n", "seven"}).get_int("--n"), UsageError);
  EXPECT_THROW(parse(p, {"x", "--n", "0"}).get_positive_int("--n"), UsageError);
}

TEST(Args, ALastPositionalNamedWithDotsRepeats) {
  ArgParser p("prog", "merges", "Merges.");
  p.positional("OUT", "output").positional("IN...", "inputs");
  EXPECT_EQ(parse(p, {"o", "a", "b", "c"}).positionals().size(), 4u);
  EXPECT_THROW(parse(p, {"o"}), UsageError);
}

TEST(Args, HelpListsEveryOptionWithDefaults) {
  auto p = make();
  EXPECT_TRUE(parse(p, {"--help"}).help_requested());
  std::string help = p.help_text();
  EXPECT_NE(help.find("Usage: prog [options] FILE"), std::string::npos);
  EXPECT_NE(help.find("--n INT"), std::string::npos);
  EXPECT_NE(help.find("(default: 3)"), std::string::npos);
  EXPECT_NE(help.find("--dry"), std::string::npos);
}

TEST(TuneArgs, MapsFlagsToOptions) {
  ArgParser p("mpgemm-tune", "", "");
  add_tune_options(p);
  std::vector<const char*> argv = {"mpgemm-tune", "s.json", "--arch", "sm_90a", "--M",           "1000",
                                   "--only",      "a,b",    "--runs", "2",      "--compile-only"};
  auto a = p.parse(static_cast<int>(argv.size()), argv.data());
  TuneOptions o = tune_options_from(a, static_cast<int>(argv.size()), argv.data());
  EXPECT_EQ(o.space_path, "s.json");
  ASSERT_TRUE(o.arch.has_value());
  EXPECT_EQ(o.arch->str(), "sm_90a");
  EXPECT_EQ(o.m, 1000);
  EXPECT_FALSE(o.n.has_value());
  EXPECT_EQ(o.only, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(o.settings.runs, 2);
  EXPECT_EQ(o.settings.iters, 20);
  EXPECT_TRUE(o.compile_only);
  EXPECT_TRUE(o.settings.cublaslt);        // the second reference is on unless turned off
  EXPECT_FALSE(o.rerank.protocol.graphs);  // re-rank batches from the host unless asked
  EXPECT_EQ(o.argv.size(), argv.size());

  std::vector<const char*> graphs = {"mpgemm-tune", "s.json", "--rerank-graphs"};
  auto g = p.parse(static_cast<int>(graphs.size()), graphs.data());
  const TuneOptions rerank_only = tune_options_from(g, static_cast<int>(graphs.size()), graphs.data());
  EXPECT_TRUE(rerank_only.rerank.protocol.graphs);
  EXPECT_EQ(rerank_only.settings.batches, BatchEnqueue::stream);  // the first pass as before

  std::vector<const char*> all = {"mpgemm-tune", "s.json", "--graphs"};
  auto a2 = p.parse(static_cast<int>(all.size()), all.data());
  const TuneOptions every = tune_options_from(a2, static_cast<int>(all.size()), all.data());
  EXPECT_EQ(every.settings.batches, BatchEnqueue::graph);
  EXPECT_TRUE(every.rerank.protocol.graphs);  // the re-rank's batches too
}

// An --only with no entry would restrict nothing and tune the whole space.
TEST(TuneArgs, OnlyWithoutAnEntryIsAUsageError) {
  ArgParser p("mpgemm-tune", "", "");
  add_tune_options(p);
  for (const char* value : {"", ",", ",,"}) {
    std::vector<const char*> argv = {"mpgemm-tune", "s.json", "--only", value};
    EXPECT_THROW(tune_options_from(p.parse(static_cast<int>(argv.size()), argv.data()), static_cast<int>(argv.size()),
                                   argv.data()),
                 UsageError)
        << "'" << value << "'";  // "" is refused by the parser, "," and ",," by tune_options_from
  }
}

// The re-rank's rounds use the tune's --warmup and --iters (they were read before the options were parsed, so the
// re-rank always ran 3 and 20).
TEST(TuneArgs, TheRerankTakesTheWarmupAndItersOfTheRun) {
  ArgParser p("mpgemm-tune", "", "");
  add_tune_options(p);
  std::vector<const char*> argv = {"mpgemm-tune", "s.json", "--warmup", "7", "--iters", "40"};
  auto a = p.parse(static_cast<int>(argv.size()), argv.data());
  const TuneOptions o = tune_options_from(a, static_cast<int>(argv.size()), argv.data());
  EXPECT_EQ(o.settings.warmup, 7);
  EXPECT_EQ(o.rerank.protocol.warmup, 7);
  EXPECT_EQ(o.rerank.protocol.iters, 40);
}

// The re-rank is sized by time unless told otherwise (each kernel timed for 50 ms in all, batches of at most
// 5 ms); 0 turns either off; negative or over a minute is refused.
TEST(TuneArgs, TheRerankIsSizedByTimeByDefault) {
  const ArgParser p = tune_parser();
  const auto parse = [&](std::vector<const char*> argv) { return tune_args(p, std::move(argv)); };
  EXPECT_EQ(parse({}).rerank.min_kernel_ms, 50);
  EXPECT_EQ(parse({}).rerank.max_batch_ms, 5);
  EXPECT_EQ(parse({"--rerank-min-ms", "0"}).rerank.min_kernel_ms, 0);
  EXPECT_EQ(parse({"--rerank-max-batch-ms", "0"}).rerank.max_batch_ms, 0);
  EXPECT_EQ(parse({"--rerank-min-ms", "120.5"}).rerank.min_kernel_ms, 120.5);
  EXPECT_THROW(parse({"--rerank-min-ms", "-1"}), UsageError);
  EXPECT_THROW(parse({"--rerank-max-batch-ms", "60001"}), UsageError);
  EXPECT_NE(p.help_text().find("--rerank-min-ms"), std::string::npos);
  EXPECT_NE(p.help_text().find("--rerank-max-batch-ms"), std::string::npos);
}

// The re-rank settles the card for about a second unless told otherwise, a shape's preparation only when asked;
// 0 turns either off; negative is refused.
TEST(TuneArgs, TheRerankSettlesForASecondByDefaultShapesOnlyWhenAsked) {
  const ArgParser p = tune_parser();
  const auto parse = [&](std::vector<const char*> argv) { return tune_args(p, std::move(argv)); };
  EXPECT_EQ(parse({}).rerank.protocol.settle_ms, 1000);
  EXPECT_EQ(parse({"--rerank-settle-ms", "0"}).rerank.protocol.settle_ms, 0);
  EXPECT_EQ(parse({"--rerank-settle-ms", "2500"}).rerank.protocol.settle_ms, 2500);
  EXPECT_THROW(parse({"--rerank-settle-ms", "-1"}), UsageError);
  EXPECT_NE(p.help_text().find("--rerank-settle-ms"), std::string::npos);

  // A shape's preparation settles the card only when asked (--settle-ms), apart from the re-rank's.
  EXPECT_EQ(parse({}).settings.settle_ms, 0);
  EXPECT_EQ(parse({"--settle-ms", "250"}).settings.settle_ms, 250);
  EXPECT_EQ(parse({"--settle-ms", "250"}).rerank.protocol.settle_ms, 1000);
  EXPECT_EQ(parse({"--rerank-settle-ms", "0"}).settings.settle_ms, 0);
  EXPECT_THROW(parse({"--settle-ms", "-1"}), UsageError);
  EXPECT_NE(p.help_text().find("--settle-ms"), std::string::npos);

  // The clock hold is on unless turned off: 5 s of keeping warm after a request, 200 ms of settling after idle.
  EXPECT_EQ(parse({}).settings.hold, (ClockHold{5000, 200}));
  EXPECT_EQ(parse({"--keep-warm-ms", "0"}).settings.hold, (ClockHold{0, 200}));
  EXPECT_EQ(parse({"--idle-settle-ms", "0", "--keep-warm-ms", "750"}).settings.hold, (ClockHold{750, 0}));
  EXPECT_THROW(parse({"--keep-warm-ms", "-1"}), UsageError);
  EXPECT_THROW(parse({"--idle-settle-ms", "600001"}), UsageError);
  EXPECT_EQ(parse({"--replay", "old.db"}).settings.hold, ClockHold{}) << "a replay times nothing";
  EXPECT_THROW(parse({"--replay", "old.db", "--keep-warm-ms", "100"}), UsageError);
  EXPECT_NE(p.help_text().find("--keep-warm-ms"), std::string::npos);
  EXPECT_NE(p.help_text().find("--idle-settle-ms"), std::string::npos);
}

TEST(MeasureArgs, NoCublasLtTurnsTheSecondReferenceOff) {
  ArgParser p("mpgemm-run", "", "");
  add_measure_options(p);
  std::vector<const char*> argv = {"mpgemm-run", "--no-cublaslt", "--iters", "7"};
  const MeasureSettings s = measure_settings_from(p.parse(static_cast<int>(argv.size()), argv.data()));
  EXPECT_FALSE(s.cublaslt);
  EXPECT_EQ(s.iters, 7);
  EXPECT_NE(p.help_text().find("--no-cublaslt"), std::string::npos);
}

TEST(MeasureArgs, L2NoiseTargetAndScreen) {
  ArgParser p("mpgemm-tune", "", "");
  add_measure_options(p);
  auto parse = [&](std::vector<const char*> argv) {
    argv.insert(argv.begin(), "mpgemm-tune");
    return measure_settings_from(p.parse(static_cast<int>(argv.size()), argv.data()));
  };
  const MeasureSettings d = parse({});
  EXPECT_EQ(d.l2, L2Mode::warm);
  EXPECT_FALSE(d.noise_stop);
  ASSERT_TRUE(d.screen);  // on by default
  EXPECT_EQ(d.screen->threshold, 1.5);
  EXPECT_EQ(d.screen->launches, 3);
  EXPECT_EQ(d.batches, BatchEnqueue::stream);
  EXPECT_EQ(parse({"--graphs"}).batches, BatchEnqueue::graph);
  EXPECT_THROW(parse({"--graphs", "--l2", "cold"}), UsageError);  // cold launches are timed one at a time

  const MeasureSettings s = parse({"--l2", "cold", "--noise-target", "0.5", "--min-samples", "12", "--max-time", "3",
                                   "--screen-threshold", "2", "--screen-launches", "5"});
  EXPECT_EQ(s.l2, L2Mode::cold);
  ASSERT_TRUE(s.noise_stop);
  EXPECT_DOUBLE_EQ(s.noise_stop->target, 0.005);  // a percentage on the command line
  EXPECT_EQ(s.noise_stop->min_samples, 12);
  EXPECT_EQ(s.noise_stop->max_time_s, 3);
  EXPECT_EQ(s.screen, (ScreenRule{2, 5}));
  EXPECT_FALSE(parse({"--no-screen"}).screen);

  EXPECT_THROW(parse({"--l2", "hot"}), UsageError);
  EXPECT_THROW(parse({"--noise-target", "0"}), UsageError);
  EXPECT_THROW(parse({"--min-samples", "3"}), UsageError);  // only with --noise-target
  EXPECT_THROW(parse({"--no-screen", "--screen-threshold", "2"}), UsageError);
  EXPECT_THROW(parse({"--screen-threshold", "0.5"}), UsageError);
}

TEST(TuneArgs, ShapeOrderIsCostliestFirstUnlessTheFileOrderIsAsked) {
  const ArgParser p = tune_parser();
  const auto parse = [&](std::vector<const char*> argv) { return tune_args(p, std::move(argv)); };
  EXPECT_EQ(parse({}).shape_order, ShapeOrder::costliest);
  EXPECT_EQ(parse({"--shape-order", "file"}).shape_order, ShapeOrder::file);
  EXPECT_EQ(parse({"--shape-order", "costliest"}).shape_order, ShapeOrder::costliest);
  EXPECT_THROW(parse({"--shape-order", "largest"}), UsageError);

  const std::vector<Shape> file = {{2048, 2048, 2048}, {128, 8192, 8192},  {8192, 8192, 8192},
                                   {8192, 8192, 128},  {4096, 4096, 4096}, {1024, 1024, 8192}};
  EXPECT_EQ(measuring_order(file, ShapeOrder::file), file);
  // Most FLOPs first; 2048^3, 128x8192x8192, 8192x8192x128 and 1024x1024x8192 are all 2^33 and keep their
  // file order.
  const std::vector<Shape> costliest = {{8192, 8192, 8192}, {4096, 4096, 4096}, {2048, 2048, 2048},
                                        {128, 8192, 8192},  {8192, 8192, 128},  {1024, 1024, 8192}};
  EXPECT_EQ(measuring_order(file, ShapeOrder::costliest), costliest);
  // Sides near INT_MAX do not overflow the comparison.
  const std::vector<Shape> huge = {{1, 1, 1}, {2147483647, 2147483647, 2147483647}};
  EXPECT_EQ(measuring_order(huge, ShapeOrder::costliest).front(), huge.back());
}

TEST(TuneArgs, RejectsBadArch) {
  ArgParser p("mpgemm-tune", "", "");
  add_tune_options(p);
  std::vector<const char*> argv = {"mpgemm-tune", "s.json", "--arch", "ampere"};
  auto a = p.parse(static_cast<int>(argv.size()), argv.data());
  EXPECT_THROW(tune_options_from(a, static_cast<int>(argv.size()), argv.data()), UsageError);
}

TEST(Progress, FormatsDurations) {
  EXPECT_EQ(Progress::format_duration(0.2), "<1s");
  EXPECT_EQ(Progress::format_duration(65), "1:05");
  EXPECT_EQ(Progress::format_duration(3723), "1:02:03");
}

TEST(Progress, TheLastLineSaysHowFarAPassGotWhenItStoppedEarly) {
  ::testing::internal::CaptureStderr();
  Progress stopped("compile", 10);
  stopped.update(3, "c3");
  stopped.finish();
  const std::string early = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(early.find("compile: stopped after 3 of 10 in"), std::string::npos) << early;
  EXPECT_EQ(early.find("10 done"), std::string::npos) << early;

  ::testing::internal::CaptureStderr();
  Progress whole("compile", 2);
  whole.update(1, "c1");
  whole.update(2, "c2");
  whole.finish();
  const std::string done = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(done.find("compile: 2 done in"), std::string::npos) << done;
}

// ---- issue 48: empty paths and non-finite numbers are refused, naming the option ----

namespace {
// The UsageError `f` throws, or "" when it throws none.
template <class F>
std::string usage_error(F f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Args, EmptyValuesAndArgumentsAreRefused) {
  auto p = make();
  EXPECT_EQ(usage_error([&] { parse(p, {"x", "--n", ""}); }), "--n is empty: it needs a INT");
  EXPECT_EQ(usage_error([&] { parse(p, {"x", "--n="}); }), "--n is empty: it needs a INT");
  EXPECT_EQ(usage_error([&] { parse(p, {""}); }), "the argument FILE is empty");
  ArgParser merge("prog", "merges", "Merges.");
  merge.positional("OUT", "output").positional("IN...", "inputs");
  EXPECT_EQ(usage_error([&] { parse(merge, {"o", "a", ""}); }), "the argument IN... is empty");
}

TEST(Args, NumbersMustBeFinite) {
  auto p = make();
  for (const char* text : {"nan", "NaN", "-nan", "inf", "-inf", "infinity"})
    EXPECT_EQ(usage_error([&] {
                parse(p, {"x", "--n", text}).get_double("--n");
              }),
              std::string("--n expects a finite number, got '") + text + "'");
  EXPECT_EQ(usage_error([&] {
              parse(p, {"x", "--n", "1e999"}).get_double("--n");
            }),
            "--n expects a number, got '1e999'");
  EXPECT_EQ(parse(p, {"x", "--n", "1e-3"}).get_double("--n"), 1e-3);
}

TEST(MeasureArgs, TolerancesAndCountsAreFiniteAndInRange) {
  ArgParser p("mpgemm-tune", "", "");
  add_measure_options(p);
  auto error = [&](std::vector<const char*> argv) {
    argv.insert(argv.begin(), "mpgemm-tune");
    return usage_error([&] { measure_settings_from(p.parse(static_cast<int>(argv.size()), argv.data())); });
  };
  // --atol nan made every candidate 'incorrect' (no |c - ref| is <= nan), and the run exited 0.
  EXPECT_EQ(error({"--atol", "nan"}), "--atol expects a finite number, got 'nan'");
  EXPECT_EQ(error({"--rtol", "inf"}), "--rtol expects a finite number, got 'inf'");
  EXPECT_EQ(error({"--atol", "-0.5"}), "--atol must not be negative, got -0.5");
  EXPECT_EQ(error({"--rtol", "-1e-3"}), "--rtol must not be negative, got -0.001");
  EXPECT_EQ(error({"--atol", "0", "--rtol", "0"}), "");  // exact agreement may be asked for
  EXPECT_EQ(error({"--noise-target", "nan"}), "--noise-target expects a finite number, got 'nan'");
  EXPECT_EQ(error({"--noise-target", "1", "--max-time", "1e300"}),
            "--max-time must be positive and at most 3600 seconds");
  EXPECT_EQ(error({"--screen-threshold", "inf"}), "--screen-threshold expects a finite number, got 'inf'");
  // Counts past an int wrapped round (2^32 + 1 batches became 1).
  EXPECT_EQ(error({"--runs", "4294967297"}), "--runs must be between 1 and 1000000, got 4294967297");
  EXPECT_EQ(error({"--iters", "0"}), "--iters must be between 1 and 1000000, got 0");
  EXPECT_EQ(error({"--warmup", "-1"}), "--warmup must be between 0 and 1000000, got -1");
  EXPECT_EQ(error({"--warmup", "0"}), "");
}

TEST(TuneArgs, EmptyPathsAndNonFiniteNumbersAreRefused) {
  const ArgParser p = tune_parser();
  const auto error = [&](std::vector<const char*> argv) { return usage_error([&] { tune_args(p, std::move(argv)); }); };
  // --db '' tuned into a private temporary database: the results went nowhere and the run exited 0.
  EXPECT_EQ(error({"--db", ""}), "--db is empty: it needs a PATH");
  EXPECT_EQ(error({"--db="}), "--db is empty: it needs a PATH");
  EXPECT_EQ(error({"--replay", ""}), "--replay is empty: it needs a OLD.db");
  EXPECT_EQ(error({"--cubin-cache", ""}), "--cubin-cache is empty: it needs a DIR");
  EXPECT_EQ(error({"--shapes", ""}), "--shapes is empty: it needs a FILE|MxNxK,...");
  EXPECT_EQ(error({"--max-spread", "nan"}), "--max-spread expects a finite number, got 'nan'");
  EXPECT_EQ(error({"--tie-band", "nan"}), "--tie-band expects a finite number, got 'nan'");
  EXPECT_EQ(error({"--leaders-within", "inf"}), "--leaders-within expects a finite number, got 'inf'");
  EXPECT_EQ(error({"--time-budget", "9223372036854775807"}), "--time-budget must be at most 31622400 seconds");
  EXPECT_EQ(error({"--rerank-rounds", "4294967297"}), "--rerank-rounds must be at most 1000000");
}

// The database a run writes into is never a file it reads: the space, the shape file or the recording, also
// through a symlink or a ../ path.
TEST(TuneArgs, TheDatabaseIsNeverOneOfTheRunsInputs) {
  namespace fs = std::filesystem;
  const auto dir = fs::temp_directory_path() / ("mpgemm_tune_args_inputs_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "sub");
  for (const char* f : {"space.json", "recorded.db"}) std::ofstream(dir / f) << "x";
  std::ofstream(dir / "shapes.json") << R"([{"M": 64, "N": 64, "K": 64}])";
  fs::create_symlink(dir / "recorded.db", dir / "link.db");
  const ArgParser p = tune_parser();
  const auto error = [&](const fs::path& space, std::vector<std::string> args) {
    std::vector<const char*> argv{"mpgemm-tune", space.c_str()};
    for (const auto& a : args) argv.push_back(a.c_str());
    try {
      tune_options_from(p.parse(static_cast<int>(argv.size()), argv.data()), static_cast<int>(argv.size()),
                        argv.data());
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const fs::path space = dir / "space.json", recorded = dir / "recorded.db";
  EXPECT_EQ(error(space, {"--db", (dir / "sub" / ".." / "space.json").string()}),
            "cannot write " + (dir / "sub" / ".." / "space.json").string() + ": it is the space " + space.string() +
                ", which this command reads; choose another output file");
  EXPECT_NE(error(space, {"--shapes", (dir / "shapes.json").string(), "--db", (dir / "shapes.json").string()})
                .find("it is the shape file"),
            std::string::npos);
  EXPECT_NE(error(space, {"--replay", recorded.string(), "--db", (dir / "link.db").string()})
                .find("it is the recording (--replay) " + recorded.string()),
            std::string::npos);
  EXPECT_EQ(error(space, {"--replay", recorded.string(), "--db", (dir / "new.db").string()}), "");
  fs::remove_all(dir);
}

// The run's shapes after --M/--N/--K, each once: a million shapes (the issue's 418 s with a linear search per
// shape) check in about a second, and two that --K makes one count once.
TEST(TuneArgs, AMillionShapesAreCheckedWithoutAQuadraticSearch) {
  TuneOptions opt = tune_args(tune_parser(), {});
  opt.space_path = MPGEMM_SOURCE_DIR "/configs/sm86.json";
  opt.db_path = std::filesystem::temp_directory_path() / fmt::format("mpgemm_million_shapes_{}.db", getpid());
  for (std::int64_t i = 1; i <= 1'000'000; ++i) opt.shapes.push_back(Shape{i, 8, 8});
  EXPECT_EQ(dry_run_tune(opt).shapes, 1'000'000u);
  opt.shapes = {Shape{64, 64, 64}, Shape{64, 64, 128}, Shape{128, 64, 64}};
  opt.k = 256;
  EXPECT_EQ(check_tune_input(opt).shapes, (std::vector<Shape>{Shape{64, 64, 256}, Shape{128, 64, 256}}));
}
