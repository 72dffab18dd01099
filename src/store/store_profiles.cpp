// Nsight Compute counters: recording them and comparing two profiled kernels.
#include <fmt/format.h>

#include "common/error.hpp"
#include "store/store_impl.hpp"

namespace mpgemm {

namespace {

// Whether every counter of `r` equals the newest row of its (label, shape, metric) with the same kernel, device,
// config, unit and source file: the same import again.
bool already_latest(store_detail::State& s, const ProfileRecord& r, const std::string& doing) {
  if (r.metrics.empty()) return false;
  sqlite::Statement latest(s.conn,
                           "SELECT kernel = ?6 AND device_name IS ?7 AND config_id IS ?8 AND unit IS ?9 AND "
                           "value = ?10 AND source_file IS ?11 FROM profile_metrics WHERE label = ?1 AND M = ?2 AND "
                           "N = ?3 AND K = ?4 AND metric = ?5 ORDER BY id DESC LIMIT 1",
                           doing);
  for (const auto& m : r.metrics) {
    latest.bind(r.label, r.shape.m, r.shape.n, r.shape.k, m.name, r.kernel, r.device_name, r.config_id, m.unit, m.value,
                r.source_file);
    const bool same = latest.step() && latest.int64(0) == 1;
    latest.reset();
    if (!same) return false;
  }
  return true;
}

}  // namespace

std::size_t Store::record_profile(const ProfileRecord& r) {
  auto& s = state();
  const std::string doing = fmt::format("recording {} counters of {}", r.metrics.size(), r.label);
  s.require_writable(doing);
  sqlite::Transaction tx(s.conn, doing);
  if (already_latest(s, r, doing)) return 0;
  sqlite::Statement insert(s.conn,
                           "INSERT INTO profile_metrics (label, config_id, kernel, device_name, M, N, K, metric, "
                           "unit, value, source_file) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                           doing);
  for (const auto& m : r.metrics) {
    insert
        .bind(r.label, r.config_id, r.kernel, r.device_name, r.shape.m, r.shape.n, r.shape.k, m.name, m.unit, m.value,
              r.source_file)
        .run();
    insert.reset();
  }
  tx.commit();
  return r.metrics.size();
}

std::optional<std::int64_t> Store::find_config_id(std::string_view label) const {
  auto& s = state();
  sqlite::Statement q(s.conn, "SELECT id FROM configs WHERE name = ?1 OR alias = ?1 ORDER BY id DESC LIMIT 1",
                      fmt::format("looking up config {}", label));
  if (!q.bind(label).step()) return std::nullopt;
  return q.int64(0);
}

report::Table Store::compare_profiles(std::string_view label_a, std::string_view label_b) const {
  auto& s = state();
  sqlite::Statement q(
      s.conn,
      // Each label's counters of its newest kernel and shape only: a label profiled again with another kernel
      // (a new best config) or at another shape is that profile, never a mix of the two.
      "WITH newest AS (SELECT p.label, p.kernel, p.M, p.N, p.K FROM profile_metrics AS p "
      "  WHERE p.label IN (?1, ?2) AND p.id = (SELECT max(q.id) FROM profile_metrics AS q WHERE q.label = p.label)), "
      "latest AS (SELECT p.label, p.metric, p.unit, p.value, row_number() OVER "
      "  (PARTITION BY p.label, p.metric ORDER BY p.id DESC) AS place FROM profile_metrics AS p "
      "  JOIN newest AS n ON n.label = p.label AND n.kernel = p.kernel AND n.M = p.M AND n.N = p.N AND n.K = p.K) "
      "SELECT a.metric, a.unit, a.value AS a, b.value AS b, "
      "       CASE WHEN a.value <> 0 THEN b.value / a.value END AS b_over_a "
      "FROM latest AS a JOIN latest AS b ON a.metric = b.metric AND b.label = ?2 AND b.place = 1 "
      "WHERE a.label = ?1 AND a.place = 1 ORDER BY a.metric",
      fmt::format("comparing the counters of {} and {}", label_a, label_b));
  q.bind(label_a, label_b);
  report::Table t;
  t.columns = {"metric", "unit", std::string(label_a), std::string(label_b), "b/a"};
  while (q.step()) {
    auto opt = [&](int i) -> report::Cell {
      if (q.is_null(i)) return {};
      return q.real(i);
    };
    t.rows.push_back({q.text(0), q.text(1), opt(2), opt(3), opt(4)});
  }
  if (t.rows.empty())
    throw Error(fmt::format("no counters recorded for both '{}' and '{}' (see mpgemm-query {} profiles)", label_a,
                            label_b, s.path.string()));
  return t;
}

}  // namespace mpgemm
