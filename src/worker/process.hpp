#pragma once
// A worker child process: fork + exec with its request pipe on fd 3 and its reply pipe on fd 4, stdin from
// /dev/null, stdout and stderr shared with the coordinator (the worker's logs). Killing always ends in
// waitpid, so no zombie is left behind. The child dies with its coordinator (PR_SET_PDEATHSIG, SIGKILL): a
// killed mpgemm-tune leaves no worker behind. The signal comes when the *thread* that started the child ends,
// so start a child from a thread that outlives it (the main thread, or the thread that owns the
// ChildProcess). The child leads its own process group and ignores SIGINT, SIGTERM and SIGTTOU: a terminal's
// Ctrl-C, `timeout` or Slurm stop the coordinator, which ends the worker itself.
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "common/error.hpp"

namespace mpgemm {

// The worker process could not be started, or failed outside of a candidate's measurement (died while preparing a
// shape, broke the protocol, ...).
class WorkerError : public Error {
 public:
  using Error::Error;
};

class ChildProcess {
 public:
  // Starts `path` with `args` (argv[1..]). Throws WorkerError when the pipes cannot be made or exec fails (the
  // message has errno's text, e.g. "No such file or directory").
  ChildProcess(const std::string& path, const std::vector<std::string>& args);
  // Kills and reaps the child if it still runs, closes the pipes. Never throws.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  int request_fd() const { return request_fd_; }       // write end, non-blocking
  int reply_fd() const { return reply_fd_; }           // read end, non-blocking
  bool reaped() const { return status_.has_value(); }  // or handed over to reap_stragglers
  std::optional<int> wait_status() const { return status_; }

  // Closes our end of the request pipe: the worker reads EOF.
  void close_requests() noexcept;
  // Waits up to `timeout` for the child to exit by itself, reaping it. True when it has been reaped.
  bool wait_exit(std::chrono::milliseconds timeout) noexcept;
  // SIGKILL, then waits up to `timeout` to reap it. True when reaped; otherwise it is reaped later (see below).
  bool kill_and_reap(std::chrono::milliseconds timeout) noexcept;

  // "exited with status 3", "killed by signal 9 (Killed)", or "still running" when not reaped yet.
  std::string describe_exit() const;

  // Reaps children killed earlier that had not exited within their timeout (stuck in the driver). Called before
  // each spawn and by the destructor; cheap when there are none.
  static void reap_stragglers() noexcept;

 private:
  pid_t pid_ = -1;
  int request_fd_ = -1;
  int reply_fd_ = -1;
  std::optional<int> status_;
};

std::string describe_wait_status(int status);

}  // namespace mpgemm
