#pragma once
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "tune/backend.hpp"

namespace mpgemm {

// A backend that measures on the GPU through a worker process. Returns nullptr and sets *why when there is no
// usable device (no driver, no GPU); throws WorkerError when the worker cannot be started at all.
std::unique_ptr<MeasureBackend> make_gpu_backend(const std::optional<std::filesystem::path>& worker_path,
                                                 const MeasureSettings& settings, std::string* why);

}  // namespace mpgemm
