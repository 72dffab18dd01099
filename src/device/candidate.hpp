#pragma once
// The GPU side of measuring one candidate on a prepared problem, in two phases the worker reports separately:
// verify (resource check, poison C, one launch, compare with cuBLAS) and time (the protocol). Failures of the
// kernel are results (a Status with a message), classified from error codes; only infrastructure bugs throw.
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "codegen/family.hpp"
#include "common/records.hpp"
#include "device/kernel.hpp"
#include "device/problem.hpp"
#include "device/session.hpp"
#include "device/timing.hpp"
#include "measure/sampling.hpp"

namespace mpgemm {

// Appends the kernel's arguments for a problem. Throws mpgemm::Error when the buffers do not suit the kernel.
using ArgsBuilder = std::function<void(const ProblemBuffers&, const DriverFunctions&, KernelArgs&)>;

// The family's own arguments (Family::append_problem_args). The family must outlive the builder.
ArgsBuilder family_args(const Family& family, Params params);
// A raw kernel's: (const __half* A, const __half* B, float* C, int M, int N, int K), as Family's default.
ArgsBuilder standard_args();

// Bytes of zeroed workspace a kernel needs for a problem launched with a geometry (Family::workspace_bytes).
using WorkspaceSizer = std::function<std::size_t(const GemmProblem&, const LaunchGeometry&)>;
// The family's answer. The family must outlive the sizer.
WorkspaceSizer family_workspace(const Family& family, Params params);

struct CandidateKernel {
  std::span<const char> cubin;  // must stay valid while the CandidateRun lives
  std::string lowered_name;     // the function's name in the cubin
  LaunchGeometry geometry;      // as the family asked; a persistent grid is lowered by verify()
  ArgsBuilder build_args;
  WorkspaceSizer workspace_bytes;  // empty: kWorkspaceBytes is enough
};

struct VerifyOutcome {
  Status status = Status::ok;       // ok, incorrect, resources_exceeded, launch_failed or runtime_fault
  std::optional<ErrorStats> error;  // present when the output was compared
  double first_launch_ms = 0;       // the verification launch, from events (ms); 0 when it did not run
  double setup_s = 0;               // host time loading the cubin, fitting the grid and building the arguments
  std::string message;              // empty when ok
  bool context_lost = false;        // the CUDA context is unusable: report, then end the process
};

// The Measurement for a candidate that stopped at verification (status other than ok).
Measurement measurement_from(const VerifyOutcome& verify);

class CandidateRun {
 public:
  CandidateRun(DeviceSession& session, ProblemContext& problem, CandidateKernel kernel);
  ~CandidateRun();
  CandidateRun(const CandidateRun&) = delete;
  CandidateRun& operator=(const CandidateRun&) = delete;

  // Loads and checks the kernel (resources; for a cluster launch, that one cluster can be co-resident), lowers a
  // persistent grid to what is co-resident (lower_persistent_grid), launches once (a dependent launch: twice, back to
  // back, the second overlapping the first) and compares with cuBLAS.
  VerifyOutcome verify(double atol, double rtol);

  // Times the kernel under the protocol and reads the SM clock right after. Only after verify() returned ok.
  // Status ok with timing and the verification's error stats, or the runtime_fault / launch_failed found while
  // timing (context_lost() tells whether the process must end).
  // With pair_with_cublas, cuBLAS is timed alternately with the kernel (time_paired) into paired_cublas.
  Measurement time(int warmup, int runs, int iters, bool pair_with_cublas = false);

  // For callers that order batches themselves (the interleaved re-rank), only after verify() returned ok:
  // `launches` untimed launches, synchronized; then single timed batches. A fault comes back as a status
  // (runtime_fault or launch_failed, with context_lost() telling whether the process must end).
  struct BatchOutcome {
    Status status = Status::ok;
    double ms = 0;        // per launch (ms), when ok
    std::string message;  // empty when ok
  };
  BatchOutcome warm_up(int launches);
  // Prepares the batch time_prepared_batch() times: `iters` launches enqueued from the host, or captured as one
  // graph (WarmBatch). A capture the driver refuses comes back as launch_failed with its message, a fault as
  // runtime_fault.
  BatchOutcome prepare_batch(int iters, BatchEnqueue how);
  BatchOutcome time_prepared_batch();
  const std::optional<ErrorStats>& verified_error() const { return verified_error_; }

  // The same with the whole plan (L2 mode, noise target, batches), after an optional screen: with `screen`,
  // screen->launches launches are timed first (last_screen_ms()), and with a time to compare them against
  // (`screen_against_ms`: the fastest screen so far on the shape, or its best median) they decide (warm L2: as
  // one batch, enqueued like the plan's batches, after an untimed one; cold L2: one by one, each after a flush);
  // when their median is screened_out() (measure/sampling.hpp), the result is Status::screened_out with a timing
  // of those launches (warm: warmup and iters = launches, one run; cold: warmup 0, runs = launches, iters 1)
  // and the full protocol is not run.
  Measurement time(const TimingPlan& plan, bool pair_with_cublas, const std::optional<ScreenRule>& screen,
                   std::optional<double> screen_against_ms);

  bool context_lost() const { return context_lost_; }
  // The screen's time per launch in the last time() that screened (ms); nullopt when it did not screen.
  std::optional<double> last_screen_ms() const { return last_screen_ms_; }

  // The geometry verify() and time() launch: the kernel's, with a persistent grid lowered once verify() has run.
  const LaunchGeometry& geometry() const { return kernel_.geometry; }

 private:
  void launch();
  BatchOutcome guarded_batch(const char* what, const std::function<double()>& body);
  // Queries occupancy for the geometry (after configure) and lowers a persistent grid; the reason when not even
  // one block or cluster can be resident.
  std::optional<std::string> fit_to_device();

  DeviceSession& session_;
  ProblemContext& problem_;
  CandidateKernel kernel_;
  std::unique_ptr<LoadedKernel> loaded_;
  KernelArgs args_;
  std::vector<void*> arg_pointers_;
  std::optional<ErrorStats> verified_error_;
  std::unique_ptr<WarmBatch> batch_;  // prepare_batch()'s
  std::optional<double> last_screen_ms_;
  bool context_lost_ = false;
};

}  // namespace mpgemm
