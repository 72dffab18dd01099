#include "device/cublaslt.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "common/error.hpp"
#include "device/cuda_check.hpp"
#include "device/sm_clock.hpp"
#include "device/timing.hpp"
#include "measure/stats.hpp"

namespace mpgemm {

namespace {

// Owners of cuBLASLt's descriptors; destruction failures are ignored (nothing to do about them).
struct DescDeleter {
  void operator()(cublasLtMatmulDescOpaque_t* d) const { (void)cublasLtMatmulDescDestroy(d); }
  void operator()(cublasLtMatrixLayoutOpaque_t* l) const { (void)cublasLtMatrixLayoutDestroy(l); }
  void operator()(cublasLtMatmulPreferenceOpaque_t* p) const { (void)cublasLtMatmulPreferenceDestroy(p); }
};
using MatmulDesc = std::unique_ptr<cublasLtMatmulDescOpaque_t, DescDeleter>;
using Layout = std::unique_ptr<cublasLtMatrixLayoutOpaque_t, DescDeleter>;
using Preference = std::unique_ptr<cublasLtMatmulPreferenceOpaque_t, DescDeleter>;

Layout make_layout(cudaDataType_t type, std::int64_t rows, std::int64_t cols, std::int64_t ld) {
  cublasLtMatrixLayout_t layout = nullptr;
  MPGEMM_CUBLAS(cublasLtMatrixLayoutCreate(&layout, type, static_cast<std::uint64_t>(rows),
                                           static_cast<std::uint64_t>(cols), ld));
  return Layout(layout);
}

// One algorithm attribute read as the type cuBLASLt stores it; `fallback` when it cannot be read.
template <class T>
int config_attribute(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attr, int fallback) {
  T value{};
  std::size_t written = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(&algo, attr, &value, sizeof value, &written) != CUBLAS_STATUS_SUCCESS ||
      written != sizeof value)
    return fallback;
  return static_cast<int>(value);
}

// cuBLASLt's epilogue computing `e` after its GEMM: BIAS, RELU_BIAS, GELU_BIAS (GELU's tanh form); nullopt for none
// and for GELU's erf form, which it does not have (cublaslt_gap says so).
std::optional<cublasLtEpilogue_t> cublaslt_epilogue(Epilogue e) {
  switch (e) {
    case Epilogue::bias:
      return CUBLASLT_EPILOGUE_BIAS;
    case Epilogue::bias_relu:
      return CUBLASLT_EPILOGUE_RELU_BIAS;
    case Epilogue::bias_gelu_tanh:
      return CUBLASLT_EPILOGUE_GELU_BIAS;
    case Epilogue::none:
    case Epilogue::bias_gelu:
      return std::nullopt;
  }
  return std::nullopt;
}

CublasLtAlgo describe_algo(const cublasLtMatmulHeuristicResult_t& r) {
  CublasLtAlgo a;
  a.algo_id = config_attribute<std::int32_t>(r.algo, CUBLASLT_ALGO_CONFIG_ID, -1);
  a.tile_id = config_attribute<std::uint32_t>(r.algo, CUBLASLT_ALGO_CONFIG_TILE_ID, 0);
  a.stages_id = config_attribute<std::uint32_t>(r.algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, 0);
  a.splitk = config_attribute<std::int32_t>(r.algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, 1);
  a.reduction_scheme = config_attribute<std::uint32_t>(r.algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, 0);
  a.swizzle = config_attribute<std::uint32_t>(r.algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, 0);
  a.custom_option = config_attribute<std::uint32_t>(r.algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, 0);
  a.inner_shape_id = config_attribute<std::uint16_t>(r.algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, 0);
  a.cluster_shape_id = config_attribute<std::uint16_t>(r.algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, 0);
  a.workspace_bytes = static_cast<std::int64_t>(r.workspaceSize);
  a.waves = static_cast<double>(r.wavesCount);
  return a;
}

std::string join(const std::vector<std::string>& parts) {
  std::string text;
  for (const auto& p : parts) text += (text.empty() ? "" : "; ") + p;
  return text;
}

std::string heuristic_name(int i, const CublasLtAlgo& algo) {
  return fmt::format("heuristic {} (algo {} tile {})", i + 1, algo.algo_id, algo.tile_id);
}

}  // namespace

// One verified algorithm and its screen.
struct CublasLtSession::Screened {
  std::size_t index;  // in the heuristic's results
  CublasLtAlgo algo;
  ErrorStats error;
  double screen_ms;
};

