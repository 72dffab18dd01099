// tools/profile_layer2.sh without a GPU: a stand-in ncu (NCU=...) records how it is called, "exports" a
// report and prints it back as ncu's CSV, so the script's own logic is tested here: one .ncu-rep kept beside
// each CSV, the best config of any family profiled with its family's kernel filter, every CSV recorded in the
// database.
#include <gtest/gtest.h>

#include <fstream>

#include "reliability/replay_fixture.hpp"

namespace mpgemm::testing {
namespace {

// Writes its arguments, one call per line, to ncu_calls.log beside itself. --export FILE writes the -k filter
// it was given into FILE (the "report"); --import FILE prints one counter of that report as ncu --csv does,
// with the filter as the kernel name, so the database shows which filter picked which kernel.
constexpr const char* kFakeNcu = R"sh(#!/usr/bin/env bash
here="$(cd "$(dirname "$0")" && pwd)"
printf '%s\n' "$*" >> "$here/ncu_calls.log"
args=("$@"); export_to=""; import_from=""; filter="(first launch)"
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[i]}" in
    --export) export_to="${args[i+1]}" ;;
    --import) import_from="${args[i+1]}" ;;
    -k) filter="${args[i+1]}" ;;
  esac
done
if [ -n "$import_from" ]; then
  echo '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"'
  echo "\"0\",\"7\",\"mpgemm-worker\",\"h\",\"$(cat "$import_from")\",\"1\",\"13\",\"(384, 1, 1)\",\"(132, 1, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"gpu__time_duration.sum\",\"ns\",\"1,234\""
  exit 0
fi
[ -n "$export_to" ] || { echo "fake ncu: no --export" >&2; exit 3; }
printf '%s' "$filter" > "$export_to"
)sh";

