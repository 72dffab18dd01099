#pragma once
// mpgemm-run: rebuild chosen configs from the database, verify and time them next to cuBLAS, print the writeup's
// table (rows wmma_naive, wmma_shared, wmma_cp_async, the best tuned config, cuBLAS; columns ms, GFLOPS,
// % of cuBLAS, gain over the previous row).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/records.hpp"
#include "report/table.hpp"
#include "tune/backend.hpp"

namespace mpgemm::cli {

struct RunRow {
  std::string label;      // "wmma_naive", "best tuned", ...
  Candidate candidate;
};

struct RunOptions {
  std::string selector = "best";          // "best", a point name, a config name or a config id
  std::filesystem::path db_path = "results/results.db";
  std::filesystem::path space_path = "configs/sm86.json";  // named points when the database has none
  Shape shape;
  MeasureSettings settings;
  std::optional<std::filesystem::path> worker_path;
};

// The rows a selector stands for. "best" = the space's named points in file order, then the fastest verified
// config of the database for `device_cc` and the shape (when there is one). Throws mpgemm::Error when a name
// matches nothing, listing what exists.
std::vector<RunRow> resolve_rows(const RunOptions& options, const std::string& device_cc, std::string* note);

// Measures the rows on the GPU (compiling each with NVRTC first) and builds the table. Throws NoDeviceError.
report::Table run_rows(const RunOptions& options, std::vector<std::string>* notes);

}  // namespace mpgemm::cli
