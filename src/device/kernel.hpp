#pragma once
// A compiled kernel loaded into the current context: its module, its function, what it needs, and its launch.
#include <span>
#include <string>

#include <cuda.h>

#include "codegen/family.hpp"
#include "device/driver_api.hpp"
#include "measure/resources.hpp"

namespace mpgemm {

// cuLaunchKernelEx's description of one launch of `geometry` on `stream`: a cluster dimension attribute when the
// geometry has a cluster, a programmatic stream serialization attribute when it is a dependent launch. The attributes
// live here so that config.attrs stays valid (hence no copies). Used by LoadedKernel::launch and by callers that
// launch bare.
struct LaunchConfig {
  CUlaunchConfig config{};
  CUlaunchAttribute attributes[2]{};

  LaunchConfig(const LaunchGeometry& geometry, CUstream stream);
  LaunchConfig(const LaunchConfig&) = delete;
  LaunchConfig& operator=(const LaunchConfig&) = delete;
};

class LoadedKernel {
 public:
  // Loads the cubin and looks up `lowered_name`. Throws DriverError carrying the CUresult (an image for another
  // arch is CUDA_ERROR_NO_BINARY_FOR_GPU, an unknown name CUDA_ERROR_NOT_FOUND).
  LoadedKernel(const DriverApi& api, std::span<const char> cubin, const std::string& lowered_name);
  ~LoadedKernel();
  LoadedKernel(const LoadedKernel&) = delete;
  LoadedKernel& operator=(const LoadedKernel&) = delete;

  const KernelResources& resources() const { return resources_; }
  // The function, for callers that launch it themselves (the library's benchmark times a bare cuLaunchKernelEx).
  CUfunction function() const { return function_; }

  // Sets what the geometry needs of the function: the dynamic shared memory opt-in above 48 KiB, and non-portable
  // cluster sizes above 8 blocks. Throws DriverError when the driver refuses.
  void configure(const LaunchGeometry& geometry);

  // Enqueues one launch on `stream` with cuLaunchKernelEx (LaunchConfig's attributes). Throws DriverError when the
  // launch is refused.
  void launch(const LaunchGeometry& geometry, CUstream stream, void** params) const;

  // Occupancy, after configure(): how many clusters of the geometry's launch (grid, block, dynamic shared memory,
  // cluster attribute) can be co-resident on the device (cuOccupancyMaxActiveClusters), and how many of its blocks
  // fit on one multiprocessor (cuOccupancyMaxActiveBlocksPerMultiprocessor). Throw DriverError when the driver
  // refuses the query (e.g. a cluster size it does not support).
  int max_active_clusters(const LaunchGeometry& geometry) const;
  int max_active_blocks_per_sm(const LaunchGeometry& geometry) const;

 private:
  int attribute(CUfunction_attribute attr, const char* name) const;

  const DriverApi& api_;
  CUmodule module_ = nullptr;
  CUfunction function_ = nullptr;
  KernelResources resources_;
};

}  // namespace mpgemm
