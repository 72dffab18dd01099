// The top-K re-rank's tables: the ranked configs it starts from, and the re-ranks with every sample.
#include <algorithm>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "common/error.hpp"
#include "store/store_impl.hpp"

namespace mpgemm {

std::vector<RankedConfig> Store::ranked_configs(std::string_view device_name, const GemmProblem& problem, int limit,
                                                RankBy by) const {
  auto& s = state();
  const Shape& shape = problem.shape;
  // SQLite takes the bare column sm_clock_mhz from the row that holds the min(): the fastest median's clock. The
  // rows come by time; by cycles they are sorted again here, by RankedConfig::cycles (its one definition), the
  // order by time breaking ties.
  sqlite::Statement q(
      s.conn,
      "WITH fastest AS (SELECT config_id, arch, min(median_ms) AS median_ms, sm_clock_mhz AS clock "
      "                 FROM measurements "
      "                 WHERE status = 'ok' AND device_name = ?1 AND M = ?2 AND N = ?3 AND K = ?4 "
      "                       AND problem = ?5 "
      "                 GROUP BY config_id, arch) "
      "SELECT f.config_id, f.arch, f.median_ms, c.name, cp.registers, cp.shared_bytes, cp.dynamic_shared_bytes, "
      "       f.clock "
      "FROM fastest AS f JOIN configs AS c ON c.id = f.config_id "
      "LEFT JOIN compilations AS cp ON cp.id = (SELECT max(id) FROM compilations "
      "                                         WHERE config_id = f.config_id AND arch = f.arch AND status = 'ok') "
      "ORDER BY f.median_ms, c.name, f.arch, f.config_id DESC",
      fmt::format("ranking the configs of {} on {}", problem.str(), device_name));
  q.bind(device_name, shape.m, shape.n, shape.k, problem.kind.name());
  struct Row {
    RankedConfig config;
    std::pair<std::string, std::string> kernel;  // (config name, arch as stored): one kernel, whatever its source
    std::int64_t id;
  };
  std::vector<Row> rows;
  // By time the first `limit` distinct kernels are all that is needed; by cycles every row is.
  std::set<std::pair<std::string, std::string>> seen_by_time;
  while (q.step()) {
    if (by == RankBy::time && static_cast<int>(seen_by_time.size()) >= limit) break;
    Row row{RankedConfig{}, {q.text(3), q.text(1)}, q.int64(0)};
    RankedConfig& r = row.config;
    const auto arch = Arch::parse(q.text(1));
    if (!arch) s.bad_row(fmt::format("measurement of config {} has arch '{}'", row.id, q.text(1)));
    r.arch = *arch;
    r.median_ms = q.real(2);
    r.registers = static_cast<int>(q.opt_int64(4).value_or(-1));
    r.shared_bytes = static_cast<int>(q.opt_int64(5).value_or(-1));
    r.dynamic_shared_bytes = static_cast<int>(q.opt_int64(6).value_or(-1));
    r.sm_clock_mhz = std::max(0.0, q.opt_real(7).value_or(0));
    if (by == RankBy::time) seen_by_time.insert(row.kernel);
    rows.push_back(std::move(row));
  }
  if (by == RankBy::cycles)  // the configs with a known clock first, fewest cycles first
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
      const double ca = a.config.cycles(), cb = b.config.cycles();
      if ((ca <= 0) != (cb <= 0)) return cb <= 0;
      return ca < cb;
    });
  std::vector<std::pair<RankedConfig, std::int64_t>> picked;  // config, its id
  std::set<std::pair<std::string, std::string>> seen;         // (name, arch): one row per kernel
  for (auto& row : rows) {
    if (static_cast<int>(picked.size()) >= limit) break;
    if (!seen.insert(row.kernel).second) continue;  // an older source of a config already picked
    picked.emplace_back(std::move(row.config), row.id);
  }
  std::vector<RankedConfig> out;
  for (auto& [r, id] : picked) {
    auto c = find_config(id);
    if (!c) s.bad_row(fmt::format("measurement of a missing config {}", id));
    r.config = std::move(*c);
    out.push_back(std::move(r));
  }
  return out;
}

