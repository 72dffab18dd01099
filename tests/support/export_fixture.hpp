#pragma once
// A small results database for the export tests, written through the Store API: two devices, a re-rank winner, a
// tuning winner with and one without cuBLASLt, in the three cases the export distinguishes.
//   NVIDIA H200 (sm_90, 132 SMs)  4096^3: two wgmma configs measured (with cuBLAS and cuBLASLt), then a re-rank that
//                                          names the slower-measured one (kWgmmaWinner) the winner, in graph replays
//                                 2048^3: one wmma config (arch sm_90), cuBLAS only: a tuning winner timed in
//                                         graph replays
//   NVIDIA GeForce RTX 3050 (sm_86, 20 SMs) 1024^3: the wmma config (arch sm_86), a tuning winner timed call by call
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "codegen/family.hpp"
#include "codegen/wgmma_family.hpp"
#include "store/store.hpp"
#include "support/store_fixture.hpp"

namespace mpgemm::testing {

inline const Shape kBig{4096, 4096, 4096};
inline const Shape kMid{2048, 2048, 2048};
inline const Shape kSmall{1024, 1024, 1024};
inline const std::string kH200 = "NVIDIA H200";
inline const std::string kRtx = "NVIDIA GeForce RTX 3050";

// The named point wmma_cp_async of configs/sm86.json.
inline Params wmma_params() {
  return {{"BM", std::int64_t{128}},         {"BN", std::int64_t{64}},   {"BK", std::int64_t{32}},
          {"WM", std::int64_t{32}},          {"WN", std::int64_t{32}},   {"STAGES", std::int64_t{2}},
          {"LOAD", std::string("cp_async")}, {"PAD_A", std::int64_t{8}}, {"PAD_B", std::int64_t{8}}};
}
inline Params wgmma_winner_params() {
  return WgmmaConfig{}.to_params();
}  // the point wgmma_persistent
inline Params wgmma_other_params() {
  WgmmaConfig c;
  c.bn = 128;
  return c.to_params();
}

inline std::int64_t add_run(Store& s, const std::string& device, const std::string& cc, int sms) {
  RunInfo info;
  info.device_name = device;
  info.device_cc = cc;
  info.sm_count = sms;
  return s.begin_run(info);
}

inline std::int64_t add_config(Store& s, const std::string& family_name, const Params& params) {
  return s.upsert_config(Candidate{family_name, params, family(family_name).config_name(params), std::nullopt},
                         "0123456789abcdef");
}

// An 'ok' measurement at `ms` with its cuBLAS reference (and cuBLASLt's when lt_ms > 0), its batches enqueued as
// `batches` says.
inline void add_measurement(Store& s, std::int64_t run, std::int64_t config, const std::string& device,
                            const std::string& cc, const std::string& arch, const Shape& shape, double ms,
                            double cublas_ms, double lt_ms, const std::string& key,
                            BatchEnqueue batches = BatchEnqueue::stream) {
  MeasurementRecord m;
  m.run_id = run;
  m.config_id = config;
  m.result_key = key;
  m.device_name = device;
  m.device_cc = cc;
  m.arch = *Arch::parse(arch);
  m.shape = shape;
  m.measurement.status = Status::ok;
  m.measurement.timing = TimingStats{ms, ms, ms, 3, 5, 20};
  m.measurement.timing->batches = batches;
  m.cublas_id = s.record_cublas(
      run, CublasRecord{device, cc, shape, TimingStats{cublas_ms, cublas_ms, cublas_ms, 3, 5, 20}, 0, std::nullopt});
  m.ratio_to_cublas = cublas_ms / ms;
  if (lt_ms > 0) {
    CublasLtRecord lt{device, cc, shape, {}, std::nullopt};
    lt.reference.heuristics_returned = 8;
    lt.reference.heuristics_valid = 8;
    lt.reference.timing = TimingStats{lt_ms, lt_ms, lt_ms, 3, 5, 20};
    lt.reference.algo = CublasLtAlgo{};
    m.cublaslt_id = s.record_cublaslt(run, lt);
    m.ratio_to_cublaslt = lt_ms / ms;
  }
  s.record_measurement(m);
}

// Writes the database described above at `path`.
inline void write_export_db(const std::filesystem::path& path) {
  Store s = Store::open(path, Store::Mode::read_write);
  const auto h200 = add_run(s, kH200, "sm_90", 132);
  const auto winner = add_config(s, "wgmma", wgmma_winner_params());
  const auto other = add_config(s, "wgmma", wgmma_other_params());
  const auto wmma = add_config(s, "wmma", wmma_params());
  add_measurement(s, h200, winner, kH200, "sm_90", "sm_90a", kBig, 0.200, 0.190, 0.180, "w1");
  add_measurement(s, h200, other, kH200, "sm_90", "sm_90a", kBig, 0.198, 0.190, 0.180, "w2");
  add_measurement(s, h200, wmma, kH200, "sm_90", "sm_90", kMid, 0.100, 0.050, 0, "m1", BatchEnqueue::graph);
  RerankRecord r;
  r.run_id = h200;
  r.device_name = kH200;
  r.device_cc = "sm_90";
  r.shape = kBig;
  r.warmup = 2;
  r.rounds = 10;
  r.iters = 20;
  r.rule = "test_rule";
  r.batches = BatchEnqueue::graph;
  r.winner_config_id = winner;
  r.cublas_median_ms = 0.2;
  RerankEntryRecord e;
  e.config_id = winner;
  e.arch = *Arch::parse("sm_90a");
  e.prior_median_ms = 0.2;
  e.timing = TimingStats{0.195, 0.195, 0.195, 2, 10, 20};
  e.ratio_to_cublas = 0.2 / 0.195;
  e.tied = true;
  e.place = 1;
  r.entries = {e};
  s.record_rerank(r);
  s.end_run(h200, "finished");
  const auto rtx = add_run(s, kRtx, "sm_86", 20);
  add_measurement(s, rtx, wmma, kRtx, "sm_86", "sm_86", kSmall, 0.010, 0.008, 0, "r1");
  s.end_run(rtx, "finished");
}

// Winners that hand tiles between CTAs through the workspace's flags, one shape each so that each is its shape's
// winner (measured on the H200, sm_90a), for the launch test of exported split-K and stream-K kernels:
//   777x1240x520    split-K 2 over every tile: edge tiles in M and N, 9 k-blocks cut 4 + 5
//   2048x2048x512   split-K 2 over the last partial wave only: 256 tiles of 128 x 128, 124 of them split
//   3072x3072x256   stream-K: 576 tiles; 396 run whole, the k-blocks of the other 180 shared among 132 CTAs in
//                   ranges that cross tile boundaries
inline std::vector<std::pair<Shape, WgmmaConfig>> split_winners() {
  WgmmaConfig all;
  all.bn = 128;
  all.split_k = 2;
  WgmmaConfig tail = all;
  tail.split_mode = SplitMode::tail;
  WgmmaConfig stream = all;
  stream.split_k = 1;
  stream.split_mode = SplitMode::stream;
  return {{Shape{777, 1240, 520}, all}, {Shape{2048, 2048, 512}, tail}, {Shape{3072, 3072, 256}, stream}};
}

// Writes a database whose H200 winners are split_winners(), each a tuning winner of its shape.
inline void write_split_export_db(const std::filesystem::path& path) {
  Store s = Store::open(path, Store::Mode::read_write);
  const auto h200 = add_run(s, kH200, "sm_90", 132);
  int key = 0;
  for (const auto& [shape, config] : split_winners()) {
    const auto id = add_config(s, "wgmma", config.to_params());
    add_measurement(s, h200, id, kH200, "sm_90", "sm_90a", shape, 0.05, 0.06, 0.06, "s" + std::to_string(key++),
                    BatchEnqueue::graph);
  }
  s.end_run(h200, "finished");
}

// A test with the database above at dir_/results.db (db_), in a folder of its own removed afterwards.
class ExportDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = per_test_dir();
    std::filesystem::create_directories(dir_);
    db_ = dir_ / "results.db";
    write_export_db(db_);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  std::filesystem::path dir_, db_;
};

}  // namespace mpgemm::testing
