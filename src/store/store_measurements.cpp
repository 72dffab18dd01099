// Measurements: the outcome of each candidate on each shape, keyed by result_key so a resumed or concurrent
// run never records one twice.
#include <fmt/format.h>

#include "common/error.hpp"
#include "store/store_impl.hpp"

namespace mpgemm {

namespace {

constexpr std::string_view kColumns =
    "m.id, m.run_id, m.config_id, m.compilation_id, m.result_key, m.device_name, m.device_cc, m.arch, m.M, m.N, "
    "m.K, m.status, m.median_ms, m.min_ms, m.max_ms, m.warmup, m.runs, m.iters, m.tflops, m.max_abs_err, "
    "m.max_rel_err, m.bad_count, m.nan_count, m.atol, m.rtol, m.cublas_id, m.ratio_to_cublas, "
    "m.sm_clock_mhz, "
    "m.message, m.created_at, m.cublaslt_id, m.ratio_to_cublaslt, m.l2, m.noise, m.noise_target, m.batches, "
    "m.problem";

StoredMeasurement read_measurement(const store_detail::State& s, const sqlite::Statement& q) {
  StoredMeasurement r;
  r.id = q.int64(0);
  r.run_id = q.int64(1);
  r.config_id = q.int64(2);
  r.compilation_id = q.opt_int64(3);
  r.result_key = q.text(4);
  r.device_name = q.text(5);
  r.device_cc = q.text(6);
  const auto arch = Arch::parse(q.text(7));
  const auto status = status_from_string(q.text(11));
  if (!arch || !status)
    s.bad_row(fmt::format("measurement {} has arch '{}' and status '{}'", r.id, q.text(7), q.text(11)));
  r.arch = *arch;
  r.shape = Shape{q.int64(8), q.int64(9), q.int64(10)};
  r.kind = store_detail::problem_at(s, q, 36, fmt::format("measurement {}", r.id));
  Measurement& m = r.measurement;
  m.status = *status;
  if (!q.is_null(12)) {
    m.timing = store_detail::timing_at(q, 12);
    const std::string row = fmt::format("measurement {}", r.id);
    if (const auto l2 = store_detail::l2_mode_at(s, q, 32, row)) m.timing->l2 = *l2;
    if (const auto how = store_detail::batches_at(s, q, 35, row)) m.timing->batches = *how;
    m.timing->noise = q.opt_real(33).value_or(0);
    m.timing->noise_target = q.opt_real(34);
  }
  r.tflops = q.opt_real(18);
  if (!q.is_null(19)) m.error = ErrorStats{q.real(19), q.real(20), q.int64(21), q.int64(22), q.real(23), q.real(24)};
  r.cublas_id = q.opt_int64(25);
  r.ratio_to_cublas = q.opt_real(26);
  m.sm_clock_mhz = q.opt_real(27).value_or(0);
  m.message = q.text(28);
  r.created_at = q.text(29);
  r.cublaslt_id = q.opt_int64(30);
  r.ratio_to_cublaslt = q.opt_real(31);
  return r;
}

}  // namespace

bool Store::has_measurement(std::string_view result_key) const {
  auto& s = state();
  sqlite::Statement q(s.conn, "SELECT 1 FROM measurements WHERE result_key = ?1",
                      fmt::format("looking up measurement {}", result_key));
  return q.bind(result_key).step();
}

std::optional<StoredMeasurement> Store::find_measurement(std::string_view result_key) const {
  auto& s = state();
  sqlite::Statement q(s.conn, fmt::format("SELECT {} FROM measurements AS m WHERE m.result_key = ?1", kColumns),
                      fmt::format("reading measurement {}", result_key));
  if (!q.bind(result_key).step()) return std::nullopt;
  return read_measurement(s, q);
}

std::optional<StoredMeasurement> Store::find_measurement_by_config(std::string_view config_name, std::string_view arch,
                                                                   const GemmProblem& problem) const {
  auto& s = state();
  const Shape& shape = problem.shape;
  sqlite::Statement q(s.conn,
                      fmt::format("SELECT {} FROM measurements AS m JOIN configs AS c ON c.id = m.config_id "
                                  "WHERE c.name = ?1 AND m.arch = ?2 AND m.M = ?3 AND m.N = ?4 AND m.K = ?5 "
                                  "AND m.problem = ?6 ORDER BY m.id DESC LIMIT 1",
                                  kColumns),
                      fmt::format("looking up the measurement of {} for {} on {}", config_name, arch, problem.str()));
  if (!q.bind(config_name, arch, shape.m, shape.n, shape.k, problem.kind.name()).step()) return std::nullopt;
  return read_measurement(s, q);
}

std::int64_t Store::record_measurement(const MeasurementRecord& r) {
  auto& s = state();
  const std::string doing = fmt::format("recording measurement {}", r.result_key);
  s.require_writable(doing);
  const Measurement& m = r.measurement;
  const auto& t = m.timing;
  const auto& e = m.error;
  auto timed = [&](auto field) { return t ? std::optional(*t.*field) : std::nullopt; };
  auto compared = [&](auto field) { return e ? std::optional(*e.*field) : std::nullopt; };
  sqlite::Transaction tx(s.conn, doing);
  sqlite::Statement(
      s.conn,
      "INSERT INTO measurements (run_id, config_id, compilation_id, result_key, device_name, device_cc, "
      "arch, M, N, K, status, median_ms, min_ms, max_ms, warmup, runs, iters, tflops, max_abs_err, "
      "max_rel_err, bad_count, nan_count, atol, rtol, cublas_id, ratio_to_cublas, sm_clock_mhz, "
      "message, cublaslt_id, ratio_to_cublaslt, l2, noise, noise_target, gpu_uuid, gpu_ordinal, batches, problem) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, "
      "?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35, ?36, ?37) "
      "ON CONFLICT (result_key) DO NOTHING",
      doing)
      .bind(r.run_id, r.config_id, r.compilation_id, r.result_key, r.device_name, r.device_cc, r.arch.str(), r.shape.m,
            r.shape.n, r.shape.k, to_string(m.status), timed(&TimingStats::median_ms), timed(&TimingStats::min_ms),
            timed(&TimingStats::max_ms), timed(&TimingStats::warmup), timed(&TimingStats::runs),
            timed(&TimingStats::iters), t ? tflops_of(r.shape, t->median_ms) : std::nullopt,
            compared(&ErrorStats::max_abs), compared(&ErrorStats::max_rel), compared(&ErrorStats::bad_count),
            compared(&ErrorStats::nan_count), compared(&ErrorStats::atol), compared(&ErrorStats::rtol), r.cublas_id,
            r.ratio_to_cublas, m.sm_clock_mhz != 0 ? std::optional(m.sm_clock_mhz) : std::nullopt, m.message,
            r.cublaslt_id, r.ratio_to_cublaslt, t ? std::optional(std::string(to_string(t->l2))) : std::nullopt,
            timed(&TimingStats::noise), t ? t->noise_target : std::nullopt,
            r.gpu ? std::optional(r.gpu->uuid) : std::nullopt,
            r.gpu ? std::optional<std::int64_t>(r.gpu->ordinal) : std::nullopt,
            t ? std::optional(std::string(to_string(t->batches))) : std::nullopt, r.kind.name())
      .run();
  sqlite::Statement q(s.conn, "SELECT id FROM measurements WHERE result_key = ?1", doing);
  if (!q.bind(r.result_key).step()) s.bad_row(doing + ": the row vanished");
  const std::int64_t id = q.int64(0);
  q.reset();
  tx.commit();
  return id;
}

}  // namespace mpgemm
