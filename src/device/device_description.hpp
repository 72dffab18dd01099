#pragma once
// A DeviceInfo (what the runtime reports) as the DeviceDescription families and records take: one conversion for
// the tuner's GPU backends and the library.
#include "common/device.hpp"
#include "device/device_info.hpp"

namespace mpgemm {

DeviceDescription describe_device(const DeviceInfo& info);

}  // namespace mpgemm