// The heuristic's algorithms verified and screened (fastest screen first), and why the others were left out.
struct CublasLtSession::Screening {
  std::vector<Screened> passed;
  std::vector<std::string> rejected;
};

// What best_of_heuristics says besides the timing: how many were timed in full, and what was left out and why.
std::string CublasLtSession::summary(const CublasLtReference& out, int returned, const Screening& screening,
                                     int timed) {
  if (!out.timing)
    return screening.passed.empty()
               ? fmt::format("none of the {} algorithms verified: {}", returned, join(screening.rejected))
               : fmt::format("none of the {} verified algorithms could be timed: {}", screening.passed.size(),
                             join(screening.rejected));
  std::string message;
  if (timed < out.heuristics_valid)
    message = fmt::format("{} of {} timed in full, the others' screens over {:g}x the fastest", timed,
                          out.heuristics_valid, kCublasLtScreenBand);
  if (!screening.rejected.empty())
    message += fmt::format("{}left out: {}", message.empty() ? "" : "; ", join(screening.rejected));
  return message;
}

struct CublasLtSession::Plan {
  GemmProblem problem;
  MatmulDesc op;
  Layout b;                              // cuBLASLt's A: our B
  Layout a;                              // cuBLASLt's B: our A
  Layout c;                              // C and D
  cublasLtMatmulAlgo_t algo{};           // the chosen algorithm, once one won
  std::size_t algo_workspace_bytes = 0;  // the workspace it asked for (bytes)
};

std::optional<std::string> cublaslt_gap(const ProblemKind& kind) {
  if (kind.has_bias() && !cublaslt_epilogue(kind.epilogue))
    return fmt::format(
        "cuBLASLt has no {} epilogue (its GELU_BIAS is GELU's tanh form), so it is not timed for {}: the kernels are "
        "verified against cuBLAS's FP32 GEMM with the epilogue applied on the host",
        to_string(kind.epilogue), kind.name());
  return std::nullopt;
}

CublasLtSession::CublasLtSession(DeviceSession& session) : session_(session) {
  MPGEMM_CUBLAS(cublasLtCreate(&handle_));
  try {
    workspace_ = DeviceBuffer(kCublasLtWorkspaceBytes, "the cuBLASLt workspace");
  } catch (...) {
    (void)cublasLtDestroy(handle_);
    throw;
  }
}

CublasLtSession::~CublasLtSession() {
  best_.clear();  // the descriptors before the handle
  if (handle_) (void)cublasLtDestroy(handle_);
}

