// mpgemm-worker: the process that owns the GPU during a tuning run. Internal: the coordinator (mpgemm-tune,
// mpgemm-run) starts it through WorkerClient with its request pipe on fd 3 and its reply pipe on fd 4, and kills it
// when a kernel hangs. Logs go to stderr.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <thread>

#include "common/version.hpp"
#include "worker/server.hpp"

namespace {

constexpr const char* kUsage =
    "mpgemm-worker is internal to mpgemm: mpgemm-tune and mpgemm-run start it with MessagePack request and reply\n"
    "pipes on file descriptors 3 and 4, and it runs their kernels on the GPU. It is not meant to be run by hand;\n"
    "use mpgemm-query to inspect the device, mpgemm-tune or mpgemm-run to measure kernels.\n";

bool is_pipe_fd(int fd, int access_mode) {
  const int flags = fcntl(fd, F_GETFL);
  return flags >= 0 && (flags & O_ACCMODE) == access_mode;
}

// A worker must not outlive its coordinator: a kernel spinning on the GPU would hold it forever. The request pipe's
// EOF tells between requests, but not while a launch is in flight, so a thread watches the parent as well.
void watch_parent() {
  const pid_t parent = getppid();
  std::thread([parent] {
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      if (getppid() != parent) _exit(mpgemm::kWorkerExitOrphaned);
    }
  }).detach();
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--version") == 0) {
      std::printf("mpgemm-worker %s (commit %s)\n", mpgemm::tool_version(), mpgemm::git_sha());
      return 0;
    }
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::fputs(kUsage, stdout);
      return 0;
    }
  }
  if (isatty(STDIN_FILENO)) {
    std::fputs(kUsage, stderr);
    return mpgemm::kWorkerExitUsage;
  }
  if (!is_pipe_fd(3, O_RDONLY) || !is_pipe_fd(4, O_WRONLY)) {
    std::fprintf(stderr,
                 "mpgemm-worker: file descriptors 3 (requests, readable) and 4 (replies, writable) are not "
                 "open as expected.\n%s",
                 kUsage);
    return mpgemm::kWorkerExitUsage;
  }
  fcntl(3, F_SETFD, FD_CLOEXEC);
  fcntl(4, F_SETFD, FD_CLOEXEC);
  std::signal(SIGPIPE, SIG_IGN);  // a vanished coordinator shows up as EPIPE, handled as the end of the session
  watch_parent();
  return mpgemm::serve(3, 4);
}
