#pragma once
// The SM clock at the moment of a measurement, through NVML loaded at run time (dlopen of libnvidia-ml.so.1), so
// nothing links NVML and a machine without it simply reports 0.
#include <string>

namespace mpgemm {

// Current SM clock (MHz) of the GPU at `pci_bus_id` (as cudaDeviceGetPCIBusId gives it); falls back to NVML index
// `nvml_index` when the bus id is not found. 0 when NVML or the reading is unavailable. Never throws.
double read_sm_clock_mhz(const std::string& pci_bus_id, int nvml_index) noexcept;

}  // namespace mpgemm
