#pragma once
// Library::Impl (include/mpgemm/gemm.hpp): the winners, the cubin cache and one DeviceState per device used. In a
// header of its own so that the benchmark (src/lib/bench) and the tests reach the prepared launch of a call.
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "compile/cubin_cache.hpp"
#include "lib/device_state.hpp"
#include "lib/launch_cache.hpp"
#include "lib/winner_table.hpp"
#include "mpgemm/gemm.hpp"

namespace mpgemm {

struct Library::Impl {
  Impl(std::string path, lib::WinnerTable table, CubinCache cache, lib::LibraryOptions options);

  static constexpr int kMaxDevices = 64;

  const std::uint64_t id;  // distinct for every Impl a process makes (the per-thread call caches' key)
  const std::string path;
  const lib::WinnerTable table;
  const CubinCache cache;
  const lib::LibraryOptions options;

  // The calling thread's current CUDA device. Throws GemmError (no_device, cuda_failed).
  static int current_device();
  // The device's state, made at its first use. Throws GemmError.
  lib::DeviceState& device(int ordinal);
  // The calling thread's entry for the call: found in its call cache, else decided / loaded / its arguments built
  // (nothing is launched). Throws GemmError. Valid until this thread's next call.
  lib::CallEntry& entry(const lib::CallKey& key);

 private:
  std::array<std::atomic<lib::DeviceState*>, kMaxDevices> devices_{};
  std::mutex devices_mutex_;
  std::vector<std::unique_ptr<lib::DeviceState>> owned_;
};

}  // namespace mpgemm
