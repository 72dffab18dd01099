// On a host with two or more GPUs (skipped, visibly, with fewer): mpgemm-tune --gpus all end to end over the
// writeup's space, one worker per GPU. Every pair is measured once, every timed measurement and cuBLAS timing names
// a GPU the device layer reports (UUID and ordinal agree), each GPU measured some pairs, and the ratios compare a
// measurement with its own GPU's cuBLAS.
#include <gtest/gtest.h>

#include <map>

#include <fmt/format.h>

#include "device/query.hpp"
#include "store/store.hpp"
#include "support/run_command.hpp"

using namespace mpgemm;
using namespace mpgemm::testing;

namespace {

std::string text(const report::Cell& c) {
  if (auto* s = std::get_if<std::string>(&c)) return *s;
  if (auto* i = std::get_if<std::int64_t>(&c)) return std::to_string(*i);
  return "";
}

TEST(TuneGpusReal, AllGpusMeasureAndEachTimingNamesItsGpu) {
  std::string why;
  if (!device_available(&why)) GTEST_SKIP() << "no CUDA device: " << why;
  const DeviceInfo first = query_device(0);
  if (first.device_count < 2) GTEST_SKIP() << "one GPU on this host: --gpus all needs two to mean anything";
  std::map<std::string, std::string> uuid_of;  // ordinal -> UUID, as the device layer reports them
  for (int o = 0; o < first.device_count; ++o) uuid_of[std::to_string(o)] = query_device(o).uuid;

  const auto dir = fresh_dir("tune_gpus_real");
  const auto db = (dir / "t.db").string();
  const auto r =
      run_command(fmt::format("cd {} && {} configs/sm86.json --gpus all --M 2048 --N 2048 --K 2048 "
                              "--db {} --rerank 0",
                              MPGEMM_SOURCE_DIR, bin("mpgemm-tune"), db));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(fmt::format("measuring on {} GPUs", first.device_count)), std::string::npos) << r.output;

  Store s = Store::open(db, Store::Mode::read_only);
  const auto pairs = s.query_sql("SELECT count(*), count(DISTINCT config_id) FROM measurements").rows.at(0);
  EXPECT_EQ(text(pairs[0]), text(pairs[1])) << "a pair measured twice";
  std::map<std::string, int> per_gpu;
  for (const auto& row : s.query_sql("SELECT gpu_ordinal, gpu_uuid FROM measurements WHERE status = 'ok'").rows) {
    EXPECT_EQ(text(row[1]), uuid_of[text(row[0])]) << "GPU " << text(row[0]);
    ++per_gpu[text(row[0])];
  }
  EXPECT_EQ(per_gpu.size(), uuid_of.size()) << "a GPU measured nothing";
  EXPECT_EQ(s.query_sql("SELECT DISTINCT gpu_uuid FROM cublas_timings").rows.size(), uuid_of.size());
  EXPECT_TRUE(s.query_sql("SELECT 1 FROM measurements AS m JOIN cublas_timings AS c ON c.id = m.cublas_id "
                          "WHERE m.status = 'ok' AND c.gpu_uuid IS NOT m.gpu_uuid")
                  .rows.empty());
  std::filesystem::remove_all(dir);
}

}  // namespace
