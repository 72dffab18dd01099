#include "worker/server.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "codegen/family.hpp"
#include "device/candidate.hpp"
#include "device/cublaslt.hpp"
#include "device/cuda_check.hpp"
#include "device/problem.hpp"
#include "device/session.hpp"
#include "device/sm_clock.hpp"
#include "measure/fault.hpp"
#include "worker/fd_io.hpp"
#include "worker/interleaved.hpp"
#include "worker/kept_shapes.hpp"
#include "worker/phase_totals.hpp"

namespace mpgemm {

namespace {

// Keeping warm starts this long after a request (a tuner measuring back to back sends the next one sooner; below
// kIdleGapMs) and runs cuBLAS in slices of about kKeepWarmSliceMs (at least one launch, at most 8), looking for a
// request between them.
constexpr int kKeepWarmDelayMs = 2;
constexpr double kKeepWarmSliceMs = 2;

void log(const std::string& text) {
  fmt::print(stderr, "mpgemm-worker[{}]: {}\n", getpid(), text);
}

// Shapes prepared earlier are kept, inputs and cuBLASLt's choice, while they take at most this share of the
// device's memory and number at most kKeptShapesMost: preparing one again with the same seed (the tuner's re-rank
// after its first pass, a lane coming back to a shape) then costs a settling and cuBLAS's timing, not the host's
// fill and cuBLASLt's search, which take seconds at large shapes.
constexpr double kKeptShapesMemoryShare = 0.125;
constexpr std::size_t kKeptShapesMost = 16;

// A shape prepared earlier, its inputs still on the device.
struct KeptShape {
  std::unique_ptr<ProblemContext> problem;
  std::optional<CublasLtReference> cublaslt;  // its search's result; nullopt: it was prepared without cuBLASLt
};

// A shape's preparation, step by step (seconds).
struct PrepareSteps {
  double inputs_s = 0;    // buffers allocated, inputs filled on the host and uploaded, cuBLAS's reference output
  double compare_s = 0;   // the comparison kernel (compiled once per process)
  double cublas_s = 0;    // cuBLAS timed
  double cublaslt_s = 0;  // cuBLASLt's heuristics verified and timed
};

class Server {
 public:
  Server(int in_fd, int out_fd) : in_(in_fd), out_(out_fd) {}

  int run() {
    const int code = serve_requests();
    if (phases_.measurements > 0 || phases_.reranks > 0) log(phases_.summary());
    return code;
  }

 private:
  int serve_requests() {
    for (;;) {
      std::optional<Message> request;
      const auto waiting = std::chrono::steady_clock::now();
      double kept_warm_s = 0;
      try {
        kept_warm_s = keep_warm_until_request();
        if (read_message(in_, reader_, std::nullopt, request) == IoStatus::closed) return kWorkerExitOk;
      } catch (const ProtocolError& e) {
        reply(ErrorReply{ErrorKind::protocol, 0, e.what(), true});
        return kWorkerExitProtocol;
      }
      // The wait before the first request is the coordinator starting up, not the pipeline.
      if (phases_.measurements > 0 || phases_.shapes > 0)
        phases_.waiting_s += std::max(0.0, seconds_since(waiting) - kept_warm_s);
      if (std::holds_alternative<ShutdownRequest>(*request)) return kWorkerExitOk;
      auto exit_code = handle(*request);
      if (runs_on_the_gpu(*request)) last_busy_ = std::chrono::steady_clock::now();
      if (exit_code) return *exit_code;
    }
  }

  static bool runs_on_the_gpu(const Message& request) {
    return std::holds_alternative<PrepareShapeRequest>(request) || std::holds_alternative<MeasureRequest>(request) ||
           std::holds_alternative<TimeInterleavedRequest>(request);
  }

