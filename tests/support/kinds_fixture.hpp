#pragma once
// A results database with winners of two problem kinds, for the library's and the export's tests: the export
// fixture's default-kind winners (tests/support/export_fixture.hpp: an H200 and an RTX 3050) plus, on the H200 at
// 4096^3, the two wgmma configs measured as kLinear (mk_nk_bf16_bf16) against cuBLAS and cuBLASLt of that kind, where
// the default kind's re-rank loser (wgmma_other_params) is the faster: kLinear's winner is not the default kind's.
#include <filesystem>
#include <string>

#include "common/problem_kind.hpp"
#include "support/export_fixture.hpp"

namespace mpgemm::testing {

inline const ProblemKind kLinear = *ProblemKind::parse("mk_nk_bf16_bf16");
inline constexpr double kLinearCublasMs = 0.16;  // cuBLAS of kLinear at 4096^3 (ms)

// An 'ok' measurement of kLinear at 4096^3 with its cuBLAS and cuBLASLt references of the same kind.
inline void add_linear_measurement(Store& s, std::int64_t run, std::int64_t config, double ms, const std::string& key) {
  MeasurementRecord m;
  m.run_id = run;
  m.config_id = config;
  m.result_key = key;
  m.device_name = kH200;
  m.device_cc = "sm_90";
  m.arch = *Arch::parse("sm_90a");
  m.shape = kBig;
  m.kind = kLinear;
  m.measurement.status = Status::ok;
  m.measurement.timing = TimingStats{ms, ms, ms, 3, 5, 20};
  CublasRecord c{kH200, "sm_90",     kBig, TimingStats{kLinearCublasMs, kLinearCublasMs, kLinearCublasMs, 3, 5, 20},
                 0,     std::nullopt};
  c.kind = kLinear;
  m.cublas_id = s.record_cublas(run, c);
  m.ratio_to_cublas = kLinearCublasMs / ms;
  CublasLtRecord lt{kH200, "sm_90", kBig, {}, std::nullopt, kLinear};
  lt.reference.heuristics_returned = 8;
  lt.reference.heuristics_valid = 8;
  lt.reference.timing = TimingStats{0.155, 0.155, 0.155, 3, 5, 20};
  lt.reference.algo = CublasLtAlgo{};
  m.cublaslt_id = s.record_cublaslt(run, lt);
  m.ratio_to_cublaslt = 0.155 / ms;
  s.record_measurement(m);
}

// Adds kLinear's two measurements to a database write_export_db wrote: wgmma_winner_params at 0.150 ms,
// wgmma_other_params at 0.140 ms (the winner of kLinear, 0.16 / 0.14 = 1.143x its cuBLAS).
inline void add_linear_winners(const std::filesystem::path& path) {
  Store s = Store::open(path, Store::Mode::read_write);
  const auto run = add_run(s, kH200, "sm_90", 132);
  add_linear_measurement(s, run, add_config(s, "wgmma", wgmma_winner_params()), 0.150, "l1");
  add_linear_measurement(s, run, add_config(s, "wgmma", wgmma_other_params()), 0.140, "l2");
  s.end_run(run, "finished");
}

// write_export_db, then add_linear_winners.
inline void write_kinds_db(const std::filesystem::path& path) {
  write_export_db(path);
  add_linear_winners(path);
}

}  // namespace mpgemm::testing
