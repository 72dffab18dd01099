#include "tune/prune.hpp"

#include <fmt/format.h>

#include "measure/resources.hpp"

namespace mpgemm {

namespace {
// Registers one block may hold on every arch mpgemm targets (sm_70 .. sm_90): 64K 32-bit registers per SM,
// and a block may use all of them.
constexpr std::uint64_t kRegistersPerBlock = 64 * 1024;
}  // namespace

std::string_view to_string(PruneReason reason) {
  switch (reason) {
    case PruneReason::spills:
      return "spills";
    case PruneReason::over_limits:
      return "over limits";
  }
  return "?";
}

std::optional<PruneVerdict> prune(const CompileResult& compiled, const LaunchGeometry& geometry,
                                  const DeviceDescription& device, const PruneRules& rules) {
  const std::uint64_t threads = std::uint64_t{geometry.block.x} * geometry.block.y * geometry.block.z;
  if (compiled.registers > 0 && threads > 0) {
    const std::uint64_t needed = registers_per_block(compiled.registers, threads);
    if (needed > kRegistersPerBlock)
      return PruneVerdict{PruneReason::over_limits,
                          fmt::format("{} registers per thread x {} threads need {} registers, a block may have {}",
                                      compiled.registers, threads, needed, kRegistersPerBlock)};
  }
  // Unknown figures (no device limit, no ptxas report) never prune: the pre-launch check decides then.
  if (device.smem_per_block_optin > 0 && compiled.shared_bytes >= 0)
    if (auto why = shared_memory_over_limit(std::uint64_t(compiled.shared_bytes), geometry.dynamic_smem_bytes,
                                            std::uint64_t(device.smem_per_block_optin)))
      return PruneVerdict{PruneReason::over_limits, *why};
  const int spilled = std::max(compiled.spill_store_bytes, 0) + std::max(compiled.spill_load_bytes, 0);
  if (rules.spills && spilled > 0)
    return PruneVerdict{PruneReason::spills,
                        fmt::format("ptxas spills {} B of stores and {} B of loads per thread (--keep-spills times "
                                    "it anyway)",
                                    std::max(compiled.spill_store_bytes, 0), std::max(compiled.spill_load_bytes, 0))};
  return std::nullopt;
}

}  // namespace mpgemm
