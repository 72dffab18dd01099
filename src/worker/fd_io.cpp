#include "worker/fd_io.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>

#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#include <fmt/format.h>

namespace mpgemm {

namespace {

// Blocks SIGPIPE for this thread while alive; on destruction consumes a SIGPIPE that a write raised meanwhile
// (unless one was already pending before) and restores the mask. The usual MSG_NOSIGNAL substitute for pipes.
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigset_t pending;
    sigemptyset(&pending);
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &block, &old_);
  }
  ~SigpipeBlock() {
    if (raised_ && !was_pending_) {
      sigset_t pipe_only;
      sigemptyset(&pipe_only);
      sigaddset(&pipe_only, SIGPIPE);
      const timespec zero{0, 0};
      while (sigtimedwait(&pipe_only, nullptr, &zero) == -1 && errno == EINTR) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;
  void raised() { raised_ = true; }

 private:
  sigset_t old_{};
  bool was_pending_ = false;
  bool raised_ = false;
};

// Waits for `events` on fd until the deadline: true when ready (or hung up / errored: the next call says which).
// The fd is polled at least once, so a deadline already past still sees what is ready now.
bool wait_ready(int fd, short events, std::optional<Clock::time_point> deadline) {
  for (;;) {
    int timeout_ms = -1;
    if (deadline) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - Clock::now()).count();
      timeout_ms = static_cast<int>(std::clamp<long long>(left, 0, 1 << 30));
    }
    pollfd p{fd, events, 0};
    const int n = poll(&p, 1, timeout_ms);
    if (n > 0) return true;
    if (n == 0) {
      if (deadline && Clock::now() >= *deadline) return false;
      continue;  // woke early: wait for the rest
    }
    if (errno != EINTR) throw Error(fmt::format("poll on worker pipe fd {}: {}", fd, std::strerror(errno)));
  }
}

}  // namespace

IoStatus write_frame(int fd, const Message& message, std::optional<Clock::time_point> deadline) {
  const std::vector<std::uint8_t> frame = encode_frame(message);
  SigpipeBlock guard;
  std::size_t done = 0;
  while (done < frame.size()) {
    const ssize_t n = ::write(fd, frame.data() + done, frame.size() - done);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EPIPE) {
      guard.raised();
      return IoStatus::closed;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!wait_ready(fd, POLLOUT, deadline)) return IoStatus::timed_out;
      continue;
    }
    throw Error(fmt::format("writing a '{}' message to fd {}: {}", message_type(message), fd,
                            n < 0 ? std::strerror(errno) : "no progress"));
  }
  return IoStatus::ok;
}

IoStatus read_message(int fd, FrameReader& reader, std::optional<Clock::time_point> deadline,
                      std::optional<Message>& out) {
  out = reader.next();
  std::uint8_t chunk[64 * 1024];
  while (!out) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n > 0) {
      reader.append({chunk, static_cast<std::size_t>(n)});
      out = reader.next();
      continue;
    }
    if (n == 0) {
      if (reader.pending_bytes() > 0)
        throw ProtocolError(
            fmt::format("the stream ended inside a frame ({} bytes of it received)", reader.pending_bytes()));
      return IoStatus::closed;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (!wait_ready(fd, POLLIN, deadline)) return IoStatus::timed_out;
      continue;
    }
    throw Error(fmt::format("reading from fd {}: {}", fd, std::strerror(errno)));
  }
  return IoStatus::ok;
}

bool input_pending(int fd, const FrameReader& reader, int wait_ms) {
  if (reader.pending_bytes() > 0) return true;
  return wait_ready(fd, POLLIN, Clock::now() + std::chrono::milliseconds(std::max(0, wait_ms)));
}

}  // namespace mpgemm
