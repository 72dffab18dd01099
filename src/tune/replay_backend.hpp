#pragma once
#include <chrono>
#include <filesystem>
#include <memory>

#include "tune/backend.hpp"

namespace mpgemm {

// A backend that answers from an earlier database: its device, its cuBLAS timings and each config's recorded
// outcome on the same arch and shape. No GPU and no compiler needed. Throws StoreError for an unusable database
// and mpgemm::Error when it has no measured run. `delay` is a testing aid: each measure() waits that long, so
// kill and concurrency tests get the windows a GPU measurement would leave.
std::unique_ptr<MeasureBackend> make_replay_backend(const std::filesystem::path& db_path,
                                                    std::chrono::milliseconds delay = {});

}  // namespace mpgemm
