#pragma once
// The records that flow between layers: compile -> store, worker -> coordinator -> store -> printers.
// Plain structs; units in the field comments.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/params.hpp"
#include "common/types.hpp"

namespace mpgemm {

// A point of a search space, ready to compile.
struct Candidate {
  std::string family;                // family name, e.g. "wmma"
  Params params;                     // every parameter of the family
  std::string name;                  // procedural name (Family::config_name)
  std::optional<std::string> alias;  // the space's name for it when it is a named point, e.g. "wmma_cp_async"
};

// What a ptxas performance diagnostic says the kernel lost. The diagnostics are "ptxas info : (C75xx) ..."
// lines of the -v report; the compilation still succeeds.
enum class PtxasWarningKind {
  wgmma_serialized,       // "wgmma.mma_async instructions are serialized due to ...": no wgmma overlaps another
  wgmma_wait_injected,    // ptxas added a warpgroup.wait before registers a wgmma writes are used: a stall
  wgmma_arrive_injected,  // ptxas added a warpgroup.arrive (wgmma.fence) before a wgmma uses registers
  setmaxnreg_ignored,     // "'setmaxnreg' ignored ...": the register split between warpgroups did not happen
  other_performance,      // any other "Potential Performance Loss"
};

std::string_view to_string(PtxasWarningKind kind);
std::optional<PtxasWarningKind> ptxas_warning_kind_from_string(std::string_view text);

// One ptxas diagnostic that means lost speed (parse_ptxas_warnings in compile/ptxas_report.hpp).
struct PtxasWarning {
  std::string code;  // ptxas's diagnostic code, e.g. "C7514"
  PtxasWarningKind kind = PtxasWarningKind::other_performance;
  std::string message;  // ptxas's text after the code, e.g. "Potential Performance Loss: wgmma.mma_async ..."
  friend bool operator==(const PtxasWarning&, const PtxasWarning&) = default;
};

// What NVRTC and ptxas said about one config for one arch.
struct CompileResult {
  Status status = Status::compile_failed;  // ok or compile_failed
  Arch arch;                               // the arch actually compiled for
  std::string lowered_name;                // mangled kernel name to look up in the cubin
  std::vector<char> cubin;                 // empty when compilation failed
  int registers = -1;                      // per thread, from the ptxas report; -1 when unknown
  int shared_bytes = -1;                   // static shared memory per block (bytes), from the ptxas report
  int dynamic_shared_bytes = -1;           // dynamic shared memory the family launches it with (bytes); set by
                                           // the coordinator from the launch geometry, -1 when unknown
  int spill_store_bytes = -1;              // bytes
  int spill_load_bytes = -1;               // bytes
  int stack_bytes = -1;                    // stack frame per thread (bytes)
  std::vector<PtxasWarning> warnings;      // ptxas's performance diagnostics, in log order (spills are above)
  double compile_ms = 0;                   // wall time of nvrtcCompileProgram + nvrtcGetCUBIN (ms)
  std::string log;                         // NVRTC program log (ptxas -v report or errors)
  std::string compile_key;                 // hash of source, options, arch and NVRTC version
};

// Timing of one kernel: `runs` batches of `iters` launches after `warmup` launches; per-launch times (ms).
struct TimingStats {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  int warmup = 0;
  int runs = 0;  // batches taken (with a noise target: as many as the stopping rule took)
  int iters = 0;
  double noise = 0;          // relative noise of the batch times: sample stdev / mean (unitless); 0 with one batch
  L2Mode l2 = L2Mode::warm;  // the state of L2 at each timed launch
  // How each warm batch was enqueued: what happened, which is stream when a graph was asked for and the calls
  // could not be captured. Always stream with cold L2 (each launch is timed alone after a flush).
  BatchEnqueue batches = BatchEnqueue::stream;
  // When set, batches were taken until `noise` fell below it or the time cap was hit (measure/sampling.hpp
  // NoiseStop); noise >= noise_target then means the cap stopped it. Unset: a fixed number of batches.
  std::optional<double> noise_target = std::nullopt;
  double spread() const { return median_ms > 0 ? (max_ms - min_ms) / median_ms : 0; }  // relative, unitless
};

// One timed batch of interleaved rounds (the top-K re-rank: worker time_interleaved, table rerank_samples).
struct RoundSample {
  int round = 0;     // 0-based
  int position = 0;  // 0-based place in its round among the entries timed in it
  double ms = 0;     // per launch (ms): the batch's time / iters
  friend bool operator==(const RoundSample&, const RoundSample&) = default;
};

// Element-wise comparison with the cuBLAS reference: |c - ref| <= atol + rtol * |ref|, NaN always fails.
struct ErrorStats {
  double max_abs = 0;          // max |c - ref|
  double max_rel = 0;          // max |c - ref| / |ref| over elements with ref != 0
  std::int64_t bad_count = 0;  // elements failing the tolerance (NaN included)
  std::int64_t nan_count = 0;  // elements that are NaN or Inf
  double atol = 0.5;
  double rtol = 1e-3;
};

// The outcome of measuring one candidate on one shape.
struct Measurement {
  Status status = Status::ok;
  std::optional<TimingStats> timing;  // present when status is ok
  std::optional<ErrorStats> error;    // present when the output was compared (ok or incorrect)
  double sm_clock_mhz = 0;            // SM clock read while timing (MHz); 0 when unknown
  std::string message;                // what happened, for every status other than ok
  // cuBLAS timed batch by batch alternately with the candidate (time_paired), when the measurement asked for it
  // (mpgemm-run --paired): the reference a ratio should use when the clock drifts. Not stored in the database.
  std::optional<TimingStats> paired_cublas;

