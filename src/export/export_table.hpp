#pragma once
// The exported winners table (mpgemm-export --format json, read back by libmpgemm): one entry per device, problem
// kind and shape with the config mpgemm-run --config best takes there, its parameters and its speed against the
// references of its kind. This is the format's one definition; to_json / from_json are its writer and its reader.
//
// {"format": "mpgemm-export", "version": 2, "generated_by": "mpgemm 0.1.0", "database": "results/results.db",
//  "entries": [{"device": "NVIDIA H200", "device_arch": "sm_90", "arch": "sm_90a", "problem": "mk_kn_fp16_fp32",
//               "shape": {"M": 4096, "N": 4096, "K": 4096}, "family": "wgmma", "config": "wgmma_bm128_...",
//               "params": {"BM": 128, "SCHEDULE": "coop", ...}, "tflops": 731.2, "cublas_tflops": 720.0,
//               "ratio_cublas": 1.015, "cublaslt_tflops": 700.1, "ratio_cublaslt": 1.04, "l2": "warm",
//               "source": "rerank", "command": "mpgemm-run --db ... --config ... --M 4096 --N 4096 --K 4096"}]}
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "common/params.hpp"
#include "common/problem_kind.hpp"
#include "common/types.hpp"

namespace mpgemm {

// An export cannot be made (no winners, an unknown device, a family without a C++ launch) or a file is not a
// readable export (what() names the JSON path).
class ExportError : public Error {
 public:
  using Error::Error;
};

inline constexpr std::string_view kExportFormat = "mpgemm-export";
// 2: every entry names its problem kind ("problem"). A version-1 file, or an entry without "problem", is of the
// default kind (mk_kn_fp16_fp32): version 1 is still read. A reader refuses a newer version.
inline constexpr int kExportVersion = 2;

struct ExportEntry {
  std::string device;       // the GPU it was measured on, e.g. "NVIDIA H200"
  std::string device_arch;  // the GPU's compute capability as an arch, e.g. "sm_90"
  std::string arch;         // the compile target, e.g. "sm_90a"
  ProblemKind problem;      // what it computes; its ratios are against the references of this kind
  Shape shape;
  std::string family;                     // kernel family, e.g. "wgmma"
  std::string config;                     // procedural config name
  Params params;                          // the config's parameter values, as the space gives them
  double tflops = 0;                      // 2*M*N*K / its median (TFLOP/s)
  std::optional<double> cublas_tflops;    // cuBLAS timed with it (TFLOP/s); none when the database has no timing
  std::optional<double> ratio_cublas;     // cuBLAS median / its median: > 1 is faster than cuBLAS
  std::optional<double> cublaslt_tflops;  // cuBLASLt's best of 8 on the shape (TFLOP/s); none when never timed
  std::optional<double> ratio_cublaslt;   // cuBLASLt median / its median
  L2Mode l2 = L2Mode::warm;               // L2 at each timed launch
  std::string source;                     // "rerank" (the latest re-rank's winner) or "tune" (fastest tuning median)
  std::string command;                    // the mpgemm-run command line that measures it again
  friend bool operator==(const ExportEntry&, const ExportEntry&) = default;
};

struct ExportTable {
  std::string generated_by;          // "mpgemm <version>"
  std::string database;              // the database path it was exported from, as given
  std::vector<ExportEntry> entries;  // sorted by device, kind (the default first), M, N, K
  friend bool operator==(const ExportTable&, const ExportTable&) = default;
};

nlohmann::json to_json(const ExportEntry& e);
nlohmann::json to_json(const ExportTable& t);
// Throw ExportError naming the JSON path of a missing or ill-typed field, a foreign format or a newer version.
ExportEntry export_entry_from_json(const nlohmann::json& j, const std::string& where = "/entries/0");
ExportTable export_table_from_json(const nlohmann::json& j);

// Reads an export file; throws ExportError (unreadable, larger than kMaxInputFileBytes, not JSON or nested deeper
// than kMaxJsonDepth (common/bounded_input.hpp), not an export).
ExportTable read_export_file(const std::filesystem::path& path);

// The entries in the format's order: device, kind (the default first), M, N, K.
void sort_entries(std::vector<ExportEntry>& entries);

}  // namespace mpgemm
