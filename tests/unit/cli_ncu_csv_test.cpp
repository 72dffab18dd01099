#include <gtest/gtest.h>

#include "cli/ncu_csv.hpp"
#include "common/error.hpp"
#include "store/store.hpp"
#include "support/run_command.hpp"

using namespace mpgemm;

namespace {
// Shaped like `ncu --csv --metrics ...` output: notes and program output first, then the details page.
const char* kSample =
    "==PROF== Connected to process 123 (/x/mpgemm-worker)\n"
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block "
    "Size\","
    "\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
    "\"0\",\"123\",\"mpgemm-worker\",\"h\",\"void mpgemm::wmma_gemm<16, 16>(const __half *, const __half *, "
    "float *, "
    "int, int, int)\",\"1\",\"7\",\"(32, 1, 1)\",\"(128, 128, 1)\",\"0\",\"9.0\",\"Command line profiler "
    "metrics\","
    "\"dram__throughput.avg.pct_of_peak_sustained_elapsed\",\"%\",\"3.91\"\n"
    "\"0\",\"123\",\"mpgemm-worker\",\"h\",\"void mpgemm::wmma_gemm<16, 16>(const __half *, const __half *, "
    "float *, "
    "int, int, int)\",\"1\",\"7\",\"(32, 1, 1)\",\"(128, 128, 1)\",\"0\",\"9.0\",\"Command line profiler "
    "metrics\","
    "\"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum\",\"sector\",\"134,217,728\"\n"
    "\"0\",\"123\",\"mpgemm-worker\",\"h\",\"void mpgemm::wmma_gemm<16, 16>(const __half *, const __half *, "
    "float *, "
    "int, int, int)\",\"1\",\"7\",\"(32, 1, 1)\",\"(128, 128, 1)\",\"0\",\"9.0\",\"Command line profiler "
    "metrics\","
    "\"launch__registers_per_thread\",\"register/thread\",\"n/a\"\n";
}  // namespace

TEST(NcuCsv, SplitsQuotedFields) {
  auto f = cli::split_csv_line(R"("a,b","c""d",,e)");
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0], "a,b");
  EXPECT_EQ(f[1], "c\"d");
  EXPECT_EQ(f[2], "");
  EXPECT_EQ(f[3], "e");
}

TEST(NcuCsv, ParsesKernelsMetricsAndThousandsSeparators) {
  auto kernels = cli::parse_ncu_csv(kSample);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_NE(kernels[0].kernel.find("wmma_gemm"), std::string::npos);
  ASSERT_EQ(kernels[0].metrics.size(), 2u);  // "n/a" skipped
  EXPECT_EQ(kernels[0].metrics[0].unit, "%");
  EXPECT_DOUBLE_EQ(kernels[0].metrics[0].value, 3.91);
  EXPECT_DOUBLE_EQ(kernels[0].metrics[1].value, 134217728.0);
  EXPECT_THROW(cli::parse_ncu_csv("no header here\n"), Error);
  EXPECT_FALSE(kernels[0].device_name) << "the Device column is an ordinal (\"0\"), not a name";
}

// The device's name comes from the metric device__attribute_display_name when the CSV has it.
TEST(NcuCsv, TheDeviceIsNamedByItsDisplayNameMetric) {
  const std::string row =
      "\"0\",\"123\",\"mpgemm-worker\",\"h\",\"k\",\"1\",\"7\",\"(32, 1, 1)\",\"(128, 128, 1)\",\"0\",\"9.0\",\"s\",";
  const std::string text = std::string(kSample) + row + "\"device__attribute_display_name\",\"\",\"NVIDIA H200\"\n";
  auto kernels = cli::parse_ncu_csv(text);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].device_name.value_or("none"), "NVIDIA H200");
  EXPECT_EQ(kernels[0].metrics.size(), 2u) << "the name is not a counter";
}

TEST(NcuCsv, SectionRowsShorterThanTheRuleColumnsCount) {
  // `ncu --set ...` (as Nsight Compute wrote it on the H200): the header ends in rule columns that metric rows leave
  // out.
  const char* sections =
      "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block "
      "Size\","
      "\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric "
      "Value\",\"Rule Name\","
      "\"Rule Type\",\"Rule Description\",\"Estimated Speedup Type\",\"Estimated Speedup\"\n"
      "\"0\",\"9\",\"mpgemm-worker\",\"h\",\"nvjet_sm90\",\"1\",\"13\",\"(384, 1, 1)\",\"(2, 66, "
      "1)\",\"0\",\"9.0\","
      "\"GPU Speed Of Light Throughput\",\"Elapsed Cycles\",\"cycle\",\"295,846\",\n"
      "\"0\",\"9\",\"mpgemm-worker\",\"h\",\"nvjet_sm90\",\"1\",\"13\",\"(384, 1, 1)\",\"(2, 66, "
      "1)\",\"0\",\"9.0\","
      "\"SpeedOfLight\",\"\",\"\",\"\",\"SOLBottleneck\",\"OPT\",\"This kernel ...\",\"global\",\"12.5\"\n";
  auto kernels = cli::parse_ncu_csv(sections);
  ASSERT_EQ(kernels.size(), 1u);
  ASSERT_EQ(kernels[0].metrics.size(), 1u);  // the rule row has no metric value
  EXPECT_EQ(kernels[0].metrics[0].name, "Elapsed Cycles");
  EXPECT_DOUBLE_EQ(kernels[0].metrics[0].value, 295846.0);
}

