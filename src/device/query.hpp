#pragma once
// Is there a GPU, and what is it. Safe to call on a machine without a driver: that is reported, not crashed on.
#include <string>

#include "device/device_info.hpp"

namespace mpgemm {

// The device's properties and the driver, runtime and cuBLAS versions. Throws NoDeviceError with a plain message
// when there is no usable driver or device (e.g. "no CUDA device: cudaGetDeviceCount returned
// cudaErrorInsufficientDriver (CUDA driver not found: is libcuda.so.1 installed?)") or the ordinal is out of range;
// CudaError when a query fails on a present device.
DeviceInfo query_device(int ordinal = 0);

// Whether query_device(ordinal) would succeed; when not and `why` is given, the reason.
bool device_available(std::string* why = nullptr, int ordinal = 0);

}  // namespace mpgemm
