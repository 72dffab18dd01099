#include "store/shape_winners.hpp"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "common/bounded_input.hpp"
#include "common/error.hpp"

namespace mpgemm {

namespace {

std::string text(const report::Cell& c) {
  if (const auto* s = std::get_if<std::string>(&c)) return *s;
  return {};
}

std::optional<double> real(const report::Cell& c) {
  if (const auto* d = std::get_if<double>(&c)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&c)) return static_cast<double>(*i);
  return std::nullopt;
}

std::int64_t integer(const report::Cell& c) {
  if (const auto* i = std::get_if<std::int64_t>(&c)) return *i;
  throw Error("shape_winners: a shape column is not an integer");
}

// Both queries give the same leading columns, then the references: cuBLAS (ms), cuBLASLt (ms), the ratios; then how
// it was timed: warm-up, runs, iterations, L2 mode, the SM count of its run, and how its batches were enqueued.
constexpr const char* kColumns = "device_name, device_cc, arch, M, N, K, family, config_name, alias, params, median_ms";

// A re-rank winner's own fastest tuning measurement of the shape with a timed cuBLASLt: `what` of it.
#define MPGEMM_OWN_CUBLASLT(what)                                                                               \
  "(SELECT " what                                                                                               \
  " FROM measurements AS m2 JOIN cublaslt_timings AS lt ON lt.id = m2.cublaslt_id "                             \
  "WHERE m2.config_id = winners.config_id AND m2.device_name = winners.device_name AND m2.arch = winners.arch " \
  "AND m2.M = winners.M AND m2.N = winners.N AND m2.K = winners.K AND m2.status = 'ok' "                        \
  "AND lt.median_ms IS NOT NULL ORDER BY m2.median_ms, m2.id LIMIT 1)"

// clang-format off
constexpr const char* kRerankProtocol =
    "(SELECT warmup FROM reranks WHERE id = rerank_id), (SELECT rounds FROM reranks WHERE id = rerank_id), "
    "(SELECT iters FROM reranks WHERE id = rerank_id), 'warm', (SELECT sm_count FROM runs WHERE id = run_id), "
    "coalesce((SELECT batches FROM reranks WHERE id = rerank_id), 'stream')";
constexpr const char* kTuningProtocol =
    "(SELECT warmup FROM measurements WHERE id = measurement_id), "
    "(SELECT runs FROM measurements WHERE id = measurement_id), "
    "(SELECT iters FROM measurements WHERE id = measurement_id), "
    "coalesce((SELECT l2 FROM measurements WHERE id = measurement_id), 'warm'), "
    "(SELECT sm_count FROM runs WHERE id = run_id), "
    "coalesce((SELECT batches FROM measurements WHERE id = measurement_id), 'stream')";
// The re-rank's own cuBLASLt (same rounds, schema 9) where it has one, else the winner's own tuning measurement's.
constexpr const char* kOwnCublasLt =
    "coalesce(cublaslt_median_ms, " MPGEMM_OWN_CUBLASLT("lt.median_ms") "), "
    "CASE WHEN cublaslt_median_ms IS NOT NULL THEN ratio_to_cublaslt ELSE " MPGEMM_OWN_CUBLASLT("m2.ratio_to_cublaslt") " END";
// clang-format on

#undef MPGEMM_OWN_CUBLASLT

ShapeWinner winner_from_row(const std::vector<report::Cell>& r, bool from_rerank) {
  ShapeWinner w;
  w.device_name = text(r[0]);
  w.device_cc = text(r[1]);
  const auto arch = Arch::parse(text(r[2]));
  if (!arch) throw Error(fmt::format("the winner row of {} has an unreadable arch '{}'", text(r[7]), text(r[2])));
  w.arch = *arch;
  w.shape = {integer(r[3]), integer(r[4]), integer(r[5])};
  w.family = text(r[6]);
  w.config_name = text(r[7]);
  if (auto a = text(r[8]); !a.empty()) w.alias = a;
  w.params = params_from_json(parse_json_bounded(text(r[9])));
  w.median_ms = real(r[10]).value_or(0);
  w.cublas_ms = real(r[11]);
  w.ratio_to_cublas = real(r[12]);
  w.cublaslt_ms = real(r[13]);
  w.ratio_to_cublaslt = real(r[14]);
  w.from_rerank = from_rerank;
  w.warmup = static_cast<int>(real(r[15]).value_or(0));
  w.runs = static_cast<int>(real(r[16]).value_or(0));
  w.iters = static_cast<int>(real(r[17]).value_or(0));
  const auto l2 = l2_mode_from_string(text(r[18]));
  if (!l2) throw Error(fmt::format("the winner row of {} has an unreadable L2 mode '{}'", w.config_name, text(r[18])));
  w.l2 = *l2;
  if (const auto* sms = std::get_if<std::int64_t>(&r[19])) w.sm_count = *sms;
  const auto batches = batch_enqueue_from_string(text(r[20]));
  if (!batches)
    throw Error(fmt::format("the winner row of {} has an unreadable batch mode '{}'", w.config_name, text(r[20])));
  w.batches = *batches;
  return w;
}

}  // namespace

std::vector<ShapeWinner> shape_winners(const Store& store) {
  // winners: the re-rank's own cuBLAS median and ratio (same rounds); cuBLASLt's likewise when it was in the rounds,
  // else from the winner's own tuning measurement.
  const report::Table reranked = store.query_sql(fmt::format(
      "SELECT {}, cublas_median_ms, ratio_to_cublas, {}, {} FROM winners", kColumns, kOwnCublasLt, kRerankProtocol));
  // best_per_shape: the tuning run's references, as throughput; turned back into ms below.
  const report::Table tuned = store.query_sql(fmt::format(
      "SELECT {}, 2.0 * M * N * K / cublas_tflops / 1e9, ratio_to_cublas, 2.0 * M * N * K / cublaslt_tflops / 1e9, "
      "ratio_to_cublaslt, {} FROM best_per_shape",
      kColumns, kTuningProtocol));
  std::vector<ShapeWinner> out;
  for (const auto& r : reranked.rows) out.push_back(winner_from_row(r, true));
  const auto key = [](const ShapeWinner& w) { return std::tie(w.device_name, w.shape.m, w.shape.n, w.shape.k); };
  for (const auto& r : tuned.rows) {
    ShapeWinner w = winner_from_row(r, false);
    const bool has_rerank =
        std::any_of(out.begin(), out.end(), [&](const ShapeWinner& o) { return o.from_rerank && key(o) == key(w); });
    if (!has_rerank) out.push_back(std::move(w));
  }
  std::sort(out.begin(), out.end(), [&](const ShapeWinner& a, const ShapeWinner& b) { return key(a) < key(b); });
  return out;
}

}  // namespace mpgemm
