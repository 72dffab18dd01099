#pragma once
// Which 'running' runs still live, internal to src/store. A run's process holds an open-file-description lock
// on byte kLiveRunBase + id of "<db>-claims" (common/file_lock.hpp) from the moment its row is inserted until
// end_run or its death; the kernel drops it when the process dies, however it dies.
#include <cstdint>
#include <string_view>

#include "store/store_impl.hpp"

namespace mpgemm::store_detail {

// Marks 'interrupted' every run still 'running' on `hostname` whose process is gone: no process with its pid
// exists here and nobody holds its lock. Runs of other hosts and runs without a pid (recorded before schema
// version 5) are left alone: nothing here can tell whether they live. Call inside the write transaction that
// inserts the new run, so that no other process can see that row before its lock is held. Returns how many it
// marked.
std::int64_t mark_dead_runs(State& s, std::string_view hostname);

// Takes the lock that says run `id` lives; without a lock file (a read-only folder) the pid alone speaks for
// it.
void hold_live_run(State& s, std::int64_t id);
void release_live_run(State& s, std::int64_t id) noexcept;

}  // namespace mpgemm::store_detail
