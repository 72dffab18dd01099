// tools/gpu_tests.sh without a GPU and without running the real GPU tests: stand-in binaries (--bin) print what
// gtest prints, so the script's own logic is tested: it takes its list from tests/gpu, says which binaries
// skipped every test, fails on a failed or unrun binary, and refuses names that are no GPU test.
#include <gtest/gtest.h>

#include <fstream>

#include <fmt/format.h>

#include "support/run_command.hpp"

namespace mpgemm::testing {
namespace {

void fake_binary(const std::filesystem::path& dir, const std::string& name, const std::string& prints, int rc) {
  const auto path = dir / name;
  std::ofstream(path) << "#!/usr/bin/env bash\nprintf '" << prints << "'\nexit " << rc << "\n";
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
}

TEST(CliGpuTestsScript, SaysWhatSkippedAndFailsOnAFailedOrUnrunBinary) {
  const auto dir = fresh_dir("gpu_tests_script");
  const auto bins = dir / "bin";
  std::filesystem::create_directories(bins);
  fake_binary(bins, "device_timing_test",
              "[  SKIPPED ] DeviceTimingTest.OneOfThem (0 ms)\\n[  PASSED  ] 0 tests.\\n"
              "[  SKIPPED ] 6 tests, listed below:\\n[  SKIPPED ] DeviceTimingTest.OneOfThem\\n",
              0);
  fake_binary(bins, "tune_points_test", "[  PASSED  ] 2 tests.\\n[  FAILED  ] 1 test, listed below:\\n", 1);
  fake_binary(bins, "libcore_gemm_test", "[  PASSED  ] 7 tests.\\n", 0);
  const std::string script = source("tools/gpu_tests.sh") + " --bin " + bins.string();

  const auto out = dir / "out";
  const auto r = run_command(
      fmt::format("{} --out {} device_timing_test tune_points_test libcore_gemm_test", script, out.string()));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  const std::string summary = read_file(out / "summary.txt");
  EXPECT_NE(summary.find("device_timing_test rc=0"), std::string::npos) << summary;
  EXPECT_NE(summary.find("tune_points_test rc=1"), std::string::npos) << summary;
  EXPECT_NE(summary.find("3 binaries, 1 of them skipped every test"), std::string::npos) << summary;
  EXPECT_NE(summary.find("[  SKIPPED ] 6 tests, listed below:"), std::string::npos) << summary;
  EXPECT_EQ(summary.find("OneOfThem"), std::string::npos) << "gtest's totals only, not each test: " << summary;
  EXPECT_TRUE(std::filesystem::exists(out / "libcore_gemm_test.log"));
  EXPECT_TRUE(std::filesystem::exists(out / "gpu.txt"));

  const auto passing = run_command(fmt::format("{} --out {}/ok libcore_gemm_test", script, dir.string()));
  EXPECT_EQ(passing.exit_code, 0) << passing.output;
  EXPECT_NE(passing.output.find("1 binaries, 0 of them skipped every test"), std::string::npos) << passing.output;

  const auto no_time = run_command(fmt::format("{} --out {}/t --budget 0 libcore_gemm_test", script, dir.string()));
  EXPECT_EQ(no_time.exit_code, 1) << no_time.output;
  EXPECT_NE(no_time.output.find("libcore_gemm_test not run: out of time"), std::string::npos) << no_time.output;

  const auto no_value = run_command(script + " --out");
  EXPECT_EQ(no_value.exit_code, 2) << no_value.output;
  EXPECT_NE(no_value.output.find("--out needs a value"), std::string::npos) << no_value.output;
  const auto unknown = run_command(script + " cli_errors_test");
  EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("cli_errors_test is no GPU test"), std::string::npos) << unknown.output;
  // Without names it takes every file of tests/gpu, and a stand-in folder lacks most of them.
  const auto unbuilt = run_command(script);
  EXPECT_EQ(unbuilt.exit_code, 2) << unbuilt.output;
  EXPECT_NE(unbuilt.output.find("is not built"), std::string::npos) << unbuilt.output;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mpgemm::testing
