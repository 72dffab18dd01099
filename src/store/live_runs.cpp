#include "store/live_runs.hpp"

#include <signal.h>

#include <cerrno>
#include <vector>

#include <fmt/format.h>

namespace mpgemm::store_detail {

namespace {

// True only when no process with this pid exists on this host (a process of another user still exists:
// EPERM).
bool process_gone(std::int64_t pid) {
  if (pid <= 0) return false;
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

const LockFile& live_runs_file(State& s) {
  if (!s.live_runs) s.live_runs.emplace(claims_path(s.path));
  return *s.live_runs;
}

}  // namespace

std::int64_t mark_dead_runs(State& s, std::string_view hostname) {
  std::vector<std::int64_t> dead;
  {
    sqlite::Statement q(s.conn,
                        "SELECT id, pid FROM runs WHERE status = 'running' AND pid IS NOT NULL AND hostname = ?1",
                        "looking for runs whose process died");
    q.bind(hostname);
    const LockFile& locks = live_runs_file(s);
    while (q.step()) {
      const std::int64_t id = q.int64(0);
      if (process_gone(q.int64(1)) && !locks.locked_elsewhere(kLiveRunBase + id)) dead.push_back(id);
    }
  }
  for (const std::int64_t id : dead)
    sqlite::Statement(s.conn, "UPDATE runs SET status = 'interrupted' WHERE id = ?1 AND status = 'running'",
                      fmt::format("marking run {}, whose process died, interrupted", id))
        .bind(id)
        .run();
  return static_cast<std::int64_t>(dead.size());
}

void hold_live_run(State& s, std::int64_t id) {
  (void)live_runs_file(s).try_lock(kLiveRunBase + id);
}

void release_live_run(State& s, std::int64_t id) noexcept {
  if (s.live_runs) s.live_runs->unlock(kLiveRunBase + id);
}

}  // namespace mpgemm::store_detail
