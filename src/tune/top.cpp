#include <fmt/format.h>

#include "store/store.hpp"
#include "tune/tuner.hpp"

namespace mpgemm {

report::Table top_configs(const std::filesystem::path& db_path, const std::string& device_cc, int limit,
                          const ProblemKind& kind) {
  Store store = Store::open(db_path, Store::Mode::read_only);
  // A fixed query (nothing pasted into SQL); filtering by device, kind and limit happens below. The tuner has just
  // written the database, so it has the problem column (schema 14).
  report::Table all = store.query_sql(
      "SELECT m.device_cc, m.M || 'x' || m.N || 'x' || m.K AS shape, c.name AS config, c.alias AS point, "
      "m.median_ms, m.tflops, m.ratio_to_cublas, m.ratio_to_cublaslt, "
      "row_number() OVER (PARTITION BY m.device_name, m.device_cc, m.problem, m.M, m.N, m.K "
      "                   ORDER BY m.median_ms, m.id) AS rank, m.problem "
      "FROM measurements m JOIN configs c ON c.id = m.config_id WHERE m.status = 'ok' "
      "ORDER BY m.device_name, m.M, m.N, m.K, rank");
  report::Table out;
  out.columns = {"shape", "rank", "config", "point", "median_ms", "tflops", "ratio_to_cublas", "ratio_to_cublaslt"};
  for (const auto& r : all.rows) {
    if (std::get_if<std::string>(&r[0]) == nullptr || std::get<std::string>(r[0]) != device_cc) continue;
    if (std::get<std::int64_t>(r[8]) > limit) continue;
    if (std::get_if<std::string>(&r[9]) == nullptr || std::get<std::string>(r[9]) != kind.name()) continue;
    out.rows.push_back({r[1], r[8], r[2], r[3], r[4], r[5], r[6], r[7]});
  }
  return out;
}

}  // namespace mpgemm
