// The executables' contract for bad input: one line, exit code 2, nothing written.
#include <gtest/gtest.h>

#include <fstream>

#include <fmt/format.h>

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
  auto r = run_command(fmt::format("{} {} --compile-only --arch sm_86 --db {}", bin("mpgemm-tune"), space.string(),
                                   db.string()));
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

TEST(CliErrors, HelpExplainsEveryCommand) {
  for (const char* tool : {"mpgemm-tune", "mpgemm-query", "mpgemm-run"}) {
    auto r = run_command(bin(tool) + " --help");
    EXPECT_EQ(r.exit_code, 0) << tool;
    EXPECT_NE(r.output.find("Usage: "), std::string::npos) << tool;
    EXPECT_NE(r.output.find("Examples:"), std::string::npos) << tool;
  }
}

TEST(CliErrors, QueryRefusesMissingDatabaseAndWrites) {
  auto dir = fresh_dir("cli_query");
  auto r = run_command(fmt::format("{} {}/none.db runs", bin("mpgemm-query"), dir.string()));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(dir / "none.db"));
  std::filesystem::remove_all(dir);
}
