// A worker dies with its coordinator: when the process that started it is killed (kill -9, nothing can run in
// it), the worker must not live on holding the GPU. The stand-in worker is sleep(1), started through
// ChildProcess exactly as mpgemm-worker is.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "worker/process.hpp"

namespace mpgemm {
namespace {

// Waits up to `timeout` for `pid`, a child (or an orphan adopted by this subreaper), to end; true when it
// did.
bool reaped_within(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST(WorkerProcess, DiesWithItsCoordinator) {
  // Orphans are re-parented to this process instead of init, so the test can reap (and see) the worker.
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t coordinator = ::fork();
  ASSERT_GE(coordinator, 0);
  if (coordinator == 0) {
    // The coordinator: starts a worker, tells the test its pid, and waits to be killed.
    ::close(pipe_fds[0]);
    try {
      ChildProcess worker("/bin/sleep", {"600"});
      const pid_t pid = worker.pid();
      (void)!::write(pipe_fds[1], &pid, sizeof pid);
      ::pause();
    } catch (...) {
    }
    std::_Exit(1);
  }
  ::close(pipe_fds[1]);
  pid_t worker = -1;
  ASSERT_EQ(::read(pipe_fds[0], &worker, sizeof worker), static_cast<ssize_t>(sizeof worker));
  ::close(pipe_fds[0]);
  ASSERT_GT(worker, 0);
  EXPECT_EQ(::kill(worker, 0), 0) << "the worker is not running";

  ASSERT_EQ(::kill(coordinator, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(coordinator, &status, 0), coordinator);
  // The worker (now our orphan) ends on its own, by SIGKILL, well before sleep 600 would.
  const bool ended = reaped_within(worker, std::chrono::seconds(10));
  if (!ended) {
    ::kill(worker, SIGKILL);
    ::waitpid(worker, &status, 0);
  }
  EXPECT_TRUE(ended) << "the worker outlived its coordinator";
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
}

// The worker leads its own process group: a signal to the coordinator's group (Ctrl-C in a terminal, `timeout`)
// does not reach it, so it is never killed in the middle of a measurement that would then be stored as a fault.
TEST(WorkerProcess, SignalsToTheCoordinatorsGroupDoNotReachIt) {
  const pid_t coordinator = ::fork();
  ASSERT_GE(coordinator, 0);
  if (coordinator == 0) {
    // The coordinator, in a group of its own (the test's group holds ctest), catching SIGUSR1 with a handler (a
    // handler, unlike SIG_IGN, is reset to the default by exec, so a worker in its group would die of it): it
    // starts a worker and signals its whole group, as a terminal's Ctrl-C would. Exit 0: the worker was not in
    // that group and lives; 2: it died of it; 1: set-up failed.
    int code = 1;
    try {
      struct sigaction catcher {};
      catcher.sa_handler = [](int) {};
      if (::setpgid(0, 0) != 0 || ::sigaction(SIGUSR1, &catcher, nullptr) != 0) std::_Exit(1);
      ChildProcess worker("/bin/sleep", {"600"});
      const pid_t pid = worker.pid();
      // The child sets its group before exec; wait for it.
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (::getpgid(pid) != pid && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      if (::getpgid(pid) == pid && ::kill(0, SIGUSR1) == 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        int status = 0;
        code = ::waitpid(pid, &status, WNOHANG) == 0 ? 0 : 2;
      }
      worker.kill_and_reap(std::chrono::seconds(5));
    } catch (...) {
    }
    std::_Exit(code);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(coordinator, &status, 0), coordinator);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_NE(WEXITSTATUS(status), 1) << "set-up failed (setpgid, sigaction, or the worker never led its group)";
  EXPECT_NE(WEXITSTATUS(status), 2) << "the worker was signalled with its coordinator's group";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// SIGINT and SIGTERM sent to the worker itself (Slurm signals every process of a job step) do not end it; the
// coordinator does (SIGKILL).
TEST(WorkerProcess, IgnoresInterruptAndTerminate) {
  ChildProcess worker("/bin/sleep", {"600"});
  const pid_t pid = worker.pid();
  // Wait until the child has set its dispositions (its SigIgn mask in /proc shows both).
  const auto ignores_both = [pid] {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(status, line);)
      if (line.rfind("SigIgn:", 0) == 0) {
        const unsigned long long mask = std::stoull(line.substr(7), nullptr, 16);
        return (mask >> (SIGINT - 1) & 1) != 0 && (mask >> (SIGTERM - 1) & 1) != 0;
      }
    return false;
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!ignores_both() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_TRUE(ignores_both()) << "the worker never ignored SIGINT and SIGTERM";
  ASSERT_EQ(::kill(pid, SIGINT), 0);
  ASSERT_EQ(::kill(pid, SIGTERM), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  int status = 0;
  EXPECT_EQ(::waitpid(pid, &status, WNOHANG), 0) << "the worker died of SIGINT or SIGTERM";
  EXPECT_TRUE(worker.kill_and_reap(std::chrono::seconds(5)));
  EXPECT_NE(worker.describe_exit().find("signal 9"), std::string::npos) << worker.describe_exit();
}

TEST(WorkerProcess, ADyingChildIsReapedAndDescribed) {
  ChildProcess child("/bin/sh", {"-c", "exit 3"});
  ASSERT_TRUE(child.wait_exit(std::chrono::seconds(10)));
  EXPECT_EQ(child.describe_exit(), "exited with status 3");
}

}  // namespace
}  // namespace mpgemm