TEST(CliProfileScript, KeepsOneReportPerKernelAndFiltersTheBestByItsFamily) {
  const auto dir = fresh_dir("profile_script");
  const auto db = dir / "bench.db";
  std::filesystem::copy_file(source("tests/data/db/h200_wgmma_schema5.db"), db);  // its best: wgmma
  const auto ncu = dir / "ncu";
  std::ofstream(ncu) << kFakeNcu;
  std::filesystem::permissions(ncu, std::filesystem::perms::owner_all);
  // A stand-in nvidia-smi: ncu's CSV names the GPU only by its ordinal, so the script takes its name from here.
  const auto smi = dir / "nvidia-smi";
  std::ofstream(smi) << "#!/bin/sh\necho 'NVIDIA Fake H200'\n";
  std::filesystem::permissions(smi, std::filesystem::perms::owner_all);
  const auto out = dir / "profiles";

  const auto r = run_command(
      fmt::format("PATH={}:$PATH NCU={} MPGEMM_BIN={}/bin MPGEMM_PROFILE_DIR={} {} {} 2048 2048 2048", dir.string(),
                  ncu.string(), MPGEMM_BINARY_DIR, out.string(), source("tools/profile_layer2.sh"), db.string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;

  const std::vector<std::string> labels{"wmma_naive", "wmma_shared", "wmma_cp_async", "best", "cublas"};
  for (const auto& label : labels) {
    EXPECT_TRUE(std::filesystem::exists(out / (label + ".ncu-rep"))) << label;
    EXPECT_TRUE(std::filesystem::exists(out / (label + ".csv"))) << label;
  }
  EXPECT_TRUE(std::filesystem::exists(out / "all_counters.csv"));

  // Which filter picked which kernel, as recorded in the database.
  const auto kernels = sql_rows(db, "SELECT label, kernel FROM profile_metrics ORDER BY id");
  ASSERT_EQ(kernels.size(), labels.size());
  std::map<std::string, std::string> kernel_of;
  for (const auto& k : kernels) kernel_of[k[0]] = k[1];
  EXPECT_EQ(kernel_of.at("best"), "regex:(^|[^A-Za-z0-9_])wgmma_gemm");
  for (const char* point : {"wmma_naive", "wmma_shared", "wmma_cp_async"})
    EXPECT_EQ(kernel_of.at(point), "regex:(^|[^A-Za-z0-9_])wmma_gemm") << point;
  EXPECT_EQ(kernel_of.at("cublas"), "(first launch)");
  EXPECT_EQ(sql_text(db, "SELECT value FROM profile_metrics WHERE label = 'best'"), "1234");
  EXPECT_EQ(sql_text(db, "SELECT group_concat(DISTINCT device_name) FROM profile_metrics"), "NVIDIA Fake H200");

  // The best config profiled is best_per_shape's, whatever its family.
  const std::string calls = file_text(dir / "ncu_calls.log");
  const std::string best = sql_text(db, "SELECT config_name FROM best_per_shape WHERE M = 2048");
  EXPECT_NE(calls.find("--config " + best), std::string::npos) << calls;
  EXPECT_NE(calls.find("--export " + (out / "best.ncu-rep").string()), std::string::npos) << calls;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mpgemm::testing

namespace mpgemm::testing {
namespace {

// One label is one kernel: a CSV of two kernels (ncu on mpgemm-run profiles cuBLAS's reference GEMM too) is refused
// unless --kernel picks one, since the readers would show only one of them under the label. A database that did
// not exist is created, and that is said.
TEST(CliProfile, TwoKernelsUnderOneLabelAreRefusedUnlessOneIsChosen) {
  const auto dir = fresh_dir("profile_two_kernels");
  const auto csv = dir / "two.csv";
  {
    std::ofstream out(csv);
    bool header = false;
    int id = 0;  // as one ncu run numbers its kernels: 0, 1, ...
    for (const char* label : {"cublas", "wmma_naive"}) {
      std::ifstream in(source(fmt::format("tests/data/ncu/{}.csv", label)));
      for (std::string line; std::getline(in, line);) {
        if (!line.starts_with('"')) continue;
        if (line.starts_with("\"ID\"")) {
          if (header) continue;
          header = true;
        } else {
          line = fmt::format("\"{}\"", id) + line.substr(line.find(','));
        }
        out << line << "\n";
      }
      ++id;
    }
  }
  const auto db = dir / "p.db";
  const std::string bare = bin("mpgemm-profile") + " " + db.string() + " " + csv.string() + " --label mixed";
  const auto no_shape = run_command(bare + " --kernel wmma_gemm");
  EXPECT_EQ(no_shape.exit_code, 2) << no_shape.output;
  EXPECT_NE(no_shape.output.find("--M, --N and --K are required"), std::string::npos) << no_shape.output;
  EXPECT_FALSE(std::filesystem::exists(db)) << "nothing is written when the input is refused";
  const std::string profile = bare + " --M 2048 --N 2048 --K 1024";
  const auto both = run_command(profile);
  EXPECT_EQ(both.exit_code, 2) << both.output;
  EXPECT_NE(both.output.find("holds 2 kernels"), std::string::npos) << both.output;
  EXPECT_FALSE(std::filesystem::exists(db)) << "nothing is written when the input is refused";

  const auto none = run_command(profile + " --kernel no_such_kernel");
  EXPECT_EQ(none.exit_code, 2) << none.output;

  const auto one = run_command(profile + " --kernel wmma_gemm");
  ASSERT_EQ(one.exit_code, 0) << one.output;
  EXPECT_NE(one.output.find("did not exist: created it"), std::string::npos) << one.output;
  EXPECT_NE(one.output.find("at 2048x2048x1024"), std::string::npos) << one.output;
  const auto kernels = sql_rows(db, "SELECT DISTINCT kernel FROM profile_metrics");
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_NE(kernels[0][0].find("wmma_gemm"), std::string::npos) << kernels[0][0];

  // A trigger planted in the database (issue 57: one deleted every measurement and the import still exited 0) is
  // refused before anything is written, naming it; the file stays as it was.
  sql_exec(db, "CREATE TRIGGER wipe AFTER INSERT ON profile_metrics BEGIN DELETE FROM profile_metrics; END;");
  const std::string before = file_text(db);
  const auto planted = run_command(profile + " --kernel wmma_gemm");
  EXPECT_EQ(planted.exit_code, 1) << planted.output;
  EXPECT_EQ(lines_of(planted.output).size(), 1u) << planted.output;
  EXPECT_NE(planted.output.find("a trigger 'wipe' on profile_metrics"), std::string::npos) << planted.output;
  EXPECT_EQ(file_text(db), before);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mpgemm::testing
