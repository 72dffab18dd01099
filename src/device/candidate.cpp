#include "device/candidate.hpp"

#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "device/cuda_check.hpp"
#include "device/fit_geometry.hpp"
#include "device/sm_clock.hpp"
#include "device/timing.hpp"
#include "measure/fault.hpp"
#include "measure/stats.hpp"

namespace mpgemm {

ArgsBuilder family_args(const Family& family, Params params) {
  return [&family, params = std::move(params)](const ProblemBuffers& buffers, const DriverFunctions& driver,
                                               KernelArgs& args) {
    family.append_problem_args(params, buffers, driver, args);
  };
}

WorkspaceSizer family_workspace(const Family& family, Params params) {
  return [&family, params = std::move(params)](const GemmProblem& problem, const LaunchGeometry& geometry) {
    return family.workspace_bytes(params, problem, geometry);
  };
}

ArgsBuilder standard_args() {
  return [](const ProblemBuffers& buffers, const DriverFunctions&, KernelArgs& args) {
    push_standard_gemm_args(buffers, args);
  };
}

Measurement measurement_from(const VerifyOutcome& verify) {
  Measurement m;
  m.status = verify.status;
  m.error = verify.error;
  m.message = verify.message;
  return m;
}

namespace {

struct Fault {
  Status status;
  bool context_lost;
};

// Runtime and driver codes are classified by their own tables; the exception type says which API failed.
Fault classify(const CudaError& e) {
  const auto* driver = dynamic_cast<const DriverError*>(&e);
  const FaultClass fault = driver ? classify_driver_result(e.code()) : classify_runtime_error(e.code());
  return {status_for(fault), context_unusable(fault)};
}

}  // namespace

CandidateRun::CandidateRun(DeviceSession& session, ProblemContext& problem, CandidateKernel kernel)
    : session_(session), problem_(problem), kernel_(std::move(kernel)) {}

CandidateRun::~CandidateRun() = default;

std::optional<std::string> CandidateRun::fit_to_device() {
  const FittedGeometry fitted = fit_geometry(*loaded_, kernel_.geometry, session_.info().sm_count);
  if (fitted.reason) return fitted.reason;
  kernel_.geometry = fitted.geometry;
  // Said on stderr (the tuner's log) because it changes what is timed: a persistent grid smaller than the SM
  // count leaves SMs idle.
  if (fitted.geometry.grid.x != fitted.asked_grid_x)
    fmt::print(stderr, "mpgemm-worker: persistent grid lowered from {} to {} blocks ({} co-resident)\n",
               fitted.asked_grid_x, fitted.geometry.grid.x, fitted.co_resident);
  return std::nullopt;
}

void CandidateRun::launch() {
  loaded_->launch(kernel_.geometry, session_.stream(), arg_pointers_.data());
  MPGEMM_CUDA(cudaPeekAtLastError());
}

VerifyOutcome CandidateRun::verify(double atol, double rtol) {
  VerifyOutcome out;
  const char* step = "loading the cubin";
  const auto start = std::chrono::steady_clock::now();
  const auto setup_done = [&] {
    out.setup_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  // Stopped before the verification launch: all of the time so far was set-up (the worker's phase totals count it
  // as loading, not verifying).
  const auto stopped = [&](Status status, std::string message) {
    setup_done();
    out.status = status;
    out.message = std::move(message);
    return out;
  };
  try {
    loaded_ = std::make_unique<LoadedKernel>(session_.driver(), kernel_.cubin, kernel_.lowered_name);

    const LaunchGeometry& g = kernel_.geometry;
    if (auto why =
            check_resources(loaded_->resources(), session_.info().limits(), {g.block.count(), g.dynamic_smem_bytes}))
      return stopped(Status::resources_exceeded, *why);
    step = "configuring the function";
    loaded_->configure(g);
    step = "querying occupancy";
    if (auto why = fit_to_device()) return stopped(Status::resources_exceeded, *why);

    step = "building the kernel's arguments";
    try {
      // The grid is final here: what the kernel needs for it (a 16-bit D's split-K partial sums).
      if (kernel_.workspace_bytes)
        problem_.reserve_workspace(kernel_.workspace_bytes(problem_.problem(), kernel_.geometry));
      DriverFunctions driver;
      driver.tensor_map_encode_tiled = session_.driver().tensor_map_encode_tiled;
      kernel_.build_args(problem_.buffers(), driver, args_);
    } catch (const CudaError&) {
      throw;
    } catch (const Error& e) {
      return stopped(Status::launch_failed, fmt::format("cannot build the kernel's arguments: {}", e.what()));
    }
    arg_pointers_ = args_.pointers();
    setup_done();

    step = "verifying";
    problem_.poison_output();
    // A dependent launch is verified as it is timed: overlapping an earlier launch of itself (its blocks start
    // while that one's last blocks run, and the split flags pass from one launch to the next).
    const int launches = kernel_.geometry.dependent_launch ? 2 : 1;
    out.first_launch_ms = time_one_launch(session_.stream(),
                                          [this, launches] {
                                            for (int i = 0; i < launches; ++i) launch();
                                          }) /
                          launches;
    const ErrorStats stats = problem_.compare_output(atol, rtol);
    out.error = stats;
    verified_error_ = stats;
    if (stats.bad_count > 0) {
      out.status = Status::incorrect;
      out.message = fmt::format(
          "{} of {} elements differ from cuBLAS beyond {} + {} * |ref| ({} NaN or Inf); max abs error {:.6g}, max "
          "rel error {:.6g}",
          stats.bad_count, problem_.output_elements(), atol, rtol, stats.nan_count, stats.max_abs, stats.max_rel);
    }
  } catch (const CudaError& e) {
    const Fault fault = classify(e);
    out.status = fault.status;
    out.context_lost = context_lost_ = fault.context_lost;
    out.message = fmt::format("{} failed: {}", step, e.what());
    out.error.reset();
    if (out.setup_s == 0) setup_done();  // failed before the verification launch: set-up time
  }
  return out;
}

Measurement CandidateRun::time(int warmup, int runs, int iters, bool pair_with_cublas) {
  return time(TimingPlan{warmup, runs, iters, L2Mode::warm, std::nullopt}, pair_with_cublas, std::nullopt,
              std::nullopt);
}

Measurement CandidateRun::time(const TimingPlan& plan, bool pair_with_cublas, const std::optional<ScreenRule>& screen,
                               std::optional<double> screen_against_ms) {
  Measurement m;
  if (!loaded_ || !verified_error_) throw Error("CandidateRun::time called before a successful verify");
  last_screen_ms_.reset();
  try {
    const L2Flusher* flusher = plan.l2 == L2Mode::cold ? &session_.l2_flusher() : nullptr;
    // Screened also without a best to compare against (the first config of a shape): its screen time is the
    // like-for-like baseline of the configs after it (ScreenBaseline).
    if (screen && screen->launches > 0) {
      // Warm L2: the launches as one batch, enqueued as the full protocol's batches are (host calls or a graph),
      // after one untimed batch that warms the kernel; each batch, like the full protocol's, starts on an idle
      // queue, so a short batch carries its first launch's latency over few launches: screens are compared with
      // screens (ScreenBaseline). Timed one at a time, a microsecond kernel's time would be mostly launch latency
      // (docs/findings.md, "The quick screen must compare like with like"). Cold L2: one at a time, each after a
      // flush.
      TimingStats shown;
      if (flusher) {
        shown = summarize(time_each_launch(session_.stream(), screen->launches, flusher, [this] { launch(); }), 0,
                          screen->launches, 1);
      } else {
        WarmBatch batch = WarmBatch::graph_or_stream(
            session_.stream(), screen->launches, [this] { launch(); }, plan.batches);
        (void)batch.time();
        shown = summarize({batch.time()}, screen->launches, 1, screen->launches);
        shown.batches = batch.how();
      }
      shown.l2 = plan.l2;
      last_screen_ms_ = shown.median_ms;
      if (screened_out(shown.median_ms, screen_against_ms, *screen)) {
        m.status = Status::screened_out;
        m.timing = shown;
        m.error = verified_error_;
        m.message = fmt::format(
            "screened out: {:.4g} ms per launch over {} screening launches, is over {:.3g} x the fastest screen "
            "so far on the shape (or its best median before any screen: {:.4g} ms)",
            shown.median_ms, screen->launches, screen->threshold, *screen_against_ms);
        return m;
      }
    }
    if (pair_with_cublas) {
      PairedTimingStats p = time_paired(
          session_.stream(), plan, flusher, [this] { launch(); }, [this] { problem_.run_cublas(); });
      m.timing = p.a;
      m.paired_cublas = p.b;
    } else {
      m.timing = time_launches(session_.stream(), plan, flusher, [this] { launch(); });
    }
    m.sm_clock_mhz = read_sm_clock_mhz(session_.info().pci_bus_id, session_.info().ordinal);
    m.status = Status::ok;
    m.error = verified_error_;
  } catch (const CudaError& e) {
    const Fault fault = classify(e);
    context_lost_ = fault.context_lost;
    m.status = fault.status;
    m.timing.reset();
    m.paired_cublas.reset();
    m.message = fmt::format("timing failed after a correct verification launch: {}", e.what());
  }
  return m;
}

CandidateRun::BatchOutcome CandidateRun::guarded_batch(const char* what, const std::function<double()>& body) {
  if (!loaded_ || !verified_error_) throw Error("CandidateRun: timing before a successful verify");
  BatchOutcome out;
  try {
    out.ms = body();
  } catch (const CudaError& e) {
    const Fault fault = classify(e);
    context_lost_ = fault.context_lost;
    out.status = fault.status;
    out.message = fmt::format("{} failed after a correct verification launch: {}", what, e.what());
  }
  return out;
}

CandidateRun::BatchOutcome CandidateRun::warm_up(int launches) {
  return guarded_batch("warming up", [&] {
    for (int i = 0; i < launches; ++i) launch();
    MPGEMM_CUDA(cudaStreamSynchronize(session_.stream()));
    MPGEMM_CUDA(cudaGetLastError());
    return 0.0;
  });
}

CandidateRun::BatchOutcome CandidateRun::prepare_batch(int iters, BatchEnqueue how) {
  return guarded_batch("preparing a batch", [&] {
    batch_.reset();
    batch_ = std::make_unique<WarmBatch>(
        session_.stream(), iters, [this] { launch(); }, how);
    return 0.0;
  });
}

CandidateRun::BatchOutcome CandidateRun::time_prepared_batch() {
  if (!batch_) throw Error("CandidateRun::time_prepared_batch before a successful prepare_batch");
  return guarded_batch("a timed batch", [&] { return batch_->time(); });
}

}  // namespace mpgemm
