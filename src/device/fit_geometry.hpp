#pragma once
// A loaded kernel's launch geometry fitted to the device: the occupancy query for a cluster launch (one cluster
// must be co-resident) and, for a persistent kernel, its grid lowered to what is co-resident
// (lower_persistent_grid). Shared by the worker's verification (device/candidate.cpp) and the library
// (src/lib), so both launch a config with the same grid.
#include <cstdint>
#include <optional>
#include <string>

#include "codegen/family.hpp"
#include "device/kernel.hpp"

namespace mpgemm {

struct FittedGeometry {
  LaunchGeometry geometry;            // what to launch; grid.x lowered for a persistent kernel
  std::uint32_t asked_grid_x = 0;     // grid.x the family asked for
  std::uint64_t co_resident = 0;      // blocks that fit on the device at once; 0 when not asked (not needed)
  std::optional<std::string> reason;  // set when not even one block or cluster can be resident: not launchable
};

// After kernel.configure(geometry). Throws DriverError when the occupancy query itself is refused.
FittedGeometry fit_geometry(const LoadedKernel& kernel, const LaunchGeometry& geometry, int sm_count);

}  // namespace mpgemm
