#pragma once
// What the library checks of every winner when it opens a results database or an exported file, before anything
// is dispatched (issue: one bad entry must not make plan() throw later, and a damaged one must never choose another
// kernel than the one measured):
//   - its parameters are a config its family builds (Family::check_config, what the tuner rejects a config by:
//     BM = 100000 is refused), and its name is the procedural name the family derives from them (a name that
//     disagrees with its parameters would be dispatched under one config and compiled from another);
//   - its TFLOP/s (or median) and its references' are positive, finite and below kMaxTflops;
//   - each ratio it carries is positive, finite, within [1 / kMaxRatio, kMaxRatio], has the reference it is
//     derived from, and equals that reference's time over the winner's within kRatioTolerance (ratio = tflops /
//     cublas_tflops). A re-rank winner's cuBLASLt ratio is its own tuning measurement's, not the re-rank median's
//     (store/shape_winners.hpp), so only its range is checked;
//   - no two winners share a device and a shape (the policy keys winners by device name and shape, so a second
//     one, of any arch, would make the choice depend on the order of the file).
// A family this build lacks is not checked here: the policy gives its shapes to cuBLAS and says why.
//
// Policy: the first winner that fails any check refuses the whole file, in one line naming the file and the entry
// (/entries/N of an export; the view row, device and shape of a database) and what is wrong. Nothing is opened
// half: a library either dispatches from every winner of the file or from none.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "store/shape_winners.hpp"

namespace mpgemm::lib {

// Relative: a ratio and the times it was derived from agree to six significant digits (the tuner and the export
// write them with full precision; the conversions between milliseconds and TFLOP/s cost a few ulp).
inline constexpr double kRatioTolerance = 1e-6;
// A tuned winner 1000x faster (or slower) than cuBLAS where it was measured is damage, not a measurement.
inline constexpr double kMaxRatio = 1000;
// 100 PFLOP/s: two orders of magnitude above any GPU's FP16 peak.
inline constexpr double kMaxTflops = 1e5;

// Where the winners came from: names the fields in the messages as that source spells them.
enum class WinnerSource {
  exported,  // an mpgemm-export JSON file: tflops, cublas_tflops, ratio_cublas, ...
  database,  // a results database's views winners / best_per_shape: median_ms, ratio_to_cublas, ...
};

// Why `w` must not be dispatched from (the checks above, but for duplicates), or none.
std::optional<std::string> why_unsound(const ShapeWinner& w, WinnerSource source);

// Checks every winner and that no (device, shape) is held twice. Throws mpgemm::Error, one line: the file, the
// first bad winner (/entries/N for an export, its view row for a database), what is wrong, and that the file is
// refused.
void check_winners(const std::vector<ShapeWinner>& winners, WinnerSource source, const std::filesystem::path& file);

}  // namespace mpgemm::lib