  // Untimed cuBLAS on the prepared shape while no request is readable, from kKeepWarmDelayMs after the last request
  // (the next one of a run that is not waiting for compiles comes sooner) to hold_.keep_warm_ms after it: in a
  // compile wait the card stays at the clock sustained load holds, instead of cooling and timing the next config
  // in a burst. Returns the seconds spent. A CUDA failure stops it for this shape (the next request meets the
  // failure itself).
  double keep_warm_until_request() {
    if (!problem_ || keep_warm_failed_ || hold_.keep_warm_ms <= 0) return 0;
    if (input_pending(in_, reader_, kKeepWarmDelayMs)) return 0;
    const auto start = std::chrono::steady_clock::now();
    const auto since_request_ms = [&] {
      return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - last_busy_).count();
    };
    // Slices of about kKeepWarmSliceMs (at least one launch, at most 8), so a request waits little for the card.
    const double cublas_ms = cublas_median_ms_ > 0 ? cublas_median_ms_ : kKeepWarmSliceMs;
    const int launches = static_cast<int>(std::clamp(std::ceil(kKeepWarmSliceMs / cublas_ms), 1.0, 8.0));
    double kept_s = 0;
    try {
      while (!input_pending(in_, reader_) && keep_warm_now(since_request_ms(), hold_)) {
        problem_->run_cublas_untimed(launches);
        kept_s = seconds_since(start);
      }
    } catch (const Error& e) {
      keep_warm_failed_ = true;
      log(fmt::format("keeping the card warm stopped: {}", e.what()));
    }
    if (kept_s > 0) {
      last_kept_warm_ = std::chrono::steady_clock::now();
      phases_.keeping_warm_s += kept_s;
    }
    return kept_s;
  }

  // How long the card has been idle (ms): since the last GPU request or keeping warm, whichever ended later.
  double idle_ms() const {
    const auto busy = std::max(last_busy_, last_kept_warm_);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - busy).count();
  }

  // Settling, right before a candidate is timed, when it found the card idle on arrival (`idle_ms`;
  // hold_.idle_settle_ms): the wall time (ms), 0 for none.
  double settle_if_idle(double idle_ms) {
    const int ms = idle_settle_for(idle_ms, hold_);
    if (ms == 0) return 0;
    const double settled_ms = problem_->settle_with_cublas(ms);
    phases_.idle_settling_s += settled_ms / 1e3;
    ++phases_.idle_settles;
    return settled_ms;
  }

  // An exit code when the worker must stop after this request.
  std::optional<int> handle(const Message& request) {
    try {
      if (const auto* m = std::get_if<HelloRequest>(&request)) return hello(*m);
      if (const auto* m = std::get_if<PrepareShapeRequest>(&request)) return prepare(*m);
      if (const auto* m = std::get_if<MeasureRequest>(&request)) return measure(*m);
      if (const auto* m = std::get_if<TimeInterleavedRequest>(&request)) return interleaved(*m);
      if (std::holds_alternative<AccountRequest>(request)) {
        reply(AccountReply{phases_});
        return std::nullopt;
      }
      reply(ErrorReply{ErrorKind::protocol, 0, fmt::format("'{}' is not a request", message_type(request)), true});
      return kWorkerExitProtocol;
    } catch (const ReplyFailed&) {
      return kWorkerExitProtocol;
    } catch (const NoDeviceError& e) {
      return fail(ErrorKind::no_device, 0, e.what(), kWorkerExitNoDevice);
    } catch (const CudaError& e) {
      return fail(ErrorKind::cuda, e.code(), e.what(), context_healthy() ? 0 : kWorkerExitContextLost);
    } catch (const CublasError& e) {
      return fail(ErrorKind::cublas, e.status(), e.what(), context_healthy() ? 0 : kWorkerExitContextLost);
    } catch (const Error& e) {
      return fail(ErrorKind::bad_request, 0, e.what(), 0);
    } catch (const std::exception& e) {
      return fail(ErrorKind::internal, 0, e.what(), context_healthy() ? 0 : kWorkerExitContextLost);
    }
  }

