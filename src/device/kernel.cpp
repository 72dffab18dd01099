#include "device/kernel.hpp"

#include <fmt/format.h>

#include "device/cuda_check.hpp"

namespace mpgemm {

LoadedKernel::LoadedKernel(const DriverApi& api, std::span<const char> cubin, const std::string& lowered_name)
    : api_(api) {
  if (cubin.empty()) throw DriverError("cuModuleLoadData", CUDA_ERROR_INVALID_IMAGE, "the cubin is empty");
  MPGEMM_CU(api_.module_load_data(&module_, cubin.data()));
  try {
    check_cu(api_.module_get_function(&function_, module_, lowered_name.c_str()), "cuModuleGetFunction",
             fmt::format(" for '{}'", lowered_name));
    resources_.registers = attribute(CU_FUNC_ATTRIBUTE_NUM_REGS, "NUM_REGS");
    resources_.static_smem_bytes = attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "SHARED_SIZE_BYTES");
    resources_.max_threads_per_block = attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "MAX_THREADS_PER_BLOCK");
    resources_.local_bytes = attribute(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, "LOCAL_SIZE_BYTES");
  } catch (...) {
    (void)api_.module_unload(module_);
    throw;
  }
}

LoadedKernel::~LoadedKernel() {
  // Fails after a sticky fault; the worker exits then anyway.
  if (module_) (void)api_.module_unload(module_);
}

int LoadedKernel::attribute(CUfunction_attribute attr, const char* name) const {
  int value = 0;
  check_cu(api_.func_get_attribute(&value, attr, function_), "cuFuncGetAttribute", fmt::format(" ({})", name));
  return value;
}

void LoadedKernel::configure(const LaunchGeometry& geometry) {
  if (geometry.dynamic_smem_bytes > kDefaultDynamicSmemLimit)
    check_cu(api_.func_set_attribute(function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                     static_cast<int>(geometry.dynamic_smem_bytes)),
             "cuFuncSetAttribute", fmt::format(" (MAX_DYNAMIC_SHARED_SIZE_BYTES = {})", geometry.dynamic_smem_bytes));
  if (geometry.cluster.count() > 8)
    MPGEMM_CU(api_.func_set_attribute(function_, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1));
}

LaunchConfig::LaunchConfig(const LaunchGeometry& geometry, CUstream stream) {
  config.gridDimX = geometry.grid.x;
  config.gridDimY = geometry.grid.y;
  config.gridDimZ = geometry.grid.z;
  config.blockDimX = geometry.block.x;
  config.blockDimY = geometry.block.y;
  config.blockDimZ = geometry.block.z;
  config.sharedMemBytes = geometry.dynamic_smem_bytes;
  config.hStream = stream;
  config.attrs = attributes;
  if (geometry.cluster.count() > 1) {
    CUlaunchAttribute& cluster = attributes[config.numAttrs++];
    cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    cluster.value.clusterDim.x = geometry.cluster.x;
    cluster.value.clusterDim.y = geometry.cluster.y;
    cluster.value.clusterDim.z = geometry.cluster.z;
  }
  if (geometry.dependent_launch) {
    CUlaunchAttribute& dependent = attributes[config.numAttrs++];
    dependent.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    dependent.value.programmaticStreamSerializationAllowed = 1;
  }
}

int LoadedKernel::max_active_clusters(const LaunchGeometry& geometry) const {
  LaunchGeometry resident = geometry;
  resident.dependent_launch = false;  // a property of the launch's order in its stream, not of what fits
  LaunchConfig launch(resident, nullptr);
  int clusters = 0;
  check_cu(api_.occupancy_max_active_clusters(&clusters, function_, &launch.config), "cuOccupancyMaxActiveClusters",
           fmt::format(" (cluster {}x{}x{}, block {}x{}x{}, {} bytes of dynamic shared memory)", geometry.cluster.x,
                       geometry.cluster.y, geometry.cluster.z, geometry.block.x, geometry.block.y, geometry.block.z,
                       geometry.dynamic_smem_bytes));
  return clusters;
}

int LoadedKernel::max_active_blocks_per_sm(const LaunchGeometry& geometry) const {
  int blocks = 0;
  check_cu(api_.occupancy_max_active_blocks_per_sm(&blocks, function_, static_cast<int>(geometry.block.count()),
                                                   geometry.dynamic_smem_bytes),
           "cuOccupancyMaxActiveBlocksPerMultiprocessor",
           fmt::format(" (block {}x{}x{}, {} bytes of dynamic shared memory)", geometry.block.x, geometry.block.y,
                       geometry.block.z, geometry.dynamic_smem_bytes));
  return blocks;
}

void LoadedKernel::launch(const LaunchGeometry& geometry, CUstream stream, void** params) const {
  LaunchConfig launch(geometry, stream);
  // The context is formatted only on failure: this is on the library's per-call path (src/lib), where a
  // formatted string per launch would cost more than the launch's own host time.
  const CUresult result = api_.launch_kernel_ex(&launch.config, function_, params, nullptr);
  if (result == CUDA_SUCCESS) return;
  check_cu(result, "cuLaunchKernelEx",
           fmt::format(" (grid {}x{}x{}, block {}x{}x{}, cluster {}x{}x{}, {} bytes of dynamic shared memory)",
                       geometry.grid.x, geometry.grid.y, geometry.grid.z, geometry.block.x, geometry.block.y,
                       geometry.block.z, geometry.cluster.x, geometry.cluster.y, geometry.cluster.z,
                       geometry.dynamic_smem_bytes));
}

}  // namespace mpgemm
