#pragma once
// The coordinator's handle on the GPU worker process. The coordinator never touches the GPU: every CUDA call happens
// in `mpgemm-worker`, so a kernel that faults or hangs costs a worker process, never the sweep. Not thread-safe:
// one thread drives one client.
//
// Time limits (each measured from sending the request):
//   hello                  hello_timeout
//   account                account_timeout (the worker answers from memory)
//   prepare_shape          prepare_timeout + the settling it asks for (the longer of settle_ms and
//                          hold.idle_settle_ms, and after cuBLASLt's search after_search_settle_ms)
//   measure, phase 1       verify_base + verify_cublas_factor x cuBLAS median of the current shape + the shape's
//     settling after idle (the end of a keep-warm slice, load, resource check, poison, the verification launch,
//     comparison, settling after idle; ends with the 'verified' reply)
//   measure, phase 2       timing_base + timing_factor x (warmup + runs x iters) x first_launch_ms
//     with screening launches added; with a noise target, (min_samples + 1) x iters more launches plus its time
//     cap; with cold L2, 1 ms more per launch for the flush
//     (the timing protocol; starts when 'verified' arrives, ends with 'result')
//   time_interleaved       N x the phase 1 limit + timing_base + timing_factor x (warmup + rounds x iters) x
//                          (the sum of the kernels' expected_ms, or cuBLAS's median where one is 0, + cuBLAS's,
//                          + cuBLAS's again for cuBLASLt when the request asks for it), plus timing_factor x
//                          (settle_ms + one round of iters launches) when the request settles first
// Past a limit the worker is killed with SIGKILL and reaped, and the candidate's status is timeout. A worker that
// dies or reports a sticky fault gives runtime_fault. Either way the next call starts a fresh worker, which gets
// hello and the current prepare_shape again before it measures anything.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "worker/fd_io.hpp"
#include "worker/process.hpp"
#include "worker/protocol.hpp"

namespace mpgemm {

struct WorkerOptions {
  std::string executable;                              // empty: mpgemm-worker in the directory of /proc/self/exe
  std::vector<std::string> args;                       // extra arguments for the executable
  int device_ordinal = 0;                              // CUDA device the worker uses
  std::chrono::milliseconds hello_timeout{120'000};    // start-up: driver, context and cuBLAS initialisation
  std::chrono::milliseconds account_timeout{10'000};   // the end-of-run account: no GPU work, answered at once
  std::chrono::milliseconds prepare_timeout{600'000};  // allocation, input generation, reference, cuBLAS timing
  std::chrono::milliseconds verify_base{10'000};       // phase 1 limit, fixed part
  double verify_cublas_factor = 1000;                  // phase 1 limit, multiple of the cuBLAS median
  std::chrono::milliseconds timing_base{5'000};        // phase 2 limit, fixed part
  double timing_factor = 3;                            // phase 2 limit, multiple of the expected timing time
  std::chrono::milliseconds shutdown_grace{2'000};     // a worker's time to exit on its own before SIGKILL
  std::chrono::milliseconds reap_timeout{10'000};      // how long to wait for a killed worker to be reaped
};

// mpgemm-worker beside the running executable. Throws WorkerError when /proc/self/exe cannot be read.
std::string default_worker_path();

class WorkerClient {
 public:
  explicit WorkerClient(WorkerOptions options = {});
  // Asks the worker to shut down, SIGKILLs it after the grace period, reaps it. Never throws.
  ~WorkerClient();
  WorkerClient(const WorkerClient&) = delete;
  WorkerClient& operator=(const WorkerClient&) = delete;

  // Starts a worker if none runs and returns its device. Throws NoDeviceError when the worker finds no usable GPU
  // (the worker has exited then), WorkerError when it cannot be started or does not answer in time.
  DeviceInfo hello();

  // Makes `request` the current shape: the worker allocates it, computes cuBLAS's reference and times cuBLAS
  // (and cuBLASLt when the request asks). Throws CudaError (e.g. out of memory for the shape, with the
  // sizes), NoDeviceError, WorkerError; the current shape is then unset. A replacement worker gets the same
  // request without cuBLASLt: its reference was taken once.
  PrepareShapeReply prepare_shape(const PrepareShapeRequest& request);

  // Measures one candidate on the current shape. Kernel failures are results: resources_exceeded, launch_failed,
  // incorrect, runtime_fault, timeout (see the limits above). Throws mpgemm::Error when no shape is prepared,
  // WorkerError when a fresh worker cannot be started or breaks the protocol, CudaError / NoDeviceError when the
  // restart's prepare_shape fails.
  Measurement measure(const MeasureRequest& request);

  // Re-times already-measured kernels side by side with cuBLAS on the current shape (TimeInterleavedRequest).
  // A kernel's failure is in its result; when one lost the context the worker is ended (the next call starts
  // a fresh one). Throws mpgemm::Error when no shape is prepared, WorkerError when the worker does not answer
  // within the limit (it is killed: a hang cannot be pinned on one kernel) or dies.
  InterleavedReply time_interleaved(const TimeInterleavedRequest& request);
  std::chrono::milliseconds interleaved_limit(const TimeInterleavedRequest& request) const;
  std::chrono::milliseconds prepare_limit(const PrepareShapeRequest& request) const;

  // The running worker's account of its time since it started (a worker replaced after a fault starts a new
  // one); nullopt when none runs or it does not answer within account_timeout (it is then ended). Never throws.
  std::optional<WorkerPhases> account() noexcept;

  // Ends the worker (politely, then SIGKILL). The next call starts a new one. Never throws.
  void shutdown() noexcept;

  bool running() const;
  int pid() const;                        // the worker's pid, -1 when none runs
  int starts() const { return starts_; }  // workers started so far
  const std::optional<CublasReference>& reference() const { return reference_; }

  // The limits measure() applies with the current shape (see the top of this file).
  std::chrono::milliseconds verify_limit() const;
  std::chrono::milliseconds timing_limit(const MeasureRequest& request, double first_launch_ms) const;

 private:
  struct Received {
    IoStatus status;
    std::optional<Message> message;
  };

  void ensure_started();
  void start_worker();
  Message call(const Message& request, std::chrono::milliseconds limit);
  IoStatus send(const Message& request, Clock::time_point deadline);
  Received receive(Clock::time_point deadline);
  // Ends the worker: waits `grace` for it to exit by itself, then SIGKILL; returns how it ended.
  std::string end_worker(std::chrono::milliseconds grace) noexcept;
  [[noreturn]] void throw_error_reply(const ErrorReply& error, std::string_view request);

  WorkerOptions options_;
  std::unique_ptr<ChildProcess> child_;
  FrameReader reader_;
  std::optional<DeviceInfo> device_;
  std::optional<PrepareShapeRequest> shape_;
  std::optional<CublasReference> reference_;
  int starts_ = 0;
};

}  // namespace mpgemm
