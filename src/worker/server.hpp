#pragma once
// The worker's side of the protocol: serves requests until shutdown, the end of the request stream, or a fault that
// leaves the CUDA context unusable (reported first, then the process must exit: a context is never reused after a
// sticky error).
namespace mpgemm {

// Exit codes of mpgemm-worker, for the coordinator's logs.
enum WorkerExit : int {
  kWorkerExitOk = 0,           // shutdown request or the coordinator closed the pipe
  kWorkerExitUsage = 2,        // started by hand or without the pipes
  kWorkerExitContextLost = 3,  // a sticky CUDA fault was reported; the context is gone
  kWorkerExitNoDevice = 4,     // hello found no usable GPU (reported)
  kWorkerExitProtocol = 5,     // unreadable request or reply pipe failure
  kWorkerExitOrphaned = 6,     // the coordinator died
};

// Reads requests from `in_fd`, writes replies to `out_fd` (both blocking). Returns the exit code. Never throws.
int serve(int in_fd, int out_fd) noexcept;

}  // namespace mpgemm
