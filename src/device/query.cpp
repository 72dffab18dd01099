#include "device/query.hpp"

#include <library_types.h>

#include <fmt/format.h>

#include "device/cuda_check.hpp"

namespace mpgemm {

namespace {

std::string no_device_hint(cudaError_t error) {
  switch (error) {
    case cudaErrorInsufficientDriver:
      return "CUDA driver not found or older than the runtime: is libcuda.so.1 installed?";
    case cudaErrorNoDevice:
      return "no CUDA-capable device is visible: check the GPU and CUDA_VISIBLE_DEVICES";
    case cudaErrorStubLibrary:
      return "only the stub libcuda.so was found: install the real driver";
    case cudaErrorSystemDriverMismatch:
      return "the kernel module and the user-space driver differ in version";
    default:
      return cudaGetErrorString(error);
  }
}

int attribute(cudaDeviceAttr attr, int ordinal, const char* name) {
  int value = 0;
  check_cuda(cudaDeviceGetAttribute(&value, attr, ordinal), "cudaDeviceGetAttribute", fmt::format(" ({})", name));
  return value;
}

// nvidia-smi's spelling: "GPU-" and the 16 bytes as 8-4-4-4-12 hex digits.
std::string uuid_string(const cudaUUID_t& uuid) {
  std::string out = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += fmt::format("{:02x}", static_cast<unsigned char>(uuid.bytes[i]));
  }
  return out;
}

int device_count() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    (void)cudaGetLastError();
    throw NoDeviceError(fmt::format("no CUDA device: cudaGetDeviceCount returned {} ({})", cudaGetErrorName(error),
                                    no_device_hint(error)));
  }
  if (count == 0) throw NoDeviceError("no CUDA device: cudaGetDeviceCount found 0 devices");
  return count;
}

}  // namespace

DeviceInfo query_device(int ordinal) {
  const int count = device_count();
  if (ordinal < 0 || ordinal >= count)
    throw NoDeviceError(fmt::format("no CUDA device {}: {} device(s) visible", ordinal, count));

  DeviceInfo info;
  info.ordinal = ordinal;
  cudaDeviceProp prop{};
  MPGEMM_CUDA(cudaGetDeviceProperties(&prop, ordinal));
  info.name = prop.name;
  info.arch.major = prop.major;
  info.arch.minor = prop.minor;
  info.arch.arch_specific = false;
  info.total_memory_bytes = static_cast<std::int64_t>(prop.totalGlobalMem);
  char bus_id[32] = {};
  MPGEMM_CUDA(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, ordinal));
  info.pci_bus_id = bus_id;
  info.uuid = uuid_string(prop.uuid);
  info.device_count = count;

  info.sm_count = attribute(cudaDevAttrMultiProcessorCount, ordinal, "multiprocessors");
  info.max_threads_per_block = attribute(cudaDevAttrMaxThreadsPerBlock, ordinal, "threads per block");
  info.regs_per_block = attribute(cudaDevAttrMaxRegistersPerBlock, ordinal, "registers per block");
  info.regs_per_sm = attribute(cudaDevAttrMaxRegistersPerMultiprocessor, ordinal, "registers per SM");
  info.smem_per_block_optin = attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, ordinal, "opt-in shared memory");
  info.smem_per_sm = attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, ordinal, "shared memory per SM");
  info.l2_bytes = attribute(cudaDevAttrL2CacheSize, ordinal, "L2 size");
  info.max_sm_clock_mhz = attribute(cudaDevAttrClockRate, ordinal, "clock rate") / 1000;  // kHz

  MPGEMM_CUDA(cudaDriverGetVersion(&info.driver_version));
  MPGEMM_CUDA(cudaRuntimeGetVersion(&info.runtime_version));
  int major = 0, minor = 0, patch = 0;
  MPGEMM_CUBLAS(cublasGetProperty(MAJOR_VERSION, &major));
  MPGEMM_CUBLAS(cublasGetProperty(MINOR_VERSION, &minor));
  MPGEMM_CUBLAS(cublasGetProperty(PATCH_LEVEL, &patch));
  info.cublas_version = major * 10000 + minor * 100 + patch;
  return info;
}

bool device_available(std::string* why, int ordinal) {
  try {
    (void)query_device(ordinal);
    return true;
  } catch (const Error& e) {
    if (why) *why = e.what();
    return false;
  }
}

}  // namespace mpgemm
