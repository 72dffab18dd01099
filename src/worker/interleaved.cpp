#include "worker/interleaved.hpp"

#include <chrono>
#include <memory>

#include <fmt/format.h>

#include "codegen/family.hpp"
#include "device/candidate.hpp"
#include "device/cuda_check.hpp"
#include "device/sm_clock.hpp"
#include "device/timing.hpp"
#include "measure/stats.hpp"

namespace mpgemm {

std::vector<int> interleaved_order(int round, const std::vector<bool>& active) {
  const int entries = static_cast<int>(active.size());
  std::vector<int> order;
  if (entries == 0) return order;
  // Williams' sequence 0, 1, E-1, 2, E-2, ... shifted by the round; every other block of E rounds reversed (an odd E
  // needs both blocks for every ordered pair).
  const int period = 2 * entries;
  const int r = ((round % period) + period) % period;  // negative rounds (the untimed ones) too
  const bool reversed = r >= entries;
  const int shift = r % entries;
  for (int i = 0; i < entries; ++i) {
    const int k = reversed ? entries - 1 - i : i;
    const int base = k == 0 ? 0 : (k % 2 == 1 ? (k + 1) / 2 : entries - k / 2);
    const int e = (base + shift) % entries;
    if (active[static_cast<std::size_t>(e)]) order.push_back(e);
  }
  return order;
}

namespace {

std::optional<TimingStats> stats_of(const std::vector<RoundSample>& samples, int warmup, int iters,
                                    BatchEnqueue batches) {
  if (samples.empty()) return std::nullopt;
  std::vector<double> ms;
  ms.reserve(samples.size());
  for (const auto& s : samples) ms.push_back(s.ms);
  TimingStats t = summarize(std::move(ms), warmup, static_cast<int>(samples.size()), iters);
  t.batches = batches;
  return t;
}

constexpr const char* kNotTimedMessage =
    "not timed: another kernel left the CUDA context unusable before its first batch";

// One time_interleaved request, phase by phase: verify, warm up, prepare the batches, settle, time the rounds,
// summarize. Entries 0..n-1 are the kernels, n is cuBLAS, n + 1 cuBLASLt when it is in the rounds
// (interleaved_order). Each phase stops at a kernel that leaves the context unusable (reply.context_lost).
class InterleavedRounds {
 public:
  InterleavedRounds(DeviceSession& session, ProblemContext& problem, const TimeInterleavedRequest& request,
                    CublasLtSession* cublaslt)
      : session_(session),
        problem_(problem),
        request_(request),
        cublaslt_(cublaslt),
        n_(request.kernels.size()),
        with_cublaslt_(request.cublaslt && cublaslt != nullptr && cublaslt->has_best(problem.problem())),
        active_(with_cublaslt_ ? n_ + 2 : n_ + 1, true) {
    out_.kernels.resize(n_);
    if (!request.cublaslt)
      out_.cublaslt_message = "not asked for";
    else if (!with_cublaslt_)
      out_.cublaslt_message = "no cuBLASLt algorithm for this shape (prepared without cuBLASLt, or none verified)";
    runs_.reserve(n_);
  }

  // Verification, one kernel after the other (each poisons C, launches once, compares with cuBLAS).
  void verify() {
    for (std::size_t i = 0; i < n_ && !out_.context_lost; ++i) {
      const InterleavedKernel& k = request_.kernels[i];
      ArgsBuilder args = k.family.empty() ? standard_args() : family_args(family(k.family), k.params);
      WorkspaceSizer workspace = k.family.empty() ? WorkspaceSizer{} : family_workspace(family(k.family), k.params);
      runs_.push_back(std::make_unique<CandidateRun>(
          session_, problem_,
          CandidateKernel{k.cubin, k.lowered_name, k.geometry, std::move(args), std::move(workspace)}));
      const VerifyOutcome v = runs_.back()->verify(request_.atol, request_.rtol);
      out_.kernels[i].error = v.error;
      if (v.status != Status::ok) drop(i, v.status, v.message, v.context_lost);
    }
  }

  // `warmup` launches of every entry still in.
  void warm_up() {
    for (std::size_t i = 0; i < runs_.size() && !out_.context_lost; ++i) {
      if (!active_[i] || request_.warmup == 0) continue;
      const auto b = runs_[i]->warm_up(request_.warmup);
      if (b.status != Status::ok) drop(i, b.status, b.message, runs_[i]->context_lost());
    }
    if (out_.context_lost) return;
    for (int w = 0; w < request_.warmup; ++w) problem_.run_cublas();
    if (with_cublaslt_) {
      try {
        for (int w = 0; w < request_.warmup; ++w) cublaslt_->run_best(problem_);
      } catch (const CublasError& e) {
        cublaslt_failed(e);
      }
    }
    MPGEMM_CUDA(cudaStreamSynchronize(session_.stream()));
  }