void CublasLtSession::launch(const Plan& plan, const cublasLtMatmulAlgo_t& algo, std::size_t algo_workspace_bytes,
                             const ProblemBuffers& buffers) {
  // C is read from its own buffer when the kind reads it, so a poisoned D never feeds the result.
  const float alpha = buffers.alpha;
  const float beta = buffers.kind.beta ? buffers.beta : 0.0f;
  const void* c = buffers.kind.beta ? buffers.c_in : buffers.c;
  if (buffers.kind.has_bias()) {
    // The bias of this problem's buffers (the plan may outlive others of the same problem).
    const void* bias = buffers.bias;
    MPGEMM_CUBLAS(cublasLtMatmulDescSetAttribute(plan.op.get(), CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
  }
  MPGEMM_CUBLAS(cublasLtMatmul(handle_, plan.op.get(), &alpha, buffers.b, plan.b.get(), buffers.a, plan.a.get(), &beta,
                               c, plan.c.get(), buffers.c, plan.c.get(), &algo, workspace_.get(), algo_workspace_bytes,
                               session_.stream()));
}

const CublasLtSession::Plan* CublasLtSession::kept(const GemmProblem& problem) const {
  for (const auto& p : best_)
    if (p->problem == problem) return p.get();
  return nullptr;
}

bool CublasLtSession::has_best(const GemmProblem& problem) const {
  return kept(problem) != nullptr;
}

void CublasLtSession::run_best(ProblemContext& problem) {
  const Plan* plan = kept(problem.problem());
  if (!plan) throw Error(fmt::format("no cuBLASLt algorithm was chosen for {}", problem.problem().str()));
  launch(*plan, plan->algo, plan->algo_workspace_bytes, problem.buffers());
}

void CublasLtSession::forget(const GemmProblem& problem) {
  std::erase_if(best_, [&](const auto& p) { return p->problem == problem; });
}

std::unique_ptr<CublasLtSession::Plan> CublasLtSession::make_plan(const ProblemContext& problem) const {
  // Row-major D = A * B is column-major D^T = B^T * A^T, exactly as the cuBLAS reference is called
  // (device/problem.hpp cublas_gemm_ex): cuBLASLt's "A" is our B as stored (column-major N x K, leading dimension N,
  // for kn; K x N, leading dimension K, transposed, for nk), its "B" is our A as stored (K x M, leading dimension K,
  // for mk; M x K, leading dimension M, transposed, for km), D^T is N x M.
  const Shape& s = problem.shape();
  const ProblemKind& kind = problem.kind();
  auto plan = std::make_unique<Plan>();
  plan->problem = problem.problem();
  cublasLtMatmulDesc_t op_raw = nullptr;
  MPGEMM_CUBLAS(cublasLtMatmulDescCreate(&op_raw, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  plan->op = MatmulDesc(op_raw);
  const cublasOperation_t trans_b = kind.b == BLayout::kn ? CUBLAS_OP_N : CUBLAS_OP_T;  // cuBLASLt's A
  const cublasOperation_t trans_a = kind.a == ALayout::mk ? CUBLAS_OP_N : CUBLAS_OP_T;  // cuBLASLt's B
  MPGEMM_CUBLAS(cublasLtMatmulDescSetAttribute(plan->op.get(), CUBLASLT_MATMUL_DESC_TRANSA, &trans_b, sizeof trans_b));
  MPGEMM_CUBLAS(cublasLtMatmulDescSetAttribute(plan->op.get(), CUBLASLT_MATMUL_DESC_TRANSB, &trans_a, sizeof trans_a));
  const cudaDataType_t in = kind.in == ElementType::bf16 ? CUDA_R_16BF : CUDA_R_16F;
  const cudaDataType_t out_type = kind.out == ElementType::fp32   ? CUDA_R_32F
                                  : kind.out == ElementType::bf16 ? CUDA_R_16BF
                                                                  : CUDA_R_16F;
  plan->b = kind.b == BLayout::kn ? make_layout(in, s.n, s.k, s.n) : make_layout(in, s.k, s.n, s.k);
  plan->a = kind.a == ALayout::mk ? make_layout(in, s.k, s.m, s.k) : make_layout(in, s.m, s.k, s.m);
  plan->c = make_layout(out_type, s.n, s.m, s.n);
  if (const auto epilogue = cublaslt_epilogue(kind.epilogue)) {
    // In cuBLASLt's column-major view D^T is N x M: its bias runs along D^T's rows, one value per column of our D;
    // its type is D's (BIAS_DATA_TYPE's default), and the pointer's alignment informs the heuristics.
    MPGEMM_CUBLAS(
        cublasLtMatmulDescSetAttribute(plan->op.get(), CUBLASLT_MATMUL_DESC_EPILOGUE, &*epilogue, sizeof *epilogue));
    const void* bias = problem.buffers().bias;
    MPGEMM_CUBLAS(
        cublasLtMatmulDescSetAttribute(plan->op.get(), CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
  }
  return plan;
}

CublasLtSession::Heuristics CublasLtSession::heuristics(const Plan& plan) const {
  cublasLtMatmulPreference_t pref_raw = nullptr;
  MPGEMM_CUBLAS(cublasLtMatmulPreferenceCreate(&pref_raw));
  const Preference pref(pref_raw);
  const std::uint64_t workspace_bytes = workspace_.bytes();
  MPGEMM_CUBLAS(cublasLtMatmulPreferenceSetAttribute(pref.get(), CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                     &workspace_bytes, sizeof workspace_bytes));
  Heuristics out;
  const cublasStatus_t status =
      cublasLtMatmulAlgoGetHeuristic(handle_, plan.op.get(), plan.b.get(), plan.a.get(), plan.c.get(), plan.c.get(),
                                     pref.get(), kCublasLtHeuristics, out.results.data(), &out.returned);
  if (status != CUBLAS_STATUS_SUCCESS)
    out.failure = fmt::format("cublasLtMatmulAlgoGetHeuristic failed: {}", cublasGetStatusName(status));
  else if (out.returned <= 0)
    out.failure = "cublasLtMatmulAlgoGetHeuristic returned no algorithm";
  return out;
}

CublasLtSession::Screening CublasLtSession::screen(ProblemContext& problem, const Plan& plan, const Heuristics& h,
                                                   int iters, double atol, double rtol, BatchEnqueue batches) {
  // Each algorithm is verified against the FP32 reference on poisoned output and screened with one batch.
  Screening out;
  const ProblemBuffers buffers = problem.buffers();
  for (int i = 0; i < h.returned; ++i) {
    const cublasLtMatmulHeuristicResult_t& r = h.results[static_cast<std::size_t>(i)];
    const CublasLtAlgo algo = describe_algo(r);
    if (r.state != CUBLAS_STATUS_SUCCESS) {
      out.rejected.push_back(fmt::format("{}: {}", heuristic_name(i, algo), cublasGetStatusName(r.state)));
      continue;
    }
    const auto run = [&] { launch(plan, r.algo, r.workspaceSize, buffers); };
    try {
      problem.poison_output();
      run();
      const ErrorStats error = problem.compare_output(atol, rtol);
      if (error.bad_count > 0) {
        out.rejected.push_back(fmt::format("{}: {} of {} elements differ from cuBLAS (max abs error {:.6g})",
                                           heuristic_name(i, algo), error.bad_count, problem.output_elements(),
                                           error.max_abs));
        continue;
      }
      const TimingStats timing =
          time_launches(session_.stream(), TimingPlan{1, 1, iters, L2Mode::warm, std::nullopt, batches}, nullptr, run);
      out.passed.push_back({static_cast<std::size_t>(i), algo, error, timing.median_ms});
    } catch (const CublasError& e) {
      out.rejected.push_back(fmt::format("{}: {}", heuristic_name(i, algo), e.what()));
    }
  }
  std::stable_sort(out.passed.begin(), out.passed.end(),
                   [](const auto& a, const auto& b) { return a.screen_ms < b.screen_ms; });
  return out;
}

int CublasLtSession::time_screened(const ProblemContext& problem, Plan& plan, const Heuristics& h, Screening& screening,
                                   int warmup, int runs, int iters, BatchEnqueue batches, CublasLtReference& out) {
  // Those within kCublasLtScreenBand of the fastest screen are timed under the whole protocol, fastest screen
  // first, and the fastest median is kept (its algorithm goes into the plan).
  const ProblemBuffers buffers = problem.buffers();
  const auto& passed = screening.passed;
  int timed = 0;
  for (std::size_t k = 0; k < passed.size(); ++k) {
    const Screened& c = passed[k];
    // A screen is one batch, taken between verifications while the clock moves: the fastest few are always timed.
    if (k >= kCublasLtTimedAtLeast && c.screen_ms > passed.front().screen_ms * kCublasLtScreenBand) break;
    const cublasLtMatmulHeuristicResult_t& r = h.results[c.index];
    try {
      const TimingStats timing =
          time_launches(session_.stream(), TimingPlan{warmup, runs, iters, L2Mode::warm, std::nullopt, batches},
                        nullptr, [&] { launch(plan, r.algo, r.workspaceSize, buffers); });
      const double clock = read_sm_clock_mhz(session_.info().pci_bus_id, session_.info().ordinal);
      ++timed;
      if (!out.timing || timing.median_ms < out.timing->median_ms) {
        out.timing = timing;
        out.algo = c.algo;
        out.error = c.error;
        out.sm_clock_mhz = clock;
        plan.algo = r.algo;
        plan.algo_workspace_bytes = r.workspaceSize;
      }
    } catch (const CublasError& e) {
      screening.rejected.push_back(fmt::format("{}: {}", heuristic_name(static_cast<int>(c.index), c.algo), e.what()));
    }
  }
  return timed;
}

CublasLtReference CublasLtSession::best_of_heuristics(ProblemContext& problem, int warmup, int runs, int iters,
                                                      double atol, double rtol, BatchEnqueue batches) {
  forget(problem.problem());
  CublasLtReference out;
  if (auto gap = cublaslt_gap(problem.kind())) {
    out.message = *gap;
    return out;
  }
  std::unique_ptr<Plan> plan = make_plan(problem);
  const Heuristics h = heuristics(*plan);
  if (!h.failure.empty()) {
    out.message = h.failure;
    return out;
  }
  out.heuristics_returned = h.returned;
  Screening screening = screen(problem, *plan, h, iters, atol, rtol, batches);
  out.heuristics_valid = static_cast<int>(screening.passed.size());
  const int timed = time_screened(problem, *plan, h, screening, warmup, runs, iters, batches, out);
  if (out.timing) best_.push_back(std::move(plan));
  out.message = summary(out, h.returned, screening, timed);
  return out;
}

}  // namespace mpgemm
