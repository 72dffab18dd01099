#include "measure/resources.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace mpgemm {

std::uint64_t registers_per_block(int registers_per_thread, std::uint64_t threads) {
  constexpr std::uint64_t kWarp = 32, kAllocationUnit = 256;
  const std::uint64_t per_warp =
      (static_cast<std::uint64_t>(std::max(registers_per_thread, 0)) * kWarp + kAllocationUnit - 1) / kAllocationUnit *
      kAllocationUnit;
  return per_warp * ((threads + kWarp - 1) / kWarp);
}

std::optional<std::string> shared_memory_over_limit(std::uint64_t static_bytes, std::uint64_t dynamic_bytes,
                                                    std::uint64_t optin_limit) {
  const std::uint64_t smem = static_bytes + dynamic_bytes;
  if (smem <= optin_limit) return std::nullopt;
  return fmt::format(
      "{} bytes of shared memory per block ({} static + {} dynamic) exceed the device's opt-in limit "
      "of {} bytes",
      smem, static_bytes, dynamic_bytes, optin_limit);
}

std::optional<std::string> check_resources(const KernelResources& kernel, const DeviceLimits& device,
                                           const BlockRequest& block) {
  if (block.threads == 0) return std::string("the block has no threads");
  if (block.threads > static_cast<std::uint64_t>(device.max_threads_per_block))
    return fmt::format("{} threads per block exceed the device's maximum of {}", block.threads,
                       device.max_threads_per_block);
  if (block.threads > static_cast<std::uint64_t>(kernel.max_threads_per_block))
    return fmt::format("{} threads per block exceed the kernel's maximum of {} (it uses {} registers per thread)",
                       block.threads, kernel.max_threads_per_block, kernel.registers);

  if (auto why = shared_memory_over_limit(static_cast<std::uint64_t>(std::max(kernel.static_smem_bytes, 0)),
                                          block.dynamic_smem_bytes,
                                          static_cast<std::uint64_t>(std::max(device.smem_per_block_optin, 0))))
    return why;

  const std::uint64_t warp_threads = (block.threads + 31) / 32 * 32;
  const std::uint64_t regs = registers_per_block(kernel.registers, block.threads);
  if (regs > static_cast<std::uint64_t>(device.regs_per_block))
    return fmt::format(
        "{} registers per block ({} per thread x {} threads, allocated per warp 256 at a time) "
        "exceed the device's {} per block",
        regs, kernel.registers, warp_threads, device.regs_per_block);
  return std::nullopt;
}

}  // namespace mpgemm
