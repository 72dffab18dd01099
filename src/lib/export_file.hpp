#pragma once
// Reads the JSON table `mpgemm-export --format json` writes (format "mpgemm-export", version 2, or 1 whose entries
// are all of the default kind): one entry per (device, problem kind, shape) with its winner, into the records the
// library takes from a database.
#include <filesystem>
#include <string_view>
#include <vector>

#include "store/shape_winners.hpp"

namespace mpgemm::lib {

// Throws mpgemm::Error naming the file and the entry (/entries/N) when the format, the version or a field is
// wrong, and when an entry fails the checks of lib/winner_checks.hpp (its params, its name, its rates and ratios, a
// second entry for one device and shape): one bad entry refuses the whole file.
std::vector<ShapeWinner> read_export(std::string_view json_text, const std::filesystem::path& source);

}  // namespace mpgemm::lib