  // Each entry's batch, enqueued one way for all: with graphs, cuBLAS is captured first (when it cannot be, every
  // entry's batches are enqueued from the host), then cuBLASLt (dropped when it cannot be captured, as when it
  // fails) and every kernel still in.
  void prepare_batches() {
    how_ = request_.graphs ? BatchEnqueue::graph : BatchEnqueue::stream;
    if (!out_.context_lost) {
      const auto run_cublas = [this] { problem_.run_cublas(); };
      if (how_ == BatchEnqueue::graph) {
        try {
          cublas_batch_.emplace(session_.stream(), request_.iters, run_cublas, how_);
        } catch (const std::exception& e) {  // CudaError or CublasError: the capture, not the GPU, failed
          out_.graphs_message =
              fmt::format("cuBLAS could not be captured as a graph ({}): batches enqueued from the host", e.what());
          how_ = BatchEnqueue::stream;
        }
      }
      if (!cublas_batch_) cublas_batch_.emplace(session_.stream(), request_.iters, run_cublas, how_);
      if (with_cublaslt_ && active_[cublaslt_entry()]) {
        try {
          cublaslt_batch_.emplace(
              session_.stream(), request_.iters, [this] { cublaslt_->run_best(problem_); }, how_);
        } catch (const std::exception& e) {
          out_.cublaslt_message =
              fmt::format("cuBLASLt dropped out: {}{}",
                          how_ == BatchEnqueue::graph ? "it could not be captured as a graph: " : "", e.what());
          active_[cublaslt_entry()] = false;
        }
      }
      for (std::size_t i = 0; i < runs_.size() && !out_.context_lost; ++i) {
        if (!active_[i]) continue;
        const auto b = runs_[i]->prepare_batch(request_.iters, how_);
        if (b.status != Status::ok) drop(i, b.status, b.message, runs_[i]->context_lost());
      }
    }
    out_.graphs = how_ == BatchEnqueue::graph;
  }

  // Untimed rounds first, until settle_ms of wall time has passed (at least one round when asked for).
  void settle() {
    if (request_.settle_ms <= 0 || out_.context_lost) return;
    const auto start = std::chrono::steady_clock::now();
    const auto elapsed_ms = [&] {
      return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    };
    for (int r = 0; !out_.context_lost; ++r) {
      run_round(-1 - r, false);  // untimed rounds count down from -1 (interleaved_order)
      ++out_.settle_rounds;
      if (elapsed_ms() >= request_.settle_ms) break;
    }
    out_.settled_ms = elapsed_ms();
  }

  void time_rounds() {
    for (int r = 0; r < request_.rounds && !out_.context_lost; ++r) run_round(r, true);
  }

  // Every entry's timing over its samples, the messages of those the rounds never reached, and the clock.
  InterleavedReply finish() {
    for (auto& k : out_.kernels) {
      k.timing = stats_of(k.samples, request_.warmup, request_.iters, how_);
      // Still ok but never timed: the rounds stopped before it (another kernel lost the context).
      if (k.status == Status::ok && k.samples.empty()) k.message = kNotTimedMessage;
    }
    out_.cublas_timing = stats_of(out_.cublas, request_.warmup, request_.iters, how_);
    out_.cublaslt_timing = stats_of(out_.cublaslt, request_.warmup, request_.iters, how_);
    if (with_cublaslt_ && out_.cublaslt.empty() && out_.cublaslt_message.empty())
      out_.cublaslt_message = kNotTimedMessage;
    if (!out_.context_lost) out_.sm_clock_mhz = read_sm_clock_mhz(session_.info().pci_bus_id, session_.info().ordinal);
    return std::move(out_);
  }

 private:
  std::size_t cublas_entry() const { return n_; }
  std::size_t cublaslt_entry() const { return n_ + 1; }

  void drop(std::size_t i, Status status, std::string message, bool context_lost) {
    out_.kernels[i].status = status;
    out_.kernels[i].message = std::move(message);
    active_[i] = false;
    if (context_lost) out_.context_lost = true;
  }

  // cuBLASLt's failures drop it, as a kernel's do: it is a second reference, never a reason to lose the rounds.
  void cublaslt_failed(const CublasError& e) {
    out_.cublaslt_message = fmt::format("cuBLASLt dropped out: {}", e.what());
    active_[cublaslt_entry()] = false;
  }

  // One round: every entry still in, one batch each, in the round's order; kept as samples when `timed`.
  void run_round(int r, bool timed) {
    int position = 0;
    for (const int e : interleaved_order(r, active_)) {
      const auto i = static_cast<std::size_t>(e);
      if (i == cublas_entry()) {
        const double ms = cublas_batch_->time();
        if (timed) out_.cublas.push_back({r, position++, ms});
        continue;
      }
      if (i == cublaslt_entry()) {
        try {
          const double ms = cublaslt_batch_->time();
          if (timed) out_.cublaslt.push_back({r, position++, ms});
        } catch (const CublasError& failure) {
          cublaslt_failed(failure);
        }
        continue;
      }
      const auto b = runs_[i]->time_prepared_batch();
      if (b.status != Status::ok) {
        drop(i, b.status, b.message, runs_[i]->context_lost());
        if (out_.context_lost) return;
        continue;
      }
      if (timed) out_.kernels[i].samples.push_back({r, position++, b.ms});
    }
  }

  DeviceSession& session_;
  ProblemContext& problem_;
  const TimeInterleavedRequest& request_;
  CublasLtSession* const cublaslt_;
  const std::size_t n_;       // kernels
  const bool with_cublaslt_;  // cuBLASLt joins the rounds (it may drop out of them)
  InterleavedReply out_;
  std::vector<bool> active_;  // per entry: still in
  std::vector<std::unique_ptr<CandidateRun>> runs_;
  BatchEnqueue how_ = BatchEnqueue::stream;
  std::optional<WarmBatch> cublas_batch_, cublaslt_batch_;
};

}  // namespace

InterleavedReply time_interleaved(DeviceSession& session, ProblemContext& problem,
                                  const TimeInterleavedRequest& request, CublasLtSession* cublaslt) {
  InterleavedRounds rounds(session, problem, request, cublaslt);
  rounds.verify();
  rounds.warm_up();
  rounds.prepare_batches();
  rounds.settle();
  rounds.time_rounds();
  return rounds.finish();
}

}  // namespace mpgemm
