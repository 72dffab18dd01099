#pragma once
// The pre-launch resource check: a compiled kernel's needs against the device's limits for one launch geometry.
// Pure, so the rules are unit-tested on the CPU; src/device fills the structs from cuFuncGetAttribute and
// cudaDeviceGetAttribute.
#include <cstdint>
#include <optional>
#include <string>

namespace mpgemm {

// What the compiled function needs, from cuFuncGetAttribute.
struct KernelResources {
  int registers = 0;              // per thread (CU_FUNC_ATTRIBUTE_NUM_REGS)
  int static_smem_bytes = 0;      // per block (CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
  int max_threads_per_block = 0;  // the most threads a block of this function may have, given its registers
                                  // (CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
  int local_bytes = 0;            // local memory per thread (CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)
};

// What the device allows one block.
struct DeviceLimits {
  int max_threads_per_block = 0;  // threads
  int regs_per_block = 0;         // 32-bit registers
  int smem_per_block_optin = 0;   // bytes, the opt-in maximum (static + dynamic)
};

// A launch's shape as far as the check needs it.
struct BlockRequest {
  std::uint64_t threads = 0;  // threads per block (x * y * z)
  std::uint64_t dynamic_smem_bytes = 0;
};

// Registers a block of `threads` threads holds: they are allocated per warp (a partial warp costs a whole one), 256
// at a time (sm_70 .. sm_90), so 65 registers per thread take 72 x 32 per warp. The one rule for registers, used
// before timing (tune/prune) and before launch (check_resources).
std::uint64_t registers_per_block(int registers_per_thread, std::uint64_t threads);

// Why static + dynamic shared memory would exceed the device's opt-in limit per block, naming the figures; nullopt
// when it fits. The one rule for shared memory, used before timing (tune/prune) and before launch (check_resources).
std::optional<std::string> shared_memory_over_limit(std::uint64_t static_bytes, std::uint64_t dynamic_bytes,
                                                    std::uint64_t optin_limit);

// Why the launch would exceed a limit, naming the figures; nullopt when it fits. Checks: threads within the
// function's and the device's maximum, static + dynamic shared memory within the opt-in limit, and
// registers_per_block within the registers per block.
std::optional<std::string> check_resources(const KernelResources& kernel, const DeviceLimits& device,
                                           const BlockRequest& block);

// Dynamic shared memory above this needs the function's opt-in attribute raised (bytes).
constexpr std::uint64_t kDefaultDynamicSmemLimit = 48 * 1024;

}  // namespace mpgemm