  struct ReplyFailed {};

  void reply(const Message& message) {
    if (write_frame(out_, message, std::nullopt) != IoStatus::ok) {
      log("the coordinator closed the reply pipe");
      throw ReplyFailed{};
    }
  }

  std::optional<int> fail(ErrorKind kind, int code, const std::string& message, int exit_code) {
    try {
      reply(ErrorReply{kind, code, message, exit_code != 0});
    } catch (const ReplyFailed&) {
      return kWorkerExitProtocol;
    }
    if (exit_code != 0) return exit_code;
    return std::nullopt;
  }

  // After a failure outside a candidate: is the context still usable? Decided from the code of a synchronisation.
  bool context_healthy() const {
    if (!session_) return true;
    return !context_unusable(classify_runtime_error(static_cast<int>(cudaDeviceSynchronize())));
  }

  std::optional<int> hello(const HelloRequest& m) {
    if (m.protocol != kProtocolVersion)
      return fail(ErrorKind::bad_request, 0,
                  fmt::format("protocol {} requested, this worker speaks {}", m.protocol, kProtocolVersion),
                  kWorkerExitProtocol);
    if (!session_) session_ = std::make_unique<DeviceSession>(m.device_ordinal);
    reply(HelloReply{kProtocolVersion, session_->info(), static_cast<int>(getpid())});
    return std::nullopt;
  }

  std::optional<int> prepare(const PrepareShapeRequest& m) {
    if (!session_) return fail(ErrorKind::bad_request, 0, "prepare_shape before hello", 0);
    if (auto why = bad_protocol(m.warmup, m.runs, m.iters)) return fail(ErrorKind::bad_request, 0, *why, 0);
    if (auto why = bad_tolerances(m.atol, m.rtol)) return fail(ErrorKind::bad_request, 0, *why, 0);
    if (auto gap = m.kind.reference_gap()) return fail(ErrorKind::bad_request, 0, *gap, 0);
    if (!std::isfinite(m.alpha) || !std::isfinite(m.beta))
      return fail(ErrorKind::bad_request, 0, fmt::format("alpha {} and beta {} must be finite", m.alpha, m.beta), 0);
    if (m.settle_ms < 0 || m.settle_ms > kMaxSettleMs)
      return fail(ErrorKind::bad_request, 0, fmt::format("settle_ms {} outside 0-{}", m.settle_ms, kMaxSettleMs), 0);
    for (const int ms : {m.hold.keep_warm_ms, m.hold.idle_settle_ms})
      if (ms < 0 || ms > kMaxSettleMs)
        return fail(ErrorKind::bad_request, 0,
                    fmt::format("clock hold of {} ms (keep warm {}, settle after idle {}) outside 0-{}", ms,
                                m.hold.keep_warm_ms, m.hold.idle_settle_ms, kMaxSettleMs),
                    0);
    const auto start = std::chrono::steady_clock::now();
    hold_ = m.hold;
    keep_warm_failed_ = false;
    cublaslt_for_shape_ = false;
    cublas_median_ms_ = 0;
    screen_baseline_.reset();
    // The shape prepared until now joins the kept ones, and the request's shape is taken out of them before any is
    // let go, so the one asked for does not count against kKeptShapesMost or the memory share. Before, a re-rank
    // walking back over kKeptShapesMost + 1 shapes let the least recent go at its first request, and the walk
    // needs that one last.
    keep_current_shape();
    std::optional<KeptShape> again = take_kept_shape(m);
    let_kept_shapes_go();
    if (again) return prepare_again(m, std::move(*again), start);
    // Where the preparation's time goes, logged per shape (inputs filled on the host, cuBLAS's reference run).
    PrepareSteps steps;
    auto mark = std::chrono::steady_clock::now();
    problem_ = new_problem(m);
    steps.inputs_s = seconds_since(mark);
    mark = std::chrono::steady_clock::now();
    // The comparison kernel is compiled here, under prepare's limit, not within a candidate's verification limit.
    (void)session_->device_compare();
    steps.compare_s = seconds_since(mark);
    PrepareShapeReply out = time_references(m, steps);
    phases_.preparing_s += seconds_since(start);
    log(
        fmt::format("prepared {} in {:.2f} s: inputs {:.2f} s, comparison kernel {:.2f} s, settling {:.2f} s, "
                    "cuBLAS {:.2f} s{}",
                    m.shape.str(), seconds_since(start), steps.inputs_s, steps.compare_s, out.settled_ms / 1e3,
                    steps.cublas_s, m.cublaslt ? fmt::format(", cuBLASLt {:.2f} s", steps.cublaslt_s) : ""));
    ++phases_.shapes;
    reply(out);
    return std::nullopt;
  }

