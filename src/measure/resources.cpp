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

std::optional<std::string> check_resources(const KernelResources& kernel, const DeviceLimits& device,
                                           const BlockRequest& block) {
  if (block.threads == 0) return std::string("the block has no threads");
  if (block.threads > static_cast<std::uint64_t>(device.max_threads_per_block))
    return fmt::format("{} threads per block exceed the device's maximum of {}", block.threads,
                       device.max_threads_per_block);
  if (block.threads > static_cast<std::uint64_t>(kernel.max_threads_per_block))
    return fmt::format("{} threads per block exceed the kernel's maximum of {} (it uses {} registers per thread)",
                       block.threads, kernel.max_threads_per_block, kernel.registers);

  const std::uint64_t smem = static_cast<std::uint64_t>(kernel.static_smem_bytes) + block.dynamic_smem_bytes;
  if (smem > static_cast<std::uint64_t>(device.smem_per_block_optin))
    return fmt::format("{} bytes of shared memory per block ({} static + {} dynamic) exceed the device's opt-in "
                       "limit of {} bytes",
                       smem, kernel.static_smem_bytes, block.dynamic_smem_bytes, device.smem_per_block_optin);

  const std::uint64_t warp_threads = (block.threads + 31) / 32 * 32;
  const std::uint64_t regs = registers_per_block(kernel.registers, block.threads);
  if (regs > static_cast<std::uint64_t>(device.regs_per_block))
    return fmt::format("{} registers per block ({} per thread x {} threads, allocated per warp 256 at a time) "
                       "exceed the device's {} per block",
                       regs, kernel.registers, warp_threads, device.regs_per_block);
  return std::nullopt;
}

}  // namespace mpgemm