  // An outcome decided without timing (constraint_rejected, compile_failed, ...), with why.
  static Measurement unmeasured(Status status, std::string why) {
    Measurement m;
    m.status = status;
    m.message = std::move(why);
    return m;
  }
};

// One cuBLASLt algorithm as cublasLtMatmulAlgoConfigGetAttribute describes it. The ids are cuBLASLt's enums
// (cublasLtMatmulTile_t, cublasLtMatmulStages_t, ...), kept as numbers: their names live in cublasLt.h.
struct CublasLtAlgo {
  int algo_id = 0;                   // CUBLASLT_ALGO_CONFIG_ID
  int tile_id = 0;                   // cublasLtMatmulTile_t, e.g. 24 = CUBLASLT_MATMUL_TILE_256x128
  int stages_id = 0;                 // cublasLtMatmulStages_t
  int splitk = 1;                    // K splits (1: none)
  int reduction_scheme = 0;          // cublasLtReductionScheme_t of the split-K sums
  int swizzle = 0;                   // CTA swizzling, 0 or 1
  int custom_option = 0;             // the algorithm's own option
  int inner_shape_id = 0;            // cublasLtMatmulInnerShape_t
  int cluster_shape_id = 0;          // cublasLtClusterShape_t
  std::int64_t workspace_bytes = 0;  // workspace it needs (bytes)
  double waves = 0;                  // the heuristic's waves count (1.0: the GPU exactly full)
  friend bool operator==(const CublasLtAlgo&, const CublasLtAlgo&) = default;
};

// "algo 66 tile 24 stages 35 splitk 1 reduction 0 swizzle 0 custom 0 inner 0 cluster 0", one line for tables.
std::string describe(const CublasLtAlgo& algo);

// How many heuristic algorithms cuBLASLt is asked for on each shape.
inline constexpr int kCublasLtHeuristics = 8;

// cuBLASLt, the second reference, on one problem: up to kCublasLtHeuristics algorithms from its heuristic,
// each run once and compared with cuBLAS (the candidates' tolerance), the ones that agree timed with the
// candidates' protocol; the fastest median is kept. Without a timing (no algorithm returned or none verified,
// or cuBLASLt failed), `message` says why.
struct CublasLtReference {
  int heuristics_returned = 0;        // algorithms cublasLtMatmulAlgoGetHeuristic returned
  int heuristics_valid = 0;           // of those, how many ran and verified (the fastest screens timed in full)
  std::optional<TimingStats> timing;  // the fastest valid algorithm (ms)
  std::optional<CublasLtAlgo> algo;   // which one it was
  std::optional<ErrorStats> error;    // its comparison with cuBLAS
  double sm_clock_mhz = 0;            // SM clock read right after timing it (MHz); 0 when unknown
  std::string message;                // why there is no timing, or which algorithms were rejected and why
};

}  // namespace mpgemm
