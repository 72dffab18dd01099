#pragma once
// Frames over file descriptors, for both ends of the worker pipes. The coordinator's side waits with poll() against
// a deadline and never dies of SIGPIPE; the worker's side blocks.
#include <chrono>
#include <optional>

#include "worker/protocol.hpp"

namespace mpgemm {

using Clock = std::chrono::steady_clock;

enum class IoStatus {
  ok,
  timed_out,  // the deadline passed first
  closed,     // the other end is gone (EOF on read, EPIPE on write)
};

// Writes the whole frame. With a deadline the fd must be non-blocking; without one it may block. SIGPIPE is blocked
// in the calling thread around the write and a SIGPIPE it raised is consumed, so a dead peer is IoStatus::closed.
// Throws mpgemm::Error on other I/O errors.
IoStatus write_frame(int fd, const Message& message, std::optional<Clock::time_point> deadline);

// Reads until `reader` yields a message. With a deadline the fd must be non-blocking. On EOF inside a frame,
// throws ProtocolError ("the stream ended inside a frame"). Throws mpgemm::Error on other I/O errors.
IoStatus read_message(int fd, FrameReader& reader, std::optional<Clock::time_point> deadline,
                      std::optional<Message>& out);

// Whether a message can be read without waiting: bytes are buffered in `reader` or readable on fd (or the fd is at
// EOF or in error: read_message then says which), waiting up to `wait_ms` for them.
bool input_pending(int fd, const FrameReader& reader, int wait_ms = 0);

}  // namespace mpgemm
