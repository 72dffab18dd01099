-- The configs that led at each shape of a suite database: first-pass medians within 3% of the shape's fastest, or
-- placed 8th or better in a re-rank (mpgemm-tune --leaders-from's default rule), one name per line.
WITH best AS (SELECT M, N, K, min(median_ms) AS ms FROM measurements WHERE status = 'ok' GROUP BY M, N, K)
SELECT DISTINCT c.name FROM measurements m JOIN configs c ON c.id = m.config_id
  JOIN best b ON b.M = m.M AND b.N = m.N AND b.K = m.K
  WHERE m.status = 'ok' AND m.median_ms <= 1.03 * b.ms
UNION
SELECT DISTINCT c.name FROM rerank_configs rc JOIN configs c ON c.id = rc.config_id WHERE rc.place <= 8
ORDER BY 1;
