#include "device/fit_geometry.hpp"

#include <fmt/format.h>

namespace mpgemm {

FittedGeometry fit_geometry(const LoadedKernel& kernel, const LaunchGeometry& geometry, int sm_count) {
  FittedGeometry out{geometry, geometry.grid.x, 0, std::nullopt};
  const LaunchGeometry& g = geometry;
  const std::uint64_t cluster = g.cluster.count();
  const std::uint64_t smem = g.dynamic_smem_bytes + static_cast<std::uint64_t>(kernel.resources().static_smem_bytes);
  if (cluster > 1) {
    const int clusters = kernel.max_active_clusters(g);
    if (clusters <= 0) {
      out.reason =
          fmt::format("a cluster of {} blocks with {} bytes of shared memory each cannot be co-resident on this device",
                      cluster, smem);
      return out;
    }
    out.co_resident = static_cast<std::uint64_t>(clusters) * cluster;
  } else if (g.persistent) {
    const int per_sm = kernel.max_active_blocks_per_sm(g);
    if (per_sm <= 0) {
      out.reason = fmt::format("a block of {} threads with {} bytes of shared memory cannot be resident on this device",
                               g.block.count(), smem);
      return out;
    }
    out.co_resident = static_cast<std::uint64_t>(per_sm) * static_cast<std::uint64_t>(sm_count);
  }
  if (g.persistent && out.co_resident > 0) out.geometry = lower_persistent_grid(g, out.co_resident);
  return out;
}

}  // namespace mpgemm
