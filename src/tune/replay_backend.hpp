#pragma once
#include <chrono>
#include <filesystem>
#include <memory>
#include <vector>

#include "tune/backend.hpp"

namespace mpgemm {

// A backend that answers from an earlier database: its device, its cuBLAS timings and each config's recorded
// outcome on the same arch and shape, judged again at `settings`' tolerances. The recording keeps each
// comparison's largest errors, not every element, so a verdict carries over only where it is certain: a
// recorded 'ok' replays as ok when its max |c - ref| is within the new atol, or when the new tolerances are
// no tighter than those it was verified at; otherwise as 'incorrect', saying why. A recorded 'incorrect'
// stays incorrect (it was never timed). No GPU and no compiler needed. Throws StoreError for an unusable
// database and mpgemm::Error when it has no measured run. `delay` is a testing aid: each measure() waits that
// long, so kill and concurrency tests get the windows a GPU measurement would leave. `shapes`: the shapes the run
// will prepare; one the recording has no cuBLAS timing of on its device cannot be replayed, and is refused here
// (mpgemm::Error naming the shapes and the file) before anything is written.
std::unique_ptr<MeasureBackend> make_replay_backend(const std::filesystem::path& db_path,
                                                    const MeasureSettings& settings,
                                                    std::chrono::milliseconds delay = {},
                                                    const std::vector<Shape>& shapes = {});

}  // namespace mpgemm
