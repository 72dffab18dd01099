#pragma once
// The device the CPU tests size launches for: an H200 (sm_90, 132 SMs, 227 KiB of opt-in shared memory per block).
#include "common/device.hpp"

namespace mpgemm::testing {

inline DeviceDescription h200_description() {
  DeviceDescription d;
  d.name = "NVIDIA H200";
  d.arch = Arch{9, 0, false};
  d.sm_count = 132;
  d.smem_per_block_optin = 232448;
  return d;
}

}  // namespace mpgemm::testing
