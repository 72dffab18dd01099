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

}  // namespace

InterleavedReply time_interleaved(DeviceSession& session, ProblemContext& problem,
                                  const TimeInterleavedRequest& request, CublasLtSession* cublaslt) {
  const auto n = request.kernels.size();
  InterleavedReply out;
  out.kernels.resize(n);
  const std::size_t cublas_entry = n;
  const std::size_t cublaslt_entry = n + 1;
  const bool with_cublaslt = request.cublaslt && cublaslt != nullptr && cublaslt->has_best(problem.shape());
  if (!request.cublaslt)
    out.cublaslt_message = "not asked for";
  else if (!with_cublaslt)
    out.cublaslt_message = "no cuBLASLt algorithm for this shape (prepared without cuBLASLt, or none verified)";
  std::vector<bool> active(with_cublaslt ? n + 2 : n + 1, true);
  std::vector<std::unique_ptr<CandidateRun>> runs;
  runs.reserve(n);
  const auto drop = [&](std::size_t i, Status status, std::string message, bool context_lost) {
    out.kernels[i].status = status;
    out.kernels[i].message = std::move(message);
    active[i] = false;
    if (context_lost) out.context_lost = true;
  };

  // Verification, one kernel after the other (each poisons C, launches once, compares with cuBLAS).
  for (std::size_t i = 0; i < n && !out.context_lost; ++i) {
    const InterleavedKernel& k = request.kernels[i];
    ArgsBuilder args = k.family.empty() ? standard_args() : family_args(family(k.family), k.params);
    runs.push_back(std::make_unique<CandidateRun>(
        session, problem, CandidateKernel{k.cubin, k.lowered_name, k.geometry, std::move(args)}));
    const VerifyOutcome v = runs.back()->verify(request.atol, request.rtol);
    out.kernels[i].error = v.error;
    if (v.status != Status::ok) drop(i, v.status, v.message, v.context_lost);
  }

  // Warm-up of every entry still in, then the rounds.
  for (std::size_t i = 0; i < runs.size() && !out.context_lost; ++i) {
    if (!active[i] || request.warmup == 0) continue;
    const auto b = runs[i]->warm_up(request.warmup);
    if (b.status != Status::ok) drop(i, b.status, b.message, runs[i]->context_lost());
  }
  // cuBLASLt's failures drop it, as a kernel's do: it is a second reference, never a reason to lose the rounds.
  const auto cublaslt_failed = [&](const CublasError& e) {
    out.cublaslt_message = fmt::format("cuBLASLt dropped out: {}", e.what());
    active[cublaslt_entry] = false;
  };
  if (!out.context_lost) {
    for (int w = 0; w < request.warmup; ++w) problem.run_cublas();
    if (with_cublaslt) {
      try {
        for (int w = 0; w < request.warmup; ++w) cublaslt->run_best(problem);
      } catch (const CublasError& e) {
        cublaslt_failed(e);
      }
    }
    MPGEMM_CUDA(cudaStreamSynchronize(session.stream()));
  }
  // Each entry's batch, enqueued one way for all: with graphs, cuBLAS is captured first (when it cannot be, every
  // entry's batches are enqueued from the host), then cuBLASLt (dropped when it cannot be captured, as when it
  // fails) and every kernel still in.
  BatchEnqueue how = request.graphs ? BatchEnqueue::graph : BatchEnqueue::stream;
  std::optional<WarmBatch> cublas_batch, cublaslt_batch;
  if (!out.context_lost) {
    const auto run_cublas = [&] { problem.run_cublas(); };
    if (how == BatchEnqueue::graph) {
      try {
        cublas_batch.emplace(session.stream(), request.iters, run_cublas, how);
      } catch (const std::exception& e) {  // CudaError or CublasError: the capture, not the GPU, failed
        out.graphs_message =
            fmt::format("cuBLAS could not be captured as a graph ({}): batches enqueued from the host", e.what());
        how = BatchEnqueue::stream;
      }
    }
    if (!cublas_batch) cublas_batch.emplace(session.stream(), request.iters, run_cublas, how);
    if (with_cublaslt && active[cublaslt_entry]) {
      try {
        cublaslt_batch.emplace(
            session.stream(), request.iters, [&] { cublaslt->run_best(problem); }, how);
      } catch (const std::exception& e) {
        out.cublaslt_message =
            fmt::format("cuBLASLt dropped out: {}{}",
                        how == BatchEnqueue::graph ? "it could not be captured as a graph: " : "", e.what());
        active[cublaslt_entry] = false;
      }
    }
    for (std::size_t i = 0; i < runs.size() && !out.context_lost; ++i) {
      if (!active[i]) continue;
      const auto b = runs[i]->prepare_batch(request.iters, how);
      if (b.status != Status::ok) drop(i, b.status, b.message, runs[i]->context_lost());
    }
  }
  out.graphs = how == BatchEnqueue::graph;

  // One round: every entry still in, one batch each, in the round's order; kept as samples when `timed`.
  const auto run_round = [&](int r, bool timed) {
    int position = 0;
    for (const int e : interleaved_order(r, active)) {
      const auto i = static_cast<std::size_t>(e);
      if (i == cublas_entry) {
        const double ms = cublas_batch->time();
        if (timed) out.cublas.push_back({r, position++, ms});
        continue;
      }
      if (i == cublaslt_entry) {
        try {
          const double ms = cublaslt_batch->time();
          if (timed) out.cublaslt.push_back({r, position++, ms});
        } catch (const CublasError& failure) {
          cublaslt_failed(failure);
        }
        continue;
      }
      const auto b = runs[i]->time_prepared_batch();
      if (b.status != Status::ok) {
        drop(i, b.status, b.message, runs[i]->context_lost());
        if (out.context_lost) return;
        continue;
      }
      if (timed) out.kernels[i].samples.push_back({r, position++, b.ms});
    }
  };
  // Untimed rounds first, until settle_ms of wall time has passed (at least one round when asked for).
  if (request.settle_ms > 0 && !out.context_lost) {
    const auto start = std::chrono::steady_clock::now();
    const auto elapsed_ms = [&] {
      return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    };
    for (int r = 0; !out.context_lost; ++r) {
      run_round(-1 - r, false);  // untimed rounds count down from -1 (interleaved_order)
      ++out.settle_rounds;
      if (elapsed_ms() >= request.settle_ms) break;
    }
    out.settled_ms = elapsed_ms();
  }
  for (int r = 0; r < request.rounds && !out.context_lost; ++r) run_round(r, true);

  for (auto& k : out.kernels) {
    k.timing = stats_of(k.samples, request.warmup, request.iters, how);
    // Still ok but never timed: the rounds stopped before it (another kernel lost the context).
    if (k.status == Status::ok && k.samples.empty())
      k.message = "not timed: another kernel left the CUDA context unusable before its first batch";
  }
  out.cublas_timing = stats_of(out.cublas, request.warmup, request.iters, how);
  out.cublaslt_timing = stats_of(out.cublaslt, request.warmup, request.iters, how);
  if (with_cublaslt && out.cublaslt.empty() && out.cublaslt_message.empty())
    out.cublaslt_message = "not timed: another kernel left the CUDA context unusable before its first batch";
  if (!out.context_lost) out.sm_clock_mhz = read_sm_clock_mhz(session.info().pci_bus_id, session.info().ordinal);
  return out;
}

}  // namespace mpgemm
