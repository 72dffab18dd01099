#include "device/device_description.hpp"

namespace mpgemm {

DeviceDescription describe_device(const DeviceInfo& info) {
  DeviceDescription d;
  d.name = info.name;
  d.arch = info.arch;
  d.sm_count = info.sm_count;
  d.smem_per_block_optin = info.smem_per_block_optin;
  d.driver_version = cuda_version_string(info.driver_version);
  d.runtime_version = cuda_version_string(info.runtime_version);
  d.cublas_version = cublas_version_string(info.cublas_version);
  d.gpu = GpuIdentity{info.uuid, info.ordinal};
  return d;
}

}  // namespace mpgemm
