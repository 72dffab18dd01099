#include "worker/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <thread>

#include <fmt/format.h>

namespace mpgemm {

namespace {

std::mutex g_stragglers_mutex;
std::vector<pid_t> g_stragglers;  // killed children not reaped yet

void close_fd(int& fd) noexcept {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// In the child between fork and exec: only async-signal-safe calls. `parent` is the coordinator's pid.
[[noreturn]] void exec_child(pid_t parent, int request_read, int reply_write, int dev_null, int status_write,
                             const char* path, char* const* argv) {
  // The worker dies with its coordinator: a killed mpgemm-tune must not leave a worker holding the GPU. The
  // kernel sends SIGKILL when the thread that forked us ends (the setting survives execv); a coordinator that
  // died before this line is seen by getppid() no longer being it.
  const bool orphan_dies = prctl(PR_SET_PDEATHSIG, SIGKILL) == 0;
  const int orphan_errno = errno;
  if (getppid() != parent) _exit(127);  // nobody is left to tell
  // Stopping is the coordinator's to decide. A Ctrl-C in the terminal (SIGINT) or `timeout` (SIGTERM) signals the
  // coordinator's whole process group, and Slurm signals every process of a job step: a worker that died of it
  // mid-measurement left that config stored as a runtime_fault it never had. So the worker leads its own group and
  // ignores SIGINT and SIGTERM (ignored dispositions survive execv); the coordinator finishes the measurement in
  // flight and ends it (SIGKILL, or PR_SET_PDEATHSIG when the coordinator dies). SIGTTOU is ignored too, so that as
  // a background group on a terminal with `stty tostop` it still writes its log lines instead of being stopped.
  // (A failure of any of these leaves that part as before.)
  setpgid(0, 0);
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  for (const int sig : {SIGINT, SIGTERM, SIGTTOU}) sigaction(sig, &ignore, nullptr);
  // Move every descriptor needed above 4 first (any of them may sit on 0-4 when the coordinator runs with closed
  // standard streams), so placing them on 0, 3 and 4 cannot clobber one another.
  const int status_fd = fcntl(status_write, F_DUPFD_CLOEXEC, 10);
  const int in = fcntl(request_read, F_DUPFD, 10);
  const int out = fcntl(reply_write, F_DUPFD, 10);
  const int null_fd = fcntl(dev_null, F_DUPFD, 10);
  int error = orphan_dies ? 0 : orphan_errno;
  if (error != 0) {
    // reported below, without exec: a worker that could outlive its coordinator is not started
  } else if (status_fd < 0 || in < 0 || out < 0 || null_fd < 0 || dup2(null_fd, 0) < 0 || dup2(in, 3) < 0 ||
             dup2(out, 4) < 0) {
    error = errno;
  } else {
#ifdef SYS_close_range
    // Leave the worker only 0-4 (and the close-on-exec status pipe until exec): no descriptor of the coordinator
    // (a database, another worker's pipes) stays open in it. Failure (an old kernel) only leaves them open.
    if (status_fd > 5) syscall(SYS_close_range, 5u, static_cast<unsigned>(status_fd - 1), 0u);
    syscall(SYS_close_range, static_cast<unsigned>(status_fd + 1), ~0u, 0u);
#endif
    execv(path, argv);
    error = errno;
  }
  const int report_fd = status_fd >= 0 ? status_fd : status_write;
  ssize_t ignored = write(report_fd, &error, sizeof error);
  (void)ignored;
  _exit(127);
}

}  // namespace

ChildProcess::ChildProcess(const std::string& path, const std::vector<std::string>& args) {
  reap_stragglers();
  std::vector<std::string> storage{path};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);

  int request[2] = {-1, -1}, reply[2] = {-1, -1}, status[2] = {-1, -1};
  int dev_null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  const auto fail = [&](const char* what) {
    const int error = errno;
    for (int* fd : {&request[0], &request[1], &reply[0], &reply[1], &status[0], &status[1], &dev_null}) close_fd(*fd);
    throw WorkerError(fmt::format("cannot start worker {}: {}: {}", path, what, std::strerror(error)));
  };
  if (dev_null < 0) fail("open /dev/null");
  if (pipe2(request, O_CLOEXEC) != 0 || pipe2(reply, O_CLOEXEC) != 0 || pipe2(status, O_CLOEXEC) != 0) fail("pipe2");

  const pid_t parent = getpid();
  pid_ = fork();
  if (pid_ < 0) fail("fork");
  if (pid_ == 0) exec_child(parent, request[0], reply[1], dev_null, status[1], path.c_str(), argv.data());

  close_fd(request[0]);
  close_fd(reply[1]);
  close_fd(status[1]);
  close_fd(dev_null);
  request_fd_ = request[1];
  reply_fd_ = reply[0];

  // exec succeeded when the close-on-exec status pipe reaches EOF without an errno in it.
  int exec_errno = 0;
  ssize_t n = 0;
  do {
    n = read(status[0], &exec_errno, sizeof exec_errno);
  } while (n < 0 && errno == EINTR);
  close_fd(status[0]);
  if (n > 0) {
    wait_exit(std::chrono::seconds(5));
    close_fd(request_fd_);
    close_fd(reply_fd_);
    throw WorkerError(fmt::format("cannot start worker {}: exec failed: {}", path, std::strerror(exec_errno)));
  }
  fcntl(request_fd_, F_SETFL, fcntl(request_fd_, F_GETFL) | O_NONBLOCK);
  fcntl(reply_fd_, F_SETFL, fcntl(reply_fd_, F_GETFL) | O_NONBLOCK);
}

ChildProcess::~ChildProcess() {
  close_requests();
  if (pid_ > 0 && !status_) kill_and_reap(std::chrono::seconds(10));
  close_fd(reply_fd_);
}

void ChildProcess::close_requests() noexcept {
  close_fd(request_fd_);
}

bool ChildProcess::wait_exit(std::chrono::milliseconds timeout) noexcept {
  if (status_) return true;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int st = 0;
    const pid_t r = waitpid(pid_, &st, WNOHANG);
    if (r == pid_) {
      status_ = st;
      return true;
    }
    if (r < 0 && errno != EINTR) {  // ECHILD: reaped elsewhere (SIGCHLD ignored); it is gone either way
      status_ = -1;
      return true;
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

bool ChildProcess::kill_and_reap(std::chrono::milliseconds timeout) noexcept {
  if (status_) return true;
  ::kill(pid_, SIGKILL);
  if (wait_exit(timeout)) return true;
  try {
    std::lock_guard lock(g_stragglers_mutex);
    g_stragglers.push_back(pid_);
  } catch (...) {
  }
  status_ = -1;  // ours no longer: reap_stragglers owns it now
  return false;
}

void ChildProcess::reap_stragglers() noexcept {
  try {
    std::lock_guard lock(g_stragglers_mutex);
    std::erase_if(g_stragglers, [](pid_t pid) {
      int st = 0;
      const pid_t r = waitpid(pid, &st, WNOHANG);
      return r == pid || (r < 0 && errno == ECHILD);
    });
  } catch (...) {
  }
}

std::string ChildProcess::describe_exit() const {
  if (!status_) return "still running";
  if (*status_ == -1) return "gone (exit status unknown)";
  return describe_wait_status(*status_);
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const char* name = strsignal(WTERMSIG(status));
    return fmt::format("killed by signal {} ({})", WTERMSIG(status), name ? name : "unknown");
  }
  return fmt::format("ended with wait status {}", status);
}

}  // namespace mpgemm