std::int64_t Store::record_rerank(const RerankRecord& r) {
  auto& s = state();
  const std::string doing =
      fmt::format("recording the re-rank of {} on {}", GemmProblem{r.shape, r.kind}.str(), r.device_name);
  s.require_writable(doing);
  sqlite::Transaction tx(s.conn, doing);
  sqlite::Statement(
      s.conn,
      "INSERT INTO reranks (run_id, device_name, device_cc, M, N, K, top_k, warmup, rounds, iters, "
      "tie_band, rule, winner_config_id, cublas_median_ms, sm_clock_mhz, gpu_uuid, gpu_ordinal, "
      "cublaslt_median_ms, batches, settled_ms, problem) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)",
      doing)
      .bind(r.run_id, r.device_name, r.device_cc, r.shape.m, r.shape.n, r.shape.k, r.top_k, r.warmup, r.rounds, r.iters,
            r.tie_band, r.rule, r.winner_config_id, r.cublas_median_ms,
            r.sm_clock_mhz > 0 ? std::optional<double>(r.sm_clock_mhz) : std::nullopt,
            r.gpu ? std::optional(r.gpu->uuid) : std::nullopt,
            r.gpu ? std::optional<std::int64_t>(r.gpu->ordinal) : std::nullopt, r.cublaslt_median_ms,
            to_string(r.batches), r.settled_ms, r.kind.name())
      .run();
  const std::int64_t id = sqlite3_last_insert_rowid(s.conn.db);
  const auto known = [](int v) { return v >= 0 ? std::optional<std::int64_t>(v) : std::nullopt; };
  sqlite::Statement entry(s.conn,
                          "INSERT INTO rerank_configs (rerank_id, config_id, arch, prior_median_ms, status, "
                          "samples, median_ms, min_ms, max_ms, ratio_to_cublas, registers, threads, smem_bytes, "
                          "tied, place, message, ratio_to_cublaslt) "
                          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
                          doing);
  sqlite::Statement sample(s.conn,
                           "INSERT INTO rerank_samples (rerank_id, config_id, arch, round, position, ms, reference) "
                           "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                           doing);
  for (const auto& e : r.entries) {
    const auto& t = e.timing;
    entry
        .bind(id, e.config_id, e.arch.str(), e.prior_median_ms, to_string(e.status),
              static_cast<std::int64_t>(e.samples.size()), t ? std::optional(t->median_ms) : std::nullopt,
              t ? std::optional(t->min_ms) : std::nullopt, t ? std::optional(t->max_ms) : std::nullopt,
              e.ratio_to_cublas, known(e.registers), known(e.threads), known(e.smem_bytes),
              std::int64_t{e.tied ? 1 : 0}, e.place, e.message, e.ratio_to_cublaslt)
        .run();
    entry.reset();
    for (const auto& x : e.samples) {
      sample.bind(id, e.config_id, e.arch.str(), x.round, x.position, x.ms, std::nullopt).run();
      sample.reset();
    }
  }
  for (const auto& [reference, samples] : {std::pair{"cublas", &r.cublas_samples}, {"cublaslt", &r.cublaslt_samples}})
    for (const auto& x : *samples) {
      sample.bind(id, std::nullopt, std::nullopt, x.round, x.position, x.ms, std::string(reference)).run();
      sample.reset();
    }
  tx.commit();
  return id;
}

std::optional<StoredRerank> Store::find_latest_rerank(std::string_view device_name, const GemmProblem& problem) const {
  auto& s = state();
  const Shape& shape = problem.shape;
  const std::string doing = fmt::format("reading the latest re-rank of {} on {}", problem.str(), device_name);
  sqlite::Statement q(s.conn,
                      "SELECT id, run_id, device_name, device_cc, top_k, warmup, rounds, iters, tie_band, rule, "
                      "winner_config_id, cublas_median_ms, sm_clock_mhz, created_at, cublaslt_median_ms, "
                      "coalesce(batches, 'stream'), coalesce(settled_ms, 0) FROM reranks "
                      "WHERE device_name = ?1 AND M = ?2 AND N = ?3 AND K = ?4 AND problem = ?5 "
                      "ORDER BY id DESC LIMIT 1",
                      doing);
  if (!q.bind(device_name, shape.m, shape.n, shape.k, problem.kind.name()).step()) return std::nullopt;
  StoredRerank r;
  r.id = q.int64(0);
  r.run_id = q.int64(1);
  r.device_name = q.text(2);
  r.device_cc = q.text(3);
  r.shape = shape;
  r.kind = problem.kind;
  r.top_k = static_cast<int>(q.int64(4));
  r.warmup = static_cast<int>(q.int64(5));
  r.rounds = static_cast<int>(q.int64(6));
  r.iters = static_cast<int>(q.int64(7));
  r.tie_band = q.real(8);
  r.rule = q.text(9);
  r.winner_config_id = q.opt_int64(10);
  r.cublas_median_ms = q.opt_real(11);
  r.sm_clock_mhz = q.opt_real(12).value_or(0);
  r.created_at = q.text(13);
  r.cublaslt_median_ms = q.opt_real(14);
  if (const auto how = store_detail::batches_at(s, q, 15, fmt::format("re-rank {}", r.id))) r.batches = *how;
  r.settled_ms = q.real(16);

  sqlite::Statement e(s.conn,
                      "SELECT config_id, arch, prior_median_ms, status, samples, median_ms, min_ms, max_ms, "
                      "ratio_to_cublas, registers, threads, smem_bytes, tied, place, message, ratio_to_cublaslt "
                      "FROM rerank_configs "
                      "WHERE rerank_id = ?1 ORDER BY place IS NULL, place, config_id, arch",
                      doing);
  e.bind(r.id);
  while (e.step()) {
    RerankEntryRecord x;
    x.config_id = e.int64(0);
    const auto arch = Arch::parse(e.text(1));
    const auto status = status_from_string(e.text(3));
    if (!arch || !status)
      s.bad_row(fmt::format("re-rank {} has arch '{}' and status '{}'", r.id, e.text(1), e.text(3)));
    x.arch = *arch;
    x.prior_median_ms = e.real(2);
    x.status = *status;
    if (!e.is_null(5))
      x.timing = TimingStats{e.real(5), e.real(6), e.real(7), r.warmup, static_cast<int>(e.int64(4)), r.iters};
    x.ratio_to_cublas = e.opt_real(8);
    x.registers = static_cast<int>(e.opt_int64(9).value_or(-1));
    x.threads = static_cast<int>(e.opt_int64(10).value_or(-1));
    x.smem_bytes = static_cast<int>(e.opt_int64(11).value_or(-1));
    x.tied = e.int64(12) != 0;
    if (auto p = e.opt_int64(13)) x.place = static_cast<int>(*p);
    x.message = e.text(14);
    x.ratio_to_cublaslt = e.opt_real(15);
    r.entries.push_back(std::move(x));
  }

  sqlite::Statement samples(
      s.conn,
      "SELECT config_id, arch, round, position, ms, reference FROM rerank_samples WHERE rerank_id = ?1 "
      "ORDER BY round, position",
      doing);
  samples.bind(r.id);
  while (samples.step()) {
    const RoundSample x{static_cast<int>(samples.int64(2)), static_cast<int>(samples.int64(3)), samples.real(4)};
    if (samples.is_null(0)) {  // a reference's; before version 9 always cuBLAS's
      (!samples.is_null(5) && samples.text(5) == "cublaslt" ? r.cublaslt_samples : r.cublas_samples).push_back(x);
      continue;
    }
    const auto id = samples.int64(0);
    const std::string arch = samples.text(1);
    for (auto& entry : r.entries)
      if (entry.config_id == id && entry.arch.str() == arch) entry.samples.push_back(x);
  }
  return r;
}

}  // namespace mpgemm
