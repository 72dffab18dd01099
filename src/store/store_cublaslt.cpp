// cuBLASLt reference timings: the second reference next to cuBLAS, one row per shape of a run, timed or not.
#include <fmt/format.h>

#include "common/error.hpp"
#include "store/store_impl.hpp"

namespace mpgemm {

namespace {

constexpr std::string_view kColumns =
    "id, run_id, device_name, device_cc, M, N, K, median_ms, min_ms, max_ms, warmup, runs, iters, tflops, "
    "sm_clock_mhz, heuristics_returned, heuristics_valid, algo_id, tile_id, stages_id, splitk, "
    "reduction_scheme, "
    "swizzle, custom_option, inner_shape_id, cluster_shape_id, workspace_bytes, waves, max_abs_err, "
    "max_rel_err, "
    "atol, rtol, message, created_at, batches, problem";

StoredCublasLt read_cublaslt(const store_detail::State& s, const sqlite::Statement& q) {
  StoredCublasLt c;
  c.id = q.int64(0);
  c.run_id = q.int64(1);
  c.device_name = q.text(2);
  c.device_cc = q.text(3);
  c.shape = Shape{q.int64(4), q.int64(5), q.int64(6)};
  CublasLtReference& r = c.reference;
  if (!q.is_null(7)) {
    r.timing = store_detail::timing_at(q, 7);
    if (const auto how = store_detail::batches_at(s, q, 34, fmt::format("cuBLASLt timing {}", c.id)))
      r.timing->batches = *how;
  }
  c.tflops = q.opt_real(13);
  r.sm_clock_mhz = q.opt_real(14).value_or(0);
  r.heuristics_returned = static_cast<int>(q.int64(15));
  r.heuristics_valid = static_cast<int>(q.int64(16));
  if (!q.is_null(17)) {
    auto integer = [&](int i) { return static_cast<int>(q.opt_int64(i).value_or(0)); };
    CublasLtAlgo a;
    a.algo_id = integer(17);
    a.tile_id = integer(18);
    a.stages_id = integer(19);
    a.splitk = integer(20);
    a.reduction_scheme = integer(21);
    a.swizzle = integer(22);
    a.custom_option = integer(23);
    a.inner_shape_id = integer(24);
    a.cluster_shape_id = integer(25);
    a.workspace_bytes = q.opt_int64(26).value_or(0);
    a.waves = q.opt_real(27).value_or(0);
    r.algo = a;
  }
  if (!q.is_null(28))
    r.error = ErrorStats{q.real(28), q.opt_real(29).value_or(0), 0,
                         0,          q.opt_real(30).value_or(0), q.opt_real(31).value_or(0)};
  r.message = q.text(32);
  c.created_at = q.text(33);
  c.kind = store_detail::problem_at(s, q, 35, fmt::format("cuBLASLt timing {}", c.id));
  return c;
}

}  // namespace

std::int64_t Store::record_cublaslt(std::int64_t run_id, const CublasLtRecord& record) {
  auto& s = state();
  const std::string doing = fmt::format("recording the cuBLASLt timing of {} on {}",
                                        GemmProblem{record.shape, record.kind}.str(), record.device_name);
  s.require_writable(doing);
  const CublasLtReference& r = record.reference;
  const auto& t = r.timing;
  const auto& a = r.algo;
  const auto& e = r.error;
  // Timing and algorithm go together (a CHECK refuses one without the other): a time names what made it.
  auto timing = [&](auto field) { return t ? std::optional(*t.*field) : std::nullopt; };
  auto algo = [&](auto field) { return a ? std::optional(*a.*field) : std::nullopt; };
  auto error = [&](auto field) { return e ? std::optional(*e.*field) : std::nullopt; };
  sqlite::Transaction tx(s.conn, doing);
  sqlite::Statement(
      s.conn,
      "INSERT INTO cublaslt_timings (run_id, device_name, device_cc, M, N, K, median_ms, min_ms, max_ms, "
      "warmup, "
      "runs, iters, tflops, sm_clock_mhz, heuristics_returned, heuristics_valid, algo, algo_id, tile_id, "
      "stages_id, splitk, reduction_scheme, swizzle, custom_option, inner_shape_id, cluster_shape_id, "
      "workspace_bytes, waves, max_abs_err, max_rel_err, atol, rtol, message, gpu_uuid, gpu_ordinal, batches, "
      "problem) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, "
      "?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35, ?36, ?37)",
      doing)
      .bind(run_id, record.device_name, record.device_cc, record.shape.m, record.shape.n, record.shape.k,
            timing(&TimingStats::median_ms), timing(&TimingStats::min_ms), timing(&TimingStats::max_ms),
            timing(&TimingStats::warmup), timing(&TimingStats::runs), timing(&TimingStats::iters),
            t ? tflops_of(record.shape, t->median_ms) : std::nullopt,
            r.sm_clock_mhz != 0 ? std::optional(r.sm_clock_mhz) : std::nullopt, r.heuristics_returned,
            r.heuristics_valid, a ? std::optional(describe(*a)) : std::nullopt, algo(&CublasLtAlgo::algo_id),
            algo(&CublasLtAlgo::tile_id), algo(&CublasLtAlgo::stages_id), algo(&CublasLtAlgo::splitk),
            algo(&CublasLtAlgo::reduction_scheme), algo(&CublasLtAlgo::swizzle), algo(&CublasLtAlgo::custom_option),
            algo(&CublasLtAlgo::inner_shape_id), algo(&CublasLtAlgo::cluster_shape_id),
            algo(&CublasLtAlgo::workspace_bytes), algo(&CublasLtAlgo::waves), error(&ErrorStats::max_abs),
            error(&ErrorStats::max_rel), error(&ErrorStats::atol), error(&ErrorStats::rtol), r.message,
            record.gpu ? std::optional(record.gpu->uuid) : std::nullopt,
            record.gpu ? std::optional<std::int64_t>(record.gpu->ordinal) : std::nullopt,
            t ? std::optional(std::string(to_string(t->batches))) : std::nullopt, record.kind.name())
      .run();
  const std::int64_t id = sqlite3_last_insert_rowid(s.conn.db);
  tx.commit();
  return id;
}

std::optional<StoredCublasLt> Store::find_cublaslt(std::int64_t cublaslt_id) const {
  auto& s = state();
  sqlite::Statement q(s.conn, fmt::format("SELECT {} FROM cublaslt_timings WHERE id = ?1", kColumns),
                      fmt::format("reading cuBLASLt timing {}", cublaslt_id));
  if (!q.bind(cublaslt_id).step()) return std::nullopt;
  return read_cublaslt(s, q);
}

std::optional<StoredCublasLt> Store::find_latest_cublaslt(std::string_view device_name,
                                                          const GemmProblem& problem) const {
  auto& s = state();
  const Shape& shape = problem.shape;
  sqlite::Statement q(s.conn,
                      fmt::format("SELECT {} FROM cublaslt_timings WHERE device_name = ?1 AND M = ?2 AND N = ?3 "
                                  "AND K = ?4 AND problem = ?5 ORDER BY id DESC LIMIT 1",
                                  kColumns),
                      fmt::format("looking up the cuBLASLt timing of {} on {}", problem.str(), device_name));
  if (!q.bind(device_name, shape.m, shape.n, shape.k, problem.kind.name()).step()) return std::nullopt;
  return read_cublaslt(s, q);
}

}  // namespace mpgemm
