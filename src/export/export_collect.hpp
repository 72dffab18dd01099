#pragma once
// The winners of a results database as an export table: per device and shape the config mpgemm-run --config best
// takes (store/shape_winners.hpp), its speed against cuBLAS and cuBLASLt, and the command that measures it again.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "export/export_table.hpp"
#include "store/shape_winners.hpp"
#include "store/store.hpp"

namespace mpgemm {

struct ExportOptions {
  std::filesystem::path database;     // the path the store was opened from, as the user gave it
  std::optional<std::string> device;  // only this device's winners (exact name, e.g. "NVIDIA H200")
};

// Throws ExportError when the database has no verified config, or none on options.device (the message lists the
// devices it has), and StoreError when a winner of the database, of any device, fails the checks of
// store/winner_checks.hpp (shape_winners): a damaged database is refused whole, never exported as other kernels.
// `sm_counts`, when given, receives each exported device's multiprocessor count where the database knows it (the C++
// export sizes persistent grids with it).
ExportTable collect_export(const Store& store, const ExportOptions& options,
                           std::map<std::string, std::int64_t>* sm_counts = nullptr);

// The mpgemm-run command line that measures a winner again: its config at its shape with its timing protocol
// (--paired for a re-rank winner, whose ratio came from rounds side by side with cuBLAS). Pure.
std::string reproduce_command(const ShapeWinner& winner, const std::filesystem::path& database);

}  // namespace mpgemm
