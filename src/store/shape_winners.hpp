#pragma once
// The winner of each (device, shape) a database holds, as `mpgemm-run --config best` takes it: the winner of the
// shape's latest re-rank (the view `winners`) when there is one, else the fastest verified config of any family
// and arch (the view `best_per_shape`). One definition for mpgemm-run and the library (src/lib).
#include <optional>
#include <string>
#include <vector>

#include "common/params.hpp"
#include "common/types.hpp"
#include "store/store.hpp"

namespace mpgemm {

struct ShapeWinner {
  std::string device_name;  // e.g. "NVIDIA H200"
  std::string device_cc;    // the device's compute capability as an arch, e.g. "sm_90"
  Arch arch;                // the compile target it was measured with, e.g. sm_90a
  Shape shape;
  std::string family;                // e.g. "wgmma"
  std::string config_name;           // the procedural name
  std::optional<std::string> alias;  // the space's point name, when it is one
  Params params;
  double median_ms = 0;                     // per launch (ms), from the re-rank or the tuning run
  std::optional<double> cublas_ms;          // cuBLAS's median it was compared with (ms)
  std::optional<double> ratio_to_cublas;    // cuBLAS median / this median: > 1 is faster than cuBLAS
  std::optional<double> cublaslt_ms;        // cuBLASLt's best (ms); none from a re-rank or when not timed
  std::optional<double> ratio_to_cublaslt;  // cuBLASLt median / this median
  bool from_rerank = false;                 // true: the view winners; false: best_per_shape

  double tflops() const { return shape.flops() / median_ms / 1e9; }
};

// One winner per (device, shape), ordered by device name, then M, N, K. Needs a Store opened read_only (its
// queries go through query_sql). Throws StoreError, and mpgemm::Error for a row whose arch or params do not read.
std::vector<ShapeWinner> shape_winners(const Store& store);

}  // namespace mpgemm
