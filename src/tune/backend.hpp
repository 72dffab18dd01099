#pragma once
// Where measurements come from. The coordinator asks a backend for the device it measures on, a cuBLAS reference
// per shape, and one Measurement per candidate; it never touches a GPU itself.
//   GpuBackend    -> a worker process on a CUDA device (worker/), replaced when a kernel faults or hangs
//   ReplayBackend -> the outcomes recorded in an earlier database, for strategy studies and CI without a GPU
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/device.hpp"
#include "common/problem_kind.hpp"
#include "common/records.hpp"
#include "common/types.hpp"
#include "measure/protocol_defaults.hpp"
#include "measure/sampling.hpp"
#include "worker/protocol.hpp"

namespace mpgemm {

// How every candidate is verified and timed; part of each result key (all but `cublaslt`).
struct MeasureSettings {
  // What every shape computes (--problem): the kind's layouts and types, and the scalars of D = alpha * A.B +
  // beta * C (beta only where the kind reads C; 1 so that C counts as much as the product). One kind per run; in
  // the key through the problem (tune/keys.hpp), the scalars not at all: a kernel computes any of them alike.
  ProblemKind kind;
  float alpha = 1;
  float beta = 1;
  double atol = kProtocolDefaults.atol;   // absolute tolerance against cuBLAS
  double rtol = kProtocolDefaults.rtol;   // relative tolerance against cuBLAS
  int warmup = kProtocolDefaults.warmup;  // launches before timing
  int runs = kProtocolDefaults.runs;      // timed batches
  int iters = kProtocolDefaults.iters;    // launches per batch
  bool paired = false;       // time cuBLAS alternately with every candidate (Measurement::paired_cublas): mpgemm-run
                             // --paired. The tuner's ratios use the shape's one cuBLAS timing.
  bool cublaslt = true;      // time cuBLASLt as a second reference per shape; not in result keys: it changes the
                             // references recorded next to a candidate, never the candidate's own outcome
  L2Mode l2 = L2Mode::warm;  // --l2: cold flushes L2 before every timed launch (cuBLAS's too)
  // --graphs: every warm batch (the candidates', cuBLAS's, cuBLASLt's, the screen's) a replay of a captured graph
  BatchEnqueue batches = BatchEnqueue::stream;
  std::optional<NoiseStop> noise_stop;  // --noise-target: batches until the noise target instead of `runs`
  // The quick screen against the best so far for the shape (--screen-threshold, --screen-launches); unset with
  // --no-screen. In the key too: a screened_out outcome depends on it.
  std::optional<ScreenRule> screen = ScreenRule{};
  // --settle-ms: untimed cuBLAS launches when a shape is prepared, before its references and candidates are
  // timed (PrepareShapeRequest::settle_ms); 0 (the default): none. After the host-side input fill the H200 ran the
  // first configs of 8192x2048x4096 at 1815 MHz against ~1480 for the rest; with 1 s of settling at 1650-1770.
  // In the key when set.
  int settle_ms = 0;
  // --keep-warm-ms, --idle-settle-ms: the worker keeps cuBLAS running between requests and settles the card before
  // a measurement that finds it idle (measure/sampling.hpp ClockHold); off here, on by the command lines' defaults.
  // In the key when set.
  ClockHold hold = {};
};

// cuBLAS on one shape, timed with the same protocol as the candidates, and cuBLASLt's best of its heuristics
// when it was asked for (or, replaying, when the recording has it).
struct ShapeReference {
  TimingStats timing;
  double sm_clock_mhz = 0;  // SM clock read right after timing (MHz); 0 when unknown
  std::optional<CublasLtReference> cublaslt;
  // The shape was prepared before by this backend and kept (PrepareShapeReply::inputs_kept): `cublaslt` is that
  // preparation's search, not a new one.
  bool kept = false;
};

// One already-measured config to re-time side by side with others (MeasureBackend::time_interleaved).
struct RerankKernel {
  Candidate candidate;
  CompileResult compiled;  // its cubin; empty where the backend needs none (replay)
  double expected_ms = 0;  // its stored median (ms): sizes the time limit
};

// The re-rank's protocol: `warmup` launches of each entry, untimed rounds for `settle_ms`, then `rounds` rounds of
// one batch of `iters` launches per entry (TimeInterleavedRequest).
struct RerankProtocol {
  int warmup = kProtocolDefaults.warmup;
  int rounds = kProtocolDefaults.rerank_rounds;
  int iters = kProtocolDefaults.iters;
  bool graphs = false;  // time each batch as a replay of a captured CUDA graph (TimeInterleavedRequest::graphs)
  int settle_ms = 0;    // untimed rounds before the timed ones, in wall time (TimeInterleavedRequest::settle_ms)
};

// What a backend can do, declared by the backend, so the coordinator never compares backends by name.
struct BackendCapabilities {
  bool needs_cubins = true;  // it runs compiled kernels (a GPU); false: outcomes come from a recording, nothing
                             // is compiled
  bool interleaved = false;  // time_interleaved gives outcomes: the top-K re-rank can run on it
};

class MeasureBackend {
 public:
  virtual ~MeasureBackend() = default;
  virtual std::string mode() const = 0;  // "gpu" or "replay", as stored in runs.mode
  virtual const DeviceDescription& device() const = 0;
  // Prepares inputs for `shape` and returns cuBLAS's timing on it (same protocol as the candidates), and
  // cuBLASLt's.
  virtual ShapeReference prepare_shape(const Shape& shape) = 0;
  // Verifies and times one compiled candidate on the prepared shape. Never throws for a kernel's misbehaviour:
  // faults, hangs and wrong answers come back as statuses. nullopt: the backend has no outcome (replay only).
  virtual std::optional<Measurement> measure(const Candidate& candidate, const CompileResult& compiled,
                                             const Shape& shape) = 0;
  // The same with the best median so far for the shape (ms), which a backend that screens (GpuBackend, with
  // MeasureSettings::screen) compares the candidate's first launches against: a much slower one comes back
  // Status::screened_out. nullopt: no screening. The default ignores it.
  virtual std::optional<Measurement> measure_screened(const Candidate& candidate, const CompileResult& compiled,
                                                      const Shape& shape, std::optional<double> screen_against_ms) {
    (void)screen_against_ms;
    return measure(candidate, compiled, shape);
  }

  // What it can do; the coordinator asks this, never the mode's name.
  virtual BackendCapabilities capabilities() const = 0;
  // Re-times `kernels` side by side with cuBLAS on the prepared shape in balanced rounds (worker
  // time_interleaved): InterleavedReply's kernels in the order given. A kernel's failure is its status;
  // nullopt: the backend cannot re-rank. Throws WorkerError when a worker hangs or dies during the rounds.
  virtual std::optional<InterleavedReply> time_interleaved(const std::vector<RerankKernel>& kernels, const Shape& shape,
                                                           const RerankProtocol& protocol) {
    (void)kernels, (void)shape, (void)protocol;
    return std::nullopt;
  }
  // Where its measuring process's time went (worker/phase_totals.hpp), asked at the end of a run; nullopt: a
  // backend without a worker, or one that did not answer.
  virtual std::optional<WorkerPhases> worker_account() { return std::nullopt; }
};

}  // namespace mpgemm
