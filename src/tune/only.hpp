#pragma once
// --only: which configs of a space a run is restricted to, by name.
#include <optional>
#include <string>
#include <vector>

namespace mpgemm {

// Whether `only` selects the config named `name` (point name `alias`, if any). An entry selects the configs whose
// name or point name contains it; an entry starting with '=' selects only a config whose whole name or point name
// is the rest (a full name also appears inside longer names: `..._pdl` in `..._pdlx`).
bool only_selects(const std::string& name, const std::optional<std::string>& alias,
                  const std::vector<std::string>& only);

}  // namespace mpgemm
