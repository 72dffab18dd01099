// --gpus end to end on a host without GPUs: the fake worker of tests/unit/worker_client_test.cpp stands in for a
// host of N GPUs of one model (MPGEMM_TEST_FAKE_GPUS), so the tuner starts one worker and one measuring lane per
// GPU over real NVRTC compilations of part of configs/sm86.json. What a run on two GPUs must leave: every pair
// measured once, on one of the two, each measurement and each cuBLAS timing naming its GPU, the run naming both.
#include <gtest/gtest.h>

#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "reliability/replay_fixture.hpp"

namespace mpgemm {
namespace {

namespace fs = std::filesystem;
using testing::bin;
using testing::run_command;
using testing::sql_int;
using testing::sql_rows;
using testing::sql_text;

constexpr const char* kSubset = "_bm64_bn64_bk32_";  // a few configs of configs/sm86.json

class TuneGpus : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        testing::fresh_dir(std::string("tune_gpus_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_TRUE(fs::exists(bin("worker_client_test"))) << "the fake worker is not built";
  }
  void TearDown() override { fs::remove_all(dir_); }

  testing::CommandResult tune(int gpus, const std::string& extra) {
    return run_command(fmt::format(
        "cd {} && MPGEMM_TEST_FAKE_WORKER=ok MPGEMM_TEST_FAKE_GPUS={} MPGEMM_TEST_FAKE_MEASURE_MS=40 "
        "MPGEMM_TEST_FAKE_LOG={} {} configs/sm86.json --only {} --worker {} --db {} --rerank 0 --M 1024 --N 1024 "
        "--K 1024 {}",
        MPGEMM_SOURCE_DIR, gpus, (dir_ / "fake.log").string(), bin("mpgemm-tune"), kSubset, bin("worker_client_test"),
        (dir_ / "t.db").string(), extra));
  }
  fs::path db() const { return dir_ / "t.db"; }
  fs::path dir_;
};

TEST_F(TuneGpus, AllGpusShareTheWorkAndEachTimingNamesItsGpu) {
  const auto r = tune(2, "--gpus all");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("measuring on 2 GPUs: 0 (GPU-fake-0), 1 (GPU-fake-1)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("on 2 devices"), std::string::npos) << r.output;
  // One worker per GPU for the whole run: none died and was replaced (a worker started from a thread that then
  // ends is killed with it: PR_SET_PDEATHSIG).
  const std::string fake_log = testing::file_text(dir_ / "fake.log");
  std::size_t hellos = 0;
  for (std::size_t at = fake_log.find(" hello\n"); at != std::string::npos; at = fake_log.find(" hello\n", at + 1))
    ++hellos;
  EXPECT_EQ(hellos, 2u) << fake_log;

  const std::int64_t configs = sql_int(db(), "SELECT count(*) FROM configs");
  ASSERT_GE(configs, 3);
  EXPECT_EQ(sql_int(db(), "SELECT count(*) FROM measurements"), configs) << "one measurement per pair";
  EXPECT_EQ(sql_int(db(), "SELECT count(DISTINCT config_id) FROM measurements"), configs);
  // Both lanes measured (40 ms a measurement keeps each busy while the other takes the next), and what ran names
  // its GPU with an ordinal that matches its UUID.
  std::set<std::string> used;
  for (const auto& row : sql_rows(db(), "SELECT gpu_uuid, gpu_ordinal FROM measurements WHERE status = 'ok'")) {
    EXPECT_EQ(row[0], "GPU-fake-" + row[1]);
    used.insert(row[0]);
  }
  EXPECT_EQ(used, (std::set<std::string>{"GPU-fake-0", "GPU-fake-1"}));
  // Each lane timed its own cuBLAS reference, and each measurement is compared with its own GPU's.
  EXPECT_EQ(sql_int(db(), "SELECT count(DISTINCT gpu_uuid) FROM cublas_timings"), 2);
  EXPECT_EQ(sql_int(db(),
                    "SELECT count(*) FROM measurements AS m JOIN cublas_timings AS c ON c.id = m.cublas_id "
                    "WHERE m.status = 'ok' AND c.gpu_uuid IS NOT m.gpu_uuid"),
            0);
  const auto gpus = nlohmann::json::parse(sql_text(db(), "SELECT gpus FROM runs"));
  ASSERT_EQ(gpus.size(), 2u) << gpus.dump();
  EXPECT_EQ(gpus[1]["uuid"], "GPU-fake-1");
  EXPECT_EQ(gpus[1]["ordinal"], 1);
  EXPECT_EQ(gpus[0]["name"], "Fake GPU");
}

TEST_F(TuneGpus, OneGpuIsTheDefaultAndIsRecordedToo) {
  const auto r = tune(2, "");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(sql_int(db(), "SELECT count(*) FROM measurements WHERE status = 'ok' AND gpu_uuid <> 'GPU-fake-0'"), 0);
  EXPECT_GT(sql_int(db(), "SELECT count(*) FROM measurements WHERE gpu_uuid = 'GPU-fake-0' AND gpu_ordinal = 0"), 0);
}

TEST_F(TuneGpus, AListPicksThoseGpus) {
  const auto r = tune(3, "--gpus 2,1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(sql_int(db(), "SELECT count(*) FROM measurements WHERE gpu_uuid = 'GPU-fake-0'"), 0);
  EXPECT_EQ(nlohmann::json::parse(sql_text(db(), "SELECT gpus FROM runs"))[0]["ordinal"], 2);
}

TEST_F(TuneGpus, AGpuTheHostLacksIsAUsageErrorBeforeAnythingIsRecorded) {
  const auto r = tune(2, "--gpus 0,5");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("there is no GPU 5; this host shows 2"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(db())) << "the database is opened after the GPUs are";
  const auto first = tune(2, "--gpus 3");
  EXPECT_EQ(first.exit_code, 2) << first.output;
  EXPECT_NE(first.output.find("--gpus 3: no CUDA device 3"), std::string::npos) << first.output;
  const auto bad = tune(2, "--gpus 0,0");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("GPU 0 is named twice"), std::string::npos) << bad.output;
}

// Without --gpus a host with no GPU runs the compile-only pass; with it, the run asked for GPUs and none is there: an
// error (exit 3) before anything is recorded, so a script or a Slurm job does not "succeed" without measurements.
TEST_F(TuneGpus, NamedGpusOnAHostWithoutAGpuAreAnError) {
  const auto tune_without_gpu = [&](const std::string& extra) {
    return run_command(fmt::format(
        "cd {} && MPGEMM_TEST_FAKE_WORKER=no_device {} configs/sm86.json --only {} --worker {} --db {} --rerank 0 "
        "--M 1024 --N 1024 --K 1024 {}",
        MPGEMM_SOURCE_DIR, bin("mpgemm-tune"), kSubset, bin("worker_client_test"), (dir_ / "t.db").string(), extra));
  };
  for (const char* gpus : {"--gpus all", "--gpus 0", "--gpus 0,1"}) {
    const auto r = tune_without_gpu(gpus);
    EXPECT_EQ(r.exit_code, 3) << gpus << ": " << r.output;
    EXPECT_NE(r.output.find(std::string(gpus) + ": no CUDA device: fake"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(db())) << gpus;
  }
  const auto r = tune_without_gpu("");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("running the compile-only pass"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace mpgemm