TEST(NcuCsv, CountersRoundTripAndCompare) {
  auto dir = mpgemm::testing::fresh_dir("ncu_compare");
  auto db = dir / "t.db";
  {
    Store s = Store::open(db, Store::Mode::read_write);
    for (auto [label, sectors] : {std::pair{"naive", 134e6}, std::pair{"shared", 12.6e6}}) {
      ProfileRecord r;
      r.label = label;
      r.kernel = "k";
      r.metrics = {{"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sector", sectors}, {"only_here", "", 1}};
      if (std::string(label) == "shared") r.metrics.pop_back();
      EXPECT_EQ(s.record_profile(r), r.metrics.size());
    }
  }
  Store ro = Store::open(db, Store::Mode::read_only);
  auto t = ro.compare_profiles("naive", "shared");
  ASSERT_EQ(t.rows.size(), 1u);  // only metrics both have
  EXPECT_NEAR(std::get<double>(t.rows[0][4]), 12.6 / 134, 1e-12);
  EXPECT_THROW(ro.compare_profiles("naive", "nothing"), Error);
  EXPECT_EQ(ro.query_named("profiles").rows.size(), 3u);
  std::filesystem::remove_all(dir);
}

// Importing the same counters twice records them once; a record that differs in any counter is recorded whole, and
// one imported again after another is the newest again (what --compare shows).
TEST(NcuCsv, ReimportingTheSameCountersAddsNothing) {
  auto dir = mpgemm::testing::fresh_dir("ncu_reimport");
  Store s = Store::open(dir / "t.db", Store::Mode::read_write);
  ProfileRecord r;
  r.label = "naive";
  r.kernel = "k";
  r.source_file = "naive.csv";
  r.metrics = {{"dram__bytes.sum", "byte", 1e6}, {"launch__registers_per_thread", "register/thread", 40}};
  EXPECT_EQ(s.record_profile(r), 2u);
  EXPECT_EQ(s.record_profile(r), 0u);
  ProfileRecord other = r;
  other.metrics[0].value = 2e6;
  EXPECT_EQ(s.record_profile(other), 2u);
  EXPECT_EQ(s.record_profile(r), 2u) << "the first again, after another: the newest again";
  EXPECT_EQ(s.record_profile(r), 0u);
  EXPECT_EQ(s.query_named("profiles").rows.size(), 6u);
  ProfileRecord shared = r;
  shared.label = "shared";
  EXPECT_EQ(s.record_profile(shared), 2u);
  EXPECT_DOUBLE_EQ(std::get<double>(s.compare_profiles("naive", "shared").rows.at(0)[2]), 1e6);
  std::filesystem::remove_all(dir);
}

// A label profiled again with another kernel, or at another shape, compares as that profile alone: counters the
// newer import lacks are not filled in from the older one.
TEST(NcuCsv, CompareTakesEachLabelsNewestKernelAndShapeOnly) {
  auto dir = mpgemm::testing::fresh_dir("ncu_newest_kernel");
  Store s = Store::open(dir / "t.db", Store::Mode::read_write);
  ProfileRecord best;
  best.label = "best";
  best.kernel = "old_kernel";
  best.metrics = {{"dram__bytes.sum", "byte", 1e6}, {"only_old", "", 7}};
  s.record_profile(best);
  ProfileRecord cublas = best;
  cublas.label = "cublas";
  cublas.kernel = "nvjet";
  s.record_profile(cublas);
  EXPECT_EQ(s.compare_profiles("best", "cublas").rows.size(), 2u);
  best.kernel = "new_kernel";  // a new best config, profiled with one counter
  best.metrics = {{"dram__bytes.sum", "byte", 2e6}};
  s.record_profile(best);
  auto t = s.compare_profiles("best", "cublas");
  ASSERT_EQ(t.rows.size(), 1u) << "only_old belongs to the old kernel";
  EXPECT_DOUBLE_EQ(std::get<double>(t.rows[0][2]), 2e6);
  best.kernel = "new_kernel";
  best.shape = Shape{4096, 4096, 4096};
  best.metrics = {{"only_old", "", 9}};
  s.record_profile(best);
  t = s.compare_profiles("best", "cublas");
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(std::get<std::string>(t.rows[0][0]), "only_old");
  EXPECT_DOUBLE_EQ(std::get<double>(t.rows[0][2]), 9);
  std::filesystem::remove_all(dir);
}