  // A shape prepared earlier with the request's seed, its inputs and cuBLASLt's choice kept: it settles (as after
  // any idle gap) and cuBLAS is timed again; cuBLASLt's reference is the one its search gave.
  std::optional<int> prepare_again(const PrepareShapeRequest& m, KeptShape kept,
                                   std::chrono::steady_clock::time_point start) {
    problem_ = std::move(kept.problem);
    current_cublaslt_ = kept.cublaslt;
    std::optional<CublasLtReference> lt;
    if (m.cublaslt) {
      lt = kept.cublaslt;
      cublaslt_for_shape_ = lt->timing && cublaslt_ && cublaslt_->has_best(m.problem());
    }
    const double settled_ms = problem_->settle_with_cublas(after_fill_settle_ms(m));
    const auto mark = std::chrono::steady_clock::now();
    CublasReference ref = time_cublas_reference(m);
    phases_.preparing_s += seconds_since(start);
    log(fmt::format("prepared {} again in {:.2f} s: inputs{} kept, settling {:.2f} s, cuBLAS {:.2f} s", m.shape.str(),
                    seconds_since(start), m.cublaslt ? " and cuBLASLt's choice" : "", settled_ms / 1e3,
                    seconds_since(mark)));
    ++phases_.shapes;
    reply(PrepareShapeReply{ref, std::move(lt), settled_ms, true});
    return std::nullopt;
  }

  // The shape prepared until now joins the kept ones, as the most recent.
  void keep_current_shape() {
    if (!problem_) return;
    kept_.push_back({std::move(problem_), std::move(current_cublaslt_)});
    current_cublaslt_.reset();
  }

  // The least recently prepared kept shapes leave while the kept ones hold more than kKeptShapesMemoryShare of the
  // device's memory or number more than kKeptShapesMost (all of them when the memory's size cannot be read).
  void let_kept_shapes_go() {
    const std::optional<DeviceMemory> memory = device_memory();
    const double limit = memory ? kKeptShapesMemoryShare * static_cast<double>(memory->total_bytes) : 0;
    std::vector<std::size_t> bytes;
    for (const auto& k : kept_) bytes.push_back(k.problem->device_bytes());
    let_go(kept_shapes_to_let_go(bytes, limit, kKeptShapesMost));
  }

  // The `n` least recently prepared kept shapes leave, and cuBLASLt forgets their algorithms.
  void let_go(std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
      if (cublaslt_) cublaslt_->forget(kept_[i].problem->problem());
    kept_.erase(kept_.begin(), kept_.begin() + static_cast<std::ptrdiff_t>(n));
  }

