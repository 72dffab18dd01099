// The executables' contract for bad input: one line, exit code 2, nothing written.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "store/store.hpp"
#include "support/run_command.hpp"

using namespace mpgemm::testing;

TEST(CliErrors, MalformedSpaceIsOneLineExitTwoNothingWritten) {
  auto dir = fresh_dir("cli_errors");
  std::filesystem::path space = dir / "bad.json";
  {
    std::ofstream f(space);
    f << "{\n  \"family\": \"wmma\",\n  \"shapes\": [{\"M\": 64, \"N\": 64, \"K\": 64}],\n"
         "  \"parameters\": {\"BM\": {\"values\": [64, \"128\"]}}\n}\n";
  }
  auto db = dir / "t.db";
  auto r = run_command(
      fmt::format("{} {} --compile-only --arch sm_86 --db {}", bin("mpgemm-tune"), space.string(), db.string()));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  EXPECT_NE(r.output.find("bad.json:4:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("/parameters/BM/values/1"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(db));
  std::filesystem::remove_all(dir);
}

TEST(CliErrors, UnknownFlagIsUsageError) {
  auto r = run_command(bin("mpgemm-tune") + " configs/sm86.json --frobnicate");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("unknown option --frobnicate"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--help"), std::string::npos) << r.output;
}

TEST(CliErrors, GraphsWithColdL2IsAUsageError) {
  for (const std::string tool : {"mpgemm-run --db none.db --config best", "mpgemm-tune configs/sm86.json"}) {
    auto r = run_command(bin(tool) + " --graphs --l2 cold");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("--graphs needs warm L2"), std::string::npos) << r.output;
  }
}

TEST(CliErrors, RerankAlsoNeedsARerank) {
  auto r = run_command(bin("mpgemm-run") + " --db none.db --rerank-also wmma_a,wmma_b");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--rerank-also needs --rerank K"), std::string::npos) << r.output;
}

TEST(CliErrors, HelpExplainsEveryCommand) {
  for (const char* tool : {"mpgemm-tune", "mpgemm-query", "mpgemm-run"}) {
    auto r = run_command(bin(tool) + " --help");
    EXPECT_EQ(r.exit_code, 0) << tool;
    EXPECT_NE(r.output.find("Usage: "), std::string::npos) << tool;
    EXPECT_NE(r.output.find("Examples:"), std::string::npos) << tool;
  }
}

// Every executable says which build it is: "<tool> <version> (commit <sha>)", one line, exit 0, also after other
// arguments; its --help lists the option.
TEST(CliErrors, EveryExecutablePrintsItsVersion) {
  const std::regex line(R"(([a-z-]+) [0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]+(-dirty)?|unknown)\)\n)");
  for (const char* tool : {"mpgemm-tune", "mpgemm-query", "mpgemm-run", "mpgemm-export", "mpgemm-profile",
                           "mpgemm-strategies", "mpgemm-worker", "mpgemm-lib-bench", "mpgemm-report"}) {
    SCOPED_TRACE(tool);
    const auto r = run_command(bin(tool) + " --version");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    std::smatch m;
    ASSERT_TRUE(std::regex_match(r.output, m, line)) << r.output;
    EXPECT_EQ(m[1], tool);
    if (std::string(tool) != "mpgemm-worker") {
      EXPECT_EQ(run_command(bin(tool) + " some.db --version").output, r.output);
      EXPECT_NE(run_command(bin(tool) + " --help").output.find("--version"), std::string::npos);
    }
  }
}

TEST(CliErrors, QueryRefusesMissingDatabaseAndWrites) {
  auto dir = fresh_dir("cli_query");
  auto r = run_command(fmt::format("{} {}/none.db runs", bin("mpgemm-query"), dir.string()));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(dir / "none.db"));
  auto folder = run_command(fmt::format("{} {} runs", bin("mpgemm-query"), dir.string()));
  EXPECT_EQ(folder.exit_code, 1) << folder.output;
  EXPECT_NE(folder.output.find("cannot read " + dir.string() + ": it is a folder, not a database"), std::string::npos)
      << folder.output;
  { mpgemm::Store created = mpgemm::Store::open(dir / "empty.db", mpgemm::Store::Mode::read_write); }
  for (const std::string view : {"best", "winners"}) {
    auto empty = run_command(fmt::format("{} {}/empty.db {}", bin("mpgemm-query"), dir.string(), view));
    EXPECT_EQ(empty.exit_code, 0) << empty.output;
    const std::string why = view == "best" ? "verified measurement yet" : "re-rank winner yet";
    EXPECT_NE(empty.output.find("empty.db has no " + why), std::string::npos) << empty.output;
  }
  auto none = run_command(bin("mpgemm-query"));
  EXPECT_EQ(none.exit_code, 2) << none.output;
  EXPECT_NE(none.output.find("missing DB: name the results database"), std::string::npos) << none.output;
  std::filesystem::remove_all(dir);
}

// mpgemm-run --output: a path that cannot be written fails at once with the reason; a run that fails (here: no
// database, or no GPU) leaves an earlier table in the file as it was.
TEST(CliErrors, RunOutputIsCheckedFirstAndWrittenOnlyWhenComplete) {
  auto dir = fresh_dir("cli_run_output");
  auto bad = run_command(
      fmt::format("{} --db {}/none.db --output {}/no_such_folder/t.md", bin("mpgemm-run"), dir.string(), dir.string()));
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_NE(bad.output.find("no_such_folder/t.md: the folder " + (dir / "no_such_folder").string() + " does not exist"),
            std::string::npos)
      << bad.output;
  auto folder =
      run_command(fmt::format("{} --db {}/none.db --output {}", bin("mpgemm-run"), dir.string(), dir.string()));
  EXPECT_EQ(folder.exit_code, 1) << folder.output;
  EXPECT_NE(folder.output.find(dir.string() + ": it is a folder"), std::string::npos) << folder.output;
  const auto kept = dir / "table.md";
  std::ofstream(kept) << "an earlier table\n";
  auto failed =
      run_command(fmt::format("{} --db {}/none.db --output {}", bin("mpgemm-run"), dir.string(), kept.string()));
  EXPECT_NE(failed.exit_code, 0) << failed.output;
  std::ifstream in(kept);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "an earlier table\n");
  std::filesystem::remove_all(dir);
}

