#pragma once
// The winner of each (device, problem kind, shape) a database holds, as `mpgemm-run --config best` takes it: the
// winner of the problem's latest re-rank (the view `winners`) when there is one, else the fastest verified config of
// any family and arch (the view `best_per_shape`). A winner of one kind never stands for another. One definition for
// mpgemm-run and the library (src/lib).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/params.hpp"
#include "common/problem_kind.hpp"
#include "common/types.hpp"
#include "store/store.hpp"

namespace mpgemm {

// The database row a winner was read from, for messages: the re-rank (view winners) or the tuning measurement
// (view best_per_shape), the config and the run.
struct WinnerRow {
  std::int64_t id = 0;  // reranks.id or measurements.id
  std::int64_t config_id = 0;
  std::int64_t run_id = 0;
};

struct ShapeWinner {
  std::string device_name;  // e.g. "NVIDIA H200"
  std::string device_cc;    // the device's compute capability as an arch, e.g. "sm_90"
  Arch arch;                // the compile target it was measured with, e.g. sm_90a
  Shape shape;
  ProblemKind kind = {};             // what it computes (column problem); the default kind before schema 14
  std::string family;                // e.g. "wgmma"
  std::string config_name;           // the procedural name
  std::optional<std::string> alias;  // the space's point name, when it is one
  Params params;
  double median_ms = 0;                   // per launch (ms), from the re-rank or the tuning run
  std::optional<double> cublas_ms;        // cuBLAS's median it was compared with (ms)
  std::optional<double> ratio_to_cublas;  // cuBLAS median / this median: > 1 is faster than cuBLAS
  // cuBLASLt's best (ms) and the ratio to it. A re-rank has no cuBLASLt: a re-rank winner's are those of its own
  // fastest tuning measurement of the shape that has a timed cuBLASLt (none when it has none).
  std::optional<double> cublaslt_ms;
  std::optional<double> ratio_to_cublaslt;  // cuBLASLt median / this median
  bool from_rerank = false;                 // true: the view winners; false: best_per_shape
  // How it was timed (mpgemm-export's command that measures it again): the re-rank's rounds, or the tuning
  // measurement's protocol.
  L2Mode l2 = L2Mode::warm;  // re-rank rounds are always warm
  // How each batch was enqueued: call by call (stream) or as one graph replay.
  BatchEnqueue batches = BatchEnqueue::stream;
  int warmup = 0;                        // launches before timing
  int runs = 0;                          // timed batches (a re-rank's rounds)
  int iters = 0;                         // launches per batch
  std::optional<std::int64_t> sm_count;  // multiprocessors of the device, from the run that timed it
  std::optional<WinnerRow> row;          // where a database holds it; none for an exported entry

  double tflops() const { return shape.flops() / median_ms / 1e9; }
  GemmProblem problem() const { return {shape, kind}; }
};

// One winner per (device, problem kind, shape) of kind `kind`, ordered by device name, then M, N, K. Needs a Store
// opened read_only (its queries go through query_sql). Every winner of every kind is checked as
// store/winner_checks.hpp says before any is handed out: a row that does not read (its params not JSON, an unknown
// arch, a problem that names no kind) or that disagrees with itself (its name with its params, a ratio with its
// times) throws StoreError naming the database, the view, the row's ids, the device and the shape. Like the library,
// which opens every winner of a file or none, it refuses the whole database rather than skip the shape: mpgemm-run
// and mpgemm-export never take another kernel than the one measured, nor leave a shape out without failing.
std::vector<ShapeWinner> shape_winners(const Store& store, const ProblemKind& kind);
// Every kind's winners, ordered by device name, then kind (the default first), then M, N, K.
std::vector<ShapeWinner> all_shape_winners(const Store& store);
// The default kind's (mk_kn_fp16_fp32): what mpgemm-run, the export and the library serve until they take a kind.
inline std::vector<ShapeWinner> shape_winners(const Store& store) {
  return shape_winners(store, ProblemKind{});
}

}  // namespace mpgemm
