// The configs that led somewhere in a database (mpgemm-tune --leaders-from): what a new set of shapes is
// tuned over when the whole space would take too long.
#include <fmt/format.h>

#include "store/store_impl.hpp"

namespace mpgemm {

Store::Leaders Store::leaders(std::string_view family, const LeaderRule& rule, const ProblemKind& kind) const {
  auto& s = state();
  // The family's fastest 'ok' median per device and shape of the kind: a config stands against the same device,
  // kind and shape only (any arch; warm and cold L2 alike, as the database holds them).
  constexpr const char* kFastest =
      "WITH fastest AS (SELECT m.device_name, m.M, m.N, m.K, min(m.median_ms) AS ms "
      "              FROM measurements AS m JOIN configs AS c ON c.id = m.config_id "
      "              WHERE m.status = 'ok' AND c.family = ?1 AND m.problem = ?4 "
      "              GROUP BY m.device_name, m.M, m.N, m.K) ";
  Leaders out;
  sqlite::Statement shapes(s.conn, std::string(kFastest) + "SELECT count(*) FROM fastest",
                           fmt::format("counting the shapes of family {}", family));
  shapes.bind(family, std::nullopt, std::nullopt, kind.name());
  if (shapes.step()) out.shapes = static_cast<std::size_t>(shapes.int64(0));
  sqlite::Statement q(
      s.conn,
      std::string(kFastest) +
          "SELECT c.name FROM measurements AS m JOIN configs AS c ON c.id = m.config_id "
          "JOIN fastest AS b ON b.device_name = m.device_name AND b.M = m.M AND b.N = m.N AND b.K = m.K "
          "WHERE m.status = 'ok' AND c.family = ?1 AND m.problem = ?4 AND m.median_ms <= b.ms * (1 + ?2) "
          "UNION "
          "SELECT c.name FROM rerank_configs AS rc JOIN configs AS c ON c.id = rc.config_id "
          "JOIN reranks AS r ON r.id = rc.rerank_id "
          "WHERE c.family = ?1 AND rc.place <= ?3 AND r.problem = ?4 "
          "ORDER BY 1",
      fmt::format("finding the leading configs of family {}", family));
  q.bind(family, rule.within, rule.places, kind.name());
  while (q.step()) out.names.push_back(q.text(0));
  return out;
}

}  // namespace mpgemm