// mpgemm-run settles what it was asked for before it looks for a GPU, so a misspelt config, a missing space or
// a re-rank without a database says so on any machine (exit 1 or 2), not "no GPU" (exit 3).
TEST(CliErrors, RunChecksItsRequestBeforeTheGpu) {
  auto dir = fresh_dir("cli_run_request");
  auto name = run_command(fmt::format("{} --db {}/none.db --space {}/configs/sm86.json --config wmma_no_such_point",
                                      bin("mpgemm-run"), dir.string(), MPGEMM_SOURCE_DIR));
  EXPECT_EQ(name.exit_code, 1) << name.output;
  EXPECT_NE(name.output.find("no config named 'wmma_no_such_point'"), std::string::npos) << name.output;
  auto space = run_command(
      fmt::format("{} --db {}/none.db --space {}/no_space.json", bin("mpgemm-run"), dir.string(), dir.string()));
  EXPECT_EQ(space.exit_code, 2) << space.output;
  EXPECT_NE(space.output.find("no_space.json"), std::string::npos) << space.output;
  auto rerank = run_command(fmt::format("{} --db {}/none.db --rerank 3", bin("mpgemm-run"), dir.string()));
  EXPECT_EQ(rerank.exit_code, 1) << rerank.output;
  EXPECT_NE(rerank.output.find("no database at " + dir.string() + "/none.db"), std::string::npos) << rerank.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "none.db"));
  { mpgemm::Store created = mpgemm::Store::open(dir / "empty.db", mpgemm::Store::Mode::read_write); }
  auto also = run_command(fmt::format("{} --db {}/empty.db --rerank 3 --rerank-also wgmma_no_such_config",
                                      bin("mpgemm-run"), dir.string()));
  EXPECT_EQ(also.exit_code, 2) << also.output;
  EXPECT_NE(also.output.find("--rerank-also wgmma_no_such_config: no config of that name"), std::string::npos)
      << also.output;
  std::filesystem::remove_all(dir);
}