  // The request's problem, allocated and filled; when the device's memory is short, again after the kept shapes
  // are let go.
  std::unique_ptr<ProblemContext> new_problem(const PrepareShapeRequest& m) {
    try {
      return std::make_unique<ProblemContext>(*session_, m.problem(), m.seed, m.alpha, m.beta);
    } catch (const CudaError& e) {
      // Only a shortage of memory is what letting the kept shapes go can cure.
      if (e.code() != static_cast<int>(cudaErrorMemoryAllocation) || kept_.empty() || !context_healthy()) throw;
      log(fmt::format("device memory short for {}: letting {} kept shape(s) go", m.shape.str(), kept_.size()));
      let_go(kept_.size());
      return std::make_unique<ProblemContext>(*session_, m.problem(), m.seed, m.alpha, m.beta);
    }
  }

  // The kept shape the request prepares again (same shape and seed; cuBLASLt's choice kept when it asks for
  // cuBLASLt), taken out of the kept ones; nullopt when there is none. A kept problem of the shape that does not
  // serve is let go: the shape is prepared anew, and each shape is kept once.
  std::optional<KeptShape> take_kept_shape(const PrepareShapeRequest& m) {
    const auto it =
        std::find_if(kept_.begin(), kept_.end(), [&](const auto& k) { return k.problem->problem() == m.problem(); });
    if (it == kept_.end()) return std::nullopt;
    KeptShape k = std::move(*it);
    kept_.erase(it);
    if (k.problem->seed() != m.seed || k.problem->alpha() != m.alpha || k.problem->beta() != m.beta ||
        (m.cublaslt && !k.cublaslt))
      return std::nullopt;
    return k;
  }

  // The prepared shape's references, each after sustained load: settling, cuBLASLt's search when asked (and
  // settling again), cuBLAS. Fills in the steps' times.
  PrepareShapeReply time_references(const PrepareShapeRequest& m, PrepareSteps& steps) {
    // The inputs were filled on the host, so the card sat idle: it settles at least as long as after any idle gap.
    double settled_ms = problem_->settle_with_cublas(after_fill_settle_ms(m));
    std::optional<CublasLtReference> lt;
    if (m.cublaslt) {
      const auto lt_start = std::chrono::steady_clock::now();
      lt = time_cublaslt(m);
      cublaslt_for_shape_ = lt->timing.has_value();
      current_cublaslt_ = lt;
      steps.cublaslt_s = seconds_since(lt_start);
      // Its verifications and screens leave the card idle between short bursts, so the clock climbs above what
      // sustained load holds and the next kernel would be timed fast (docs/findings.md, "cuBLASLt's search heats
      // the next config"): cuBLAS and the first candidate come after sustained load again (settle_ms when the hold
      // is off).
      settled_ms += problem_->settle_with_cublas(after_search_settle_ms(m));
    }
    const auto mark = std::chrono::steady_clock::now();
    CublasReference ref = time_cublas_reference(m);
    steps.cublas_s = seconds_since(mark);
    return PrepareShapeReply{ref, std::move(lt), settled_ms};
  }

  // cuBLAS timed on the prepared problem, with the SM clock read after it; its median is the shape's yardstick
  // for the measurements that follow.
  CublasReference time_cublas_reference(const PrepareShapeRequest& m) {
    CublasReference ref;
    ref.shape = m.shape;
    ref.seed = m.seed;
    ref.timing = problem_->time_cublas(m.warmup, m.runs, m.iters, m.l2, m.batches);
    ref.sm_clock_mhz = read_sm_clock_mhz(session_->info().pci_bus_id, session_->info().ordinal);
    cublas_median_ms_ = ref.timing.median_ms;
    return ref;
  }

  // cuBLASLt's reference on the prepared problem. Its failures are recorded, not raised: the sweep needs
  // cuBLAS only. A failure that left the context unusable is raised, since nothing can be measured after it.
  CublasLtReference time_cublaslt(const PrepareShapeRequest& m) {
    CublasLtReference lt;
    try {
      if (!cublaslt_) cublaslt_ = std::make_unique<CublasLtSession>(*session_);
      return cublaslt_->best_of_heuristics(*problem_, m.warmup, m.runs, m.iters, m.atol, m.rtol, m.batches);
    } catch (const Error& e) {
      if (!context_healthy()) throw;
      lt.message = fmt::format("cuBLASLt failed: {}", e.what());
      log(lt.message);
    }
    return lt;
  }

