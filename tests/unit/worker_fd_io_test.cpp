// The worker's non-blocking look at its request pipe (input_pending), which keeping the card warm relies on to
// answer a request as soon as it arrives: a byte already in the pipe is seen without waiting, also with no wait at
// all; an empty pipe is not, and a wait for it lasts about as long as asked; a closed pipe counts as pending (the
// read then says closed).
#include <unistd.h>

#include <chrono>

#include <gtest/gtest.h>

#include "worker/fd_io.hpp"

namespace mpgemm {
namespace {

struct Pipe {
  int fds[2] = {-1, -1};
  Pipe() { EXPECT_EQ(pipe(fds), 0); }
  ~Pipe() {
    for (int fd : fds)
      if (fd >= 0) close(fd);
  }
};

TEST(WorkerFdIo, InputPendingSeesWhatIsInThePipeWithoutWaiting) {
  Pipe p;
  FrameReader reader;
  EXPECT_FALSE(input_pending(p.fds[0], reader));
  const auto start = Clock::now();
  EXPECT_FALSE(input_pending(p.fds[0], reader, 30));
  const auto waited_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  EXPECT_GE(waited_ms, 25);
  EXPECT_LT(waited_ms, 5000);

  const char byte = 'x';
  ASSERT_EQ(write(p.fds[1], &byte, 1), 1);
  EXPECT_TRUE(input_pending(p.fds[0], reader)) << "a byte in the pipe must be seen with no wait";
  EXPECT_TRUE(input_pending(p.fds[0], reader, 1000));

  Pipe closed;
  close(closed.fds[1]);
  closed.fds[1] = -1;
  EXPECT_TRUE(input_pending(closed.fds[0], reader)) << "EOF is for the read to report";
}

}  // namespace
}  // namespace mpgemm
