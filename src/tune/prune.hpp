#pragma once
// Pruning before timing: a compiled config whose resources make timing it pointless is recorded with why and
// never launched. Pure, so the rules are unit-tested without a GPU.
//   spills       -> ptxas spilled registers to local memory (a kernel engineer would not ship it; the
//                   space should not have it); kept with --keep-spills
//   over limits  -> registers x threads, or static + dynamic shared memory, beyond what one block may have on
//                   the device: it cannot launch at all (zero occupancy)
#include <optional>
#include <string>

#include "codegen/family.hpp"
#include "common/device.hpp"
#include "common/records.hpp"

namespace mpgemm {

struct PruneRules {
  bool spills = true;  // prune configs with spill stores or loads
};

enum class PruneReason { spills, over_limits };
std::string_view to_string(PruneReason reason);

struct PruneVerdict {
  PruneReason reason;
  std::string message;  // names the figures
};

// nullopt: time it. Unknown figures (-1, a device limit of 0) never prune.
std::optional<PruneVerdict> prune(const CompileResult& compiled, const LaunchGeometry& geometry,
                                  const DeviceDescription& device, const PruneRules& rules);

}  // namespace mpgemm