  static std::optional<std::string> bad_protocol(int warmup, int runs, int iters) {
    if (warmup >= 0 && runs >= 1 && iters >= 1) return std::nullopt;
    return fmt::format("bad timing protocol: warmup {}, runs {}, iters {}", warmup, runs, iters);
  }

  static std::optional<std::string> bad_tolerances(double atol, double rtol) {
    if (atol >= 0 && rtol >= 0) return std::nullopt;
    return fmt::format("bad tolerances: atol {}, rtol {}", atol, rtol);
  }

  static std::optional<std::string> bad_sampling(const MeasureRequest& m) {
    if (const auto& n = m.noise_stop; n && (!(n->target > 0) || n->min_samples < 1 || !(n->max_time_s > 0)))
      return fmt::format("bad noise target: {} with at least {} samples in {} s", n->target, n->min_samples,
                         n->max_time_s);
    if (const auto& r = m.screen; r && (!(r->threshold > 0) || r->launches < 1))
      return fmt::format("bad screen: threshold {}, {} launches", r->threshold, r->launches);
    if (m.l2 == L2Mode::cold && m.batches == BatchEnqueue::graph)
      return std::string("graph batches need warm L2: with cold L2 every launch is timed alone after a flush");
    return std::nullopt;
  }

  // The unloading of the module (CandidateRun's destructor) counts as loading.
  std::optional<int> measure(const MeasureRequest& m) {
    const auto entered = std::chrono::steady_clock::now();
    const double before = phases_.total_s();
    std::optional<int> code = measure_candidate(m);
    phases_.setup_s += std::max(0.0, seconds_since(entered) - (phases_.total_s() - before));
    return code;
  }

  std::optional<int> measure_candidate(const MeasureRequest& m) {
    if (!problem_) return fail(ErrorKind::bad_request, 0, "measure before prepare_shape", 0);
    if (auto why = bad_protocol(m.warmup, m.runs, m.iters)) return fail(ErrorKind::bad_request, 0, *why, 0);
    if (auto why = bad_tolerances(m.atol, m.rtol)) return fail(ErrorKind::bad_request, 0, *why, 0);
    if (auto why = bad_sampling(m)) return fail(ErrorKind::bad_request, 0, *why, 0);
    const double idle_on_arrival_ms = idle_ms();
    ArgsBuilder args = m.family.empty() ? standard_args() : family_args(family(m.family), m.params);
    WorkspaceSizer workspace = m.family.empty() ? WorkspaceSizer{} : family_workspace(family(m.family), m.params);
    CandidateRun run(*session_, *problem_,
                     {m.cubin, m.lowered_name, m.geometry, std::move(args), std::move(workspace)});

    auto mark = std::chrono::steady_clock::now();
    const VerifyOutcome v = run.verify(m.atol, m.rtol);
    phases_.setup_s += v.setup_s;
    phases_.verifying_s += seconds_since(mark) - v.setup_s;
    // After the verification, so that nothing but the verified reply comes between the settling and the timing.
    const double settled_ms = v.status == Status::ok ? settle_if_idle(idle_on_arrival_ms) : 0;
    mark = std::chrono::steady_clock::now();
    reply(VerifiedReply{v.status, v.error, v.first_launch_ms, v.message, settled_ms});
    phases_.replying_s += seconds_since(mark);
    const TimingPlan plan{m.warmup, m.runs, m.iters, m.l2, m.noise_stop, m.batches};
    mark = std::chrono::steady_clock::now();
    const Measurement result = v.status == Status::ok ? run.time(plan, m.pair_with_cublas, m.screen,
                                                                 screen_baseline_.against(m.screen_against_ms))
                                                      : measurement_from(v);
    // A screen joins the baseline when it ended as asked: the measurement stood (ok or screened out) and its
    // batches were enqueued the way the request said (a kernel whose capture fell back to host calls is not
    // compared with graph replays).
    if (const auto screen_ms = run.last_screen_ms();
        screen_ms && (result.status == Status::ok || result.status == Status::screened_out) && result.timing &&
        result.timing->batches == m.batches)
      screen_baseline_.saw(*screen_ms);
    phases_.timing_s += seconds_since(mark);
    mark = std::chrono::steady_clock::now();
    reply(ResultReply{result});
    phases_.replying_s += seconds_since(mark);
    ++phases_.measurements;
    if (run.context_lost()) {
      log(fmt::format("CUDA context lost ({}); exiting", result.message));
      return kWorkerExitContextLost;
    }
    return std::nullopt;
  }