// mpgemm-export -o: a path that cannot be written fails before the database is read, and names why.
TEST(CliErrors, ExportOutputIsCheckedFirst) {
  auto dir = fresh_dir("cli_export_output");
  auto r = run_command(
      fmt::format("{} {}/none.db -o {}/no_such_folder/w.json", bin("mpgemm-export"), dir.string(), dir.string()));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("w.json: the folder " + (dir / "no_such_folder").string() + " does not exist"),
            std::string::npos)
      << r.output;
  std::filesystem::remove_all(dir);
}

// Tile sizes the family cannot take are a mistake in the space file, reported at the point or at /constraints.
TEST(CliErrors, ConfigsTheFamilyCannotBuildAreErrorsAtTheirLocation) {
  auto dir = fresh_dir("cli_family_rejects");
  const std::string head =
      "{\n  \"family\": \"wmma\",\n  \"shapes\": [{\"M\": 64, \"N\": 64, \"K\": 64}],\n  \"parameters\": {\n"
      "    \"BM\": {\"values\": [64]}, \"BN\": {\"values\": [64]}, \"BK\": {\"values\": [32]},\n"
      "    \"WM\": {\"values\": [32]}, \"WN\": {\"values\": [WN]}, \"STAGES\": {\"values\": [2]},\n"
      "    \"LOAD\": {\"values\": [\"cp_async\"]}, \"PAD_A\": {\"values\": [8]}, \"PAD_B\": {\"values\": [8]}\n  }";
  auto write = [&](const std::string& name, std::string text) {
    auto p = dir / name;
    std::ofstream(p) << text;
    return p.string();
  };
  auto with_wn = [&](int wn) { return std::regex_replace(head, std::regex("WN\\]"), std::to_string(wn) + "]"); };
  // A named point with BM = 24: not a multiple of the 16x16 WMMA tile.
  auto point = write("point.json", with_wn(32) +
                                       ",\n  \"points\": {\"odd\": {\"BM\": 24, \"BN\": 64, \"BK\": 32, "
                                       "\"WM\": 24, \"WN\": 32, \"STAGES\": 2, \"LOAD\": \"cp_async\", "
                                       "\"PAD_A\": 8, \"PAD_B\": 8}}\n}\n");
  auto r = run_command(
      fmt::format("{} {} --compile-only --arch sm_90 --db {}/t.db", bin("mpgemm-tune"), point, dir.string()));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  EXPECT_NE(r.output.find("point.json:9:21: at /points/odd"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("at /points/odd: the wmma family cannot build point odd"), std::string::npos) << r.output;
  // An enumerated config with WN = 24 passes the (absent) constraints but not the family.
  auto space = write("enumerated.json", with_wn(24) + "\n}\n");
  r = run_command(
      fmt::format("{} {} --compile-only --arch sm_90 --db {}/t.db", bin("mpgemm-tune"), space, dir.string()));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  EXPECT_NE(r.output.find("at /constraints: config "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("add a constraint"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "t.db"));
  std::filesystem::remove_all(dir);
}

// mpgemm-lib-bench's arguments and library file need no GPU: they are checked before it looks for one, so a job
// prepared on a host without a GPU learns of them there (the same answer on a host with one).
TEST(CliErrors, LibBenchChecksItsArgumentsBeforeTheDevice) {
  auto missing = run_command(bin("mpgemm-lib-bench") + " no_such.db");
  EXPECT_EQ(missing.exit_code, 1) << missing.output;
  EXPECT_NE(missing.output.find("no_such.db: cannot be opened"), std::string::npos) << missing.output;
  EXPECT_EQ(missing.output.find("libmpgemm: libmpgemm"), std::string::npos) << missing.output;
  auto calls = run_command(bin("mpgemm-lib-bench") + " no_such.db --calls 0");
  EXPECT_EQ(calls.exit_code, 2) << calls.output;
  EXPECT_NE(calls.output.find("--calls must be a positive integer"), std::string::npos) << calls.output;
}

// A space naming no family is told the families it may name; the test-only ones a test build links are listed
// apart, never as kernels.
TEST(CliErrors, UnknownFamilyListsTheKernelFamiliesNotTheTestOnes) {
  auto dir = fresh_dir("cli_errors_family");
  const auto space = dir / "nope.json";
  std::ofstream(space)
      << R"({"family": "nope", "shapes": [{"M": 64, "N": 64, "K": 64}], "parameters": {"A": {"values": [1]}}})";
  auto r = run_command(fmt::format("{} {} --dry-run", bin("mpgemm-tune"), space.string()));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("(known: wmma, wgmma"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("wgmma, test_faulty"), std::string::npos) << r.output;
  if (r.output.find("test_faulty") != std::string::npos) {
    EXPECT_NE(r.output.find("test-only, linked by MPGEMM_TEST_FAMILIES: test_faulty"), std::string::npos) << r.output;
  }
  std::filesystem::remove_all(dir);
}

// Every option of mpgemm-tune is checked before any work: --top, read only when a run ends, was refused after a
// full run and passed the dry run (issue 57). A value holding a newline stays inside its one-line message.
TEST(CliErrors, TuneChecksTopBeforeAnyWork) {
  const std::string tune = fmt::format("{} {} --dry-run", bin("mpgemm-tune"), source("configs/sm86.json"));
  for (const auto& [top, says] : std::vector<std::pair<std::string, std::string>>{
           {"-1", "--top must be a positive integer, got -1"},
           {"0", "--top must be a positive integer, got 0"},
           {"abc", "--top expects an integer, got 'abc'"},
           {"10000000000", "--top must be at most 1000000"},
           {"\"$(printf '1\\n#x\\033[2J')\"", "--top expects an integer, got '1\\n#x\\x1b[2J'"}}) {
    const auto r = run_command(fmt::format("{} --top {}", tune, top));
    EXPECT_EQ(r.exit_code, 2) << top << ": " << r.output;
    EXPECT_NE(r.output.find("mpgemm-tune: error: " + says + "\n"), std::string::npos) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 2) << "the error and the --help hint: " << r.output;
    EXPECT_EQ(r.output.find('\x1b'), std::string::npos) << r.output;
  }
  const auto ok = run_command(fmt::format("{} --top 3", tune));
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
}

// A hostname stored in a merge input (a database from elsewhere) cannot split merge's warning or send an escape
// sequence to the terminal.
TEST(CliErrors, AHostileHostnameInAMergeWarningStaysOneLine) {
  auto dir = fresh_dir("cli_merge_hostname");
  {
    mpgemm::Store in = mpgemm::Store::open(dir / "in.db", mpgemm::Store::Mode::read_write);
    mpgemm::RunInfo info;
    info.hostname = "evil\nwarning: forged\x1b[31m";
    in.begin_run(info);  // never ended: it reads 'running', which merge warns about, naming its host
  }
  const auto r = run_command(
      fmt::format("{} merge {} {}", bin("mpgemm-query"), (dir / "out.db").string(), (dir / "in.db").string()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("on evil\\nwarning: forged\\x1b[31m"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find('\x1b'), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("\nwarning: forged"), std::string::npos) << r.output;
  std::filesystem::remove_all(dir);
}
