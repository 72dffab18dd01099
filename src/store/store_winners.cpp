// Each shape's winner, as mpgemm-run --config best and mpgemm-export take it: the latest re-rank's winner, else the
// fastest verified measurement of any family and arch.
#include <fmt/format.h>

#include "common/error.hpp"
#include "common/params.hpp"
#include "store/store_impl.hpp"

namespace mpgemm {

namespace {

// The latest timed cuBLASLt reference of the winner's shape on its device (cuBLASLt is never in a re-rank).
#define MPGEMM_LATEST_CUBLASLT(w)                                                                       \
  "(SELECT l.median_ms FROM cublaslt_timings AS l WHERE l.device_name = " w ".device_name AND l.M = " w \
  ".M AND l.N = " w ".N AND l.K = " w ".K AND l.median_ms IS NOT NULL ORDER BY l.id DESC LIMIT 1)"

// The winner's own fastest 'ok' measurement of the shape with a cuBLASLt reference: a re-rank has no cuBLASLt, so its
// winner's ratio to cuBLASLt is the one measured in the tuning run, against the cuBLASLt timing of that run.
#define MPGEMM_OWN_MEASUREMENT(w)                                                                      \
  "(SELECT m2.id FROM measurements AS m2 WHERE m2.config_id = " w ".config_id AND m2.device_name = " w \
  ".device_name AND m2.arch = " w ".arch AND m2.M = " w ".M AND m2.N = " w ".N AND m2.K = " w          \
  ".K AND "                                                                                            \
  "m2.status = 'ok' AND m2.cublaslt_id IS NOT NULL ORDER BY m2.median_ms, m2.id LIMIT 1)"

// Both halves have the same columns: device_name, device_cc, arch, M, N, K, family, config_name, alias, params,
// source, median_ms, cublas_ms, cublaslt_ms, ratio_to_cublaslt, l2, warmup, runs, iters, sm_count, run_id.
// clang-format off
constexpr const char* kWinnersSql =
    "SELECT * FROM ("
    "SELECT w.device_name, w.device_cc, w.arch, w.M, w.N, w.K, w.family, w.config_name, w.alias, w.params, "
    "'rerank' AS source, w.median_ms, w.cublas_median_ms, coalesce(olt.median_ms, " MPGEMM_LATEST_CUBLASLT("w") "), "
    "om.ratio_to_cublaslt, 'warm', r.warmup, r.rounds, r.iters, (SELECT sm_count FROM runs WHERE id = w.run_id), "
    "w.run_id "
    "FROM winners AS w JOIN reranks AS r ON r.id = w.rerank_id "
    "LEFT JOIN measurements AS om ON om.id = " MPGEMM_OWN_MEASUREMENT("w") " "
    "LEFT JOIN cublaslt_timings AS olt ON olt.id = om.cublaslt_id "
    "UNION ALL "
    "SELECT b.device_name, b.device_cc, b.arch, b.M, b.N, b.K, b.family, b.config_name, b.alias, b.params, "
    "'tune', b.median_ms, ct.median_ms, coalesce(lt.median_ms, " MPGEMM_LATEST_CUBLASLT("b") "), "
    "m.ratio_to_cublaslt, coalesce(m.l2, 'warm'), m.warmup, m.runs, m.iters, "
    "(SELECT sm_count FROM runs WHERE id = b.run_id), b.run_id "
    "FROM best_per_shape AS b JOIN measurements AS m ON m.id = b.measurement_id "
    "LEFT JOIN cublas_timings AS ct ON ct.id = m.cublas_id "
    "LEFT JOIN cublaslt_timings AS lt ON lt.id = m.cublaslt_id "
    "WHERE NOT EXISTS (SELECT 1 FROM winners AS w2 WHERE w2.device_name = b.device_name "
    "AND w2.M = b.M AND w2.N = b.N AND w2.K = b.K)"
    ") ORDER BY device_name, M, N, K";
// clang-format on

#undef MPGEMM_OWN_MEASUREMENT
#undef MPGEMM_LATEST_CUBLASLT

}  // namespace

std::string_view to_string(WinnerSource s) {
  return s == WinnerSource::rerank ? "rerank" : "tune";
}

std::vector<ShapeWinner> Store::shape_winners() const {
  auto& s = state();
  sqlite::Statement q(s.conn, kWinnersSql, "reading each shape's winner");
  std::vector<ShapeWinner> out;
  while (q.step()) {
    ShapeWinner w;
    w.device_name = q.text(0);
    w.device_cc = q.text(1);
    const auto arch = Arch::parse(q.text(2));
    if (!arch)
      s.bad_row(fmt::format("the winner of {} at {}x{}x{} has arch '{}'", q.text(0), q.int64(3), q.int64(4), q.int64(5),
                            q.text(2)));
    w.arch = *arch;
    w.shape = Shape{q.int64(3), q.int64(4), q.int64(5)};
    w.candidate.family = q.text(6);
    w.candidate.name = q.text(7);
    if (auto alias = q.opt_text(8); alias && !alias->empty()) w.candidate.alias = std::move(alias);
    try {
      w.candidate.params = params_from_json(nlohmann::json::parse(q.text(9)));
    } catch (const std::exception& e) {
      s.bad_row(fmt::format("config {} has unreadable params: {}", w.candidate.name, e.what()));
    }
    w.source = q.text(10) == "rerank" ? WinnerSource::rerank : WinnerSource::tune;
    w.median_ms = q.real(11);
    w.cublas_median_ms = q.opt_real(12);
    w.cublaslt_median_ms = q.opt_real(13);
    w.ratio_to_cublaslt = q.opt_real(14);
    if (!w.ratio_to_cublaslt && w.cublaslt_median_ms && w.median_ms > 0)
      w.ratio_to_cublaslt = *w.cublaslt_median_ms / w.median_ms;
    const auto l2 = l2_mode_from_string(q.text(15));
    if (!l2) s.bad_row(fmt::format("the winner {} has L2 mode '{}'", w.candidate.name, q.text(15)));
    w.l2 = *l2;
    w.warmup = static_cast<int>(q.opt_int64(16).value_or(0));
    w.runs = static_cast<int>(q.opt_int64(17).value_or(0));
    w.iters = static_cast<int>(q.opt_int64(18).value_or(0));
    w.sm_count = q.opt_int64(19);
    w.run_id = q.int64(20);
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace mpgemm
