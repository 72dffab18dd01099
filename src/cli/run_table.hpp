#pragma once
// mpgemm-run: rebuild chosen configs from the database, verify and time them next to cuBLAS and cuBLASLt,
// print the writeup's table (rows: the space's named points, the best tuned config, cuBLAS, cuBLASLt's best
// of its top heuristics; columns ms, GFLOPS, % of cuBLAS, % of cuBLASLt, gain over the previous row).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/records.hpp"
#include "report/table.hpp"
#include "store/shape_winners.hpp"
#include "tune/backend.hpp"

namespace mpgemm::cli {

struct RunRow {
  std::string label;  // "wmma_naive", "best tuned", ...
  Candidate candidate;
  std::optional<Arch> arch;  // compile for this arch (the one the best row was measured with); none: the device's
};

struct RunOptions {
  std::string selector = "best";  // "best", a point name, a config name or a config id
  std::filesystem::path db_path = "results/results.db";
  std::filesystem::path space_path = "configs/sm86.json";  // named points when the database has none
  Shape shape;
  MeasureSettings settings;
  std::optional<std::filesystem::path> worker_path;
  std::optional<std::filesystem::path> cubin_cache;  // default: CubinCache::beside(db_path), as mpgemm-tune's
};

// What a selector stands for, found without a device: the rows it names, and for "best" the database's winners
// of the shape (one per device) to pick from once the device is known.
struct RowPlan {
  std::vector<RunRow> rows;
  bool wants_best = false;           // selector "best": add the device's winner as the "best tuned" row
  std::vector<ShapeWinner> winners;  // of the shape, every device
};

// Reads the database (when it exists) and the space. Throws mpgemm::Error when a name matches nothing, listing
// where it looked, and SpaceError for a broken space.
RowPlan plan_rows(const RunOptions& options);

// The plan's rows on the device named; `note` says when "best" found no winner for it.
std::vector<RunRow> rows_for_device(const RowPlan& plan, const RunOptions& options, const std::string& device_name,
                                    std::string* note);

// The rows a selector stands for (plan_rows, then rows_for_device). "best" = the space's named points in file order,
// then the winner of the latest re-rank of the shape on the device (by name; the view winners), else the fastest
// verified config of the database for the device and the shape, whatever its family and arch (the view best_per_shape),
// when there is one. Throws mpgemm::Error when a name matches nothing, listing what exists.
std::vector<RunRow> resolve_rows(const RunOptions& options, const DeviceDescription& device, std::string* note);

// One row's outcome: measured, or the reason it was not (constraint_rejected, compile_failed with the log).
struct RunOutcome {
  RunRow row;
  Measurement measurement;
};

// The table of measured rows followed by the references: cuBLAS, then cuBLASLt when `ref` has it timed.
// Columns: kernel, config, status, ms, GFLOPS, pct_cublas, pct_cublaslt (null without a cuBLASLt timing),
// gain (over the previous timed row), max_abs_err, max_rel_err, cublas_ms (the cuBLAS time pct_cublas is against:
// the row's paired timing when it has one, else the shape's reference). Rows that did not end ok, and cuBLASLt's
// verification summary or why it has no timing, go to `notes`. Pure.
report::Table run_table(const std::vector<RunOutcome>& outcomes, const ShapeReference& ref, const Shape& shape,
                        std::vector<std::string>* notes);

// Measures the rows on the GPU (compiling each with NVRTC first) and builds the table. Throws NoDeviceError.
report::Table run_rows(const RunOptions& options, std::vector<std::string>* notes);

}  // namespace mpgemm::cli
