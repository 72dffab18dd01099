#pragma once
// What every reader checks of every winner before it is dispatched, run or exported: the store's shape_winners()
// (mpgemm-run --config best, mpgemm-export, the library's database reader) and the library's reader of exported
// files. A damaged winner must never stand for another kernel than the one measured:
//   - its shape's sizes are positive;
//   - its parameters are a config its family builds (Family::check_config, what the tuner rejects a config by:
//     BM = 100000 is refused), and its name is the procedural name the family derives from them (a name that
//     disagrees with its parameters would be dispatched or exported under one config and compiled from another);
//   - a family this build lacks is not checked, unless a family it has derives this very name from these
//     parameters: then it is the family's name that is damaged;
//   - its TFLOP/s (or median) and its references' are positive, finite and below kMaxTflops;
//   - each ratio it carries is positive, finite, within [1 / kMaxRatio, kMaxRatio], has the reference it is
//     derived from, and equals that reference's time over the winner's within kRatioTolerance (ratio = tflops /
//     cublas_tflops). A re-rank winner's cuBLASLt ratio is its own tuning measurement's, not the re-rank median's
//     (store/shape_winners.hpp), so only its range is checked;
//   - no two winners share a device, a problem kind and a shape (the library keys winners by device name and shape
//     of one kind, so a second one, of any arch, would make the choice depend on the order of the file).
//
// Policy, the same for every reader: the first winner that fails any check refuses the whole file, in one line
// naming the file and the entry (/entries/N of an export; the view row with its re-rank or measurement, config and
// run ids, device and shape of a database) and what is wrong. Nothing is read half: a reader hands out every
// winner of the file or none.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/shape_winners.hpp"

namespace mpgemm {

// Relative: a ratio and the times it was derived from agree to six significant digits (the tuner and the export
// write them with full precision; the conversions between milliseconds and TFLOP/s cost a few ulp).
inline constexpr double kRatioTolerance = 1e-6;
// A tuned winner 1000x faster (or slower) than cuBLAS where it was measured is damage, not a measurement.
inline constexpr double kMaxRatio = 1000;
// 100 PFLOP/s: two orders of magnitude above any GPU's FP16 peak.
inline constexpr double kMaxTflops = 1e5;

// Throws StoreError (SQLITE_CORRUPT) for the database `db`: "database DB: WHAT; the database is refused whole ...",
// with what to do: damage is not mended by tuning into the same file (the damaged config row is found again by its
// key).
[[noreturn]] void refuse_damaged_database(const std::filesystem::path& db, std::string_view what);

// Where the winners came from: names the fields in the messages as that source spells them.
enum class WinnerSource {
  exported,  // an mpgemm-export JSON file: tflops, cublas_tflops, ratio_cublas, ...
  database,  // a results database's views winners / best_per_shape: median_ms, ratio_to_cublas, ...
};

// The first two checks above, of a config (a winner's, or a configs row that mpgemm-run --config NAME takes):
// why a config of `family_name` named `config_name` must not be built from `params`, or none.
std::optional<std::string> why_config_unsound(std::string_view family_name, std::string_view config_name,
                                              const Params& params);

// Why `w` must not be dispatched, run or exported (the checks above, but for duplicates), or none.
std::optional<std::string> why_unsound(const ShapeWinner& w, WinnerSource source);

// The first winner of `winners` that fails a check, or holds a (device, shape) a winner before it holds, as a
// message names it: "WHERE: WHY" (where: /entries/N (...) or the view row). None when every winner is sound.
std::optional<std::string> first_unsound(const std::vector<ShapeWinner>& winners, WinnerSource source);

// Throws mpgemm::Error, one line: the file, first_unsound's message, and that the file is refused.
void check_winners(const std::vector<ShapeWinner>& winners, WinnerSource source, const std::filesystem::path& file);

}  // namespace mpgemm
