#include "device/sm_clock.hpp"

#include <dlfcn.h>

#include <mutex>

namespace mpgemm {

namespace {

// The few NVML declarations needed (nvml.h is not part of every toolkit install). Values from nvml.h.
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;  // NVML_CLOCK_SM

using InitFn = nvmlReturn_t (*)();
using ByBusIdFn = nvmlReturn_t (*)(const char*, nvmlDevice_t*);
using ByIndexFn = nvmlReturn_t (*)(unsigned, nvmlDevice_t*);
using ClockFn = nvmlReturn_t (*)(nvmlDevice_t, int, unsigned*);

struct Nvml {
  ByBusIdFn by_bus_id = nullptr;
  ByIndexFn by_index = nullptr;
  ClockFn clock_info = nullptr;
  bool usable = false;
};

template <class Fn>
Fn symbol(void* lib, const char* name) {
  return reinterpret_cast<Fn>(dlsym(lib, name));
}

const Nvml& nvml() {
  static Nvml instance;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) return;  // stays loaded for the process's life once found
    const auto init = symbol<InitFn>(lib, "nvmlInit_v2");
    instance.by_bus_id = symbol<ByBusIdFn>(lib, "nvmlDeviceGetHandleByPciBusId_v2");
    instance.by_index = symbol<ByIndexFn>(lib, "nvmlDeviceGetHandleByIndex_v2");
    instance.clock_info = symbol<ClockFn>(lib, "nvmlDeviceGetClockInfo");
    instance.usable = init != nullptr && instance.clock_info != nullptr && init() == kNvmlSuccess;
  });
  return instance;
}

}  // namespace

double read_sm_clock_mhz(const std::string& pci_bus_id, int nvml_index) noexcept {
  try {
    const Nvml& lib = nvml();
    if (!lib.usable) return 0;
    nvmlDevice_t device = nullptr;
    bool found =
        lib.by_bus_id != nullptr && !pci_bus_id.empty() && lib.by_bus_id(pci_bus_id.c_str(), &device) == kNvmlSuccess;
    if (!found && lib.by_index != nullptr && nvml_index >= 0)
      found = lib.by_index(static_cast<unsigned>(nvml_index), &device) == kNvmlSuccess;
    if (!found) return 0;
    unsigned mhz = 0;
    if (lib.clock_info(device, kNvmlClockSm, &mhz) != kNvmlSuccess) return 0;
    return mhz;
  } catch (...) {
    return 0;  // std::call_once can throw system_error; a clock reading is never worth failing over
  }
}

}  // namespace mpgemm
