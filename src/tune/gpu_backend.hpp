#pragma once
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tune/backend.hpp"

namespace mpgemm {

// Which GPUs of the host a run measures on (--gpus): all visible ones, or a list of CUDA ordinals.
struct GpuSelection {
  bool all = false;
  std::vector<int> ordinals{0};  // when not `all`: distinct, in the order given

  // "all" or "0,1,3". Throws UsageError naming what is wrong.
  static GpuSelection parse(std::string_view text);
  std::string str() const;
};

// A backend that measures on the GPU `ordinal` through a worker process. Returns nullptr and sets *why when there
// is no usable device (no driver, no GPU); throws WorkerError when the worker cannot be started at all.
std::unique_ptr<MeasureBackend> make_gpu_backend(const std::optional<std::filesystem::path>& worker_path,
                                                 const MeasureSettings& settings, std::string* why, int ordinal = 0);

// One backend (one worker process) per selected GPU, the first selected first. Empty, with *why set, when there is
// no usable device. Throws UsageError for an ordinal the host does not have, and for GPUs of different models
// (their results are different devices: tune each model in its own run, e.g. --gpus 0 and --gpus 1 on one
// database); WorkerError when a worker cannot be started.
std::vector<std::unique_ptr<MeasureBackend>> make_gpu_backends(const std::optional<std::filesystem::path>& worker_path,
                                                               const MeasureSettings& settings,
                                                               const GpuSelection& gpus, std::string* why);

}  // namespace mpgemm
