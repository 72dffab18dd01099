#pragma once
// The measuring protocol's defaults, defined once. Every struct that carries the protocol (MeasureSettings and
// RerankProtocol in tune/backend.hpp, the worker's requests in worker/protocol.hpp, device/timing.hpp's
// TimingPlan) starts from these values, and the command lines' --help prints them from here
// (cli/measure_options.cpp), so a default changed here is changed everywhere it is read or shown.
namespace mpgemm {

struct ProtocolDefaults {
  double atol = 0.5;       // absolute tolerance against cuBLAS
  double rtol = 1e-3;      // relative tolerance against cuBLAS
  int warmup = 3;          // untimed launches before timing
  int runs = 5;            // timed batches
  int iters = 20;          // launches per timed batch
  int rerank_rounds = 10;  // the re-rank's rounds: one batch of `iters` launches of each entry per round
};
inline constexpr ProtocolDefaults kProtocolDefaults{};

}  // namespace mpgemm