  std::optional<int> interleaved(const TimeInterleavedRequest& m) {
    if (!problem_) return fail(ErrorKind::bad_request, 0, "time_interleaved before prepare_shape", 0);
    if (m.kernels.empty()) return fail(ErrorKind::bad_request, 0, "time_interleaved without kernels", 0);
    if (auto why = bad_protocol(m.warmup, m.rounds, m.iters)) return fail(ErrorKind::bad_request, 0, *why, 0);
    if (auto why = bad_tolerances(m.atol, m.rtol)) return fail(ErrorKind::bad_request, 0, *why, 0);
    if (m.settle_ms < 0 || m.settle_ms > kMaxSettleMs)
      return fail(ErrorKind::bad_request, 0, fmt::format("settle_ms {} outside 0-{}", m.settle_ms, kMaxSettleMs), 0);
    const auto mark = std::chrono::steady_clock::now();
    const InterleavedReply result =
        time_interleaved(*session_, *problem_, m, cublaslt_for_shape_ ? cublaslt_.get() : nullptr);
    reply(result);
    const double settling_s = result.settled_ms / 1e3;
    phases_.settling_s += settling_s;
    phases_.reranking_s += std::max(0.0, seconds_since(mark) - settling_s);
    ++phases_.reranks;
    if (result.context_lost) {
      log("CUDA context lost during time_interleaved; exiting");
      return kWorkerExitContextLost;
    }
    return std::nullopt;
  }

  int in_;
  int out_;
  FrameReader reader_;
  std::unique_ptr<DeviceSession> session_;
  std::unique_ptr<ProblemContext> problem_;
  std::optional<CublasLtReference> current_cublaslt_;  // the prepared shape's cuBLASLt search, kept with it
  std::vector<KeptShape> kept_;                        // shapes prepared before it, the least recent first
  std::unique_ptr<CublasLtSession> cublaslt_;          // made at the first prepare_shape that asks for cuBLASLt
  ScreenBaseline screen_baseline_;                     // the prepared shape's fastest screen, for the next screens
  bool cublaslt_for_shape_ = false;  // the prepared shape has a cuBLASLt algorithm (time_interleaved runs it)
  ClockHold hold_;                   // the prepared shape's (PrepareShapeRequest::hold)
  bool keep_warm_failed_ = false;    // a keep-warm launch failed on this shape: no more of them
  double cublas_median_ms_ = 0;      // the prepared shape's cuBLAS reference (ms): sizes keep-warm slices
  // When the last request was handled, and when keeping warm last ran: the card is idle since the later of them.
  std::chrono::steady_clock::time_point last_busy_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_kept_warm_{};
  WorkerPhases phases_;
};

}  // namespace

int serve(int in_fd, int out_fd) noexcept {
  try {
    Server server(in_fd, out_fd);
    return server.run();
  } catch (const std::exception& e) {
    log(fmt::format("stopping: {}", e.what()));
  } catch (...) {
    log("stopping: unknown exception");
  }
  return kWorkerExitProtocol;
}

}  // namespace mpgemm
