-- Per shape, from a suite database's first pass: the fastest median (us) without a dependent launch (PDL 0), with
-- the early trigger (PDL 1, names ending _pdl) and with the trigger at exit (PDL 2, _pdlx); and over the configs
-- measured in both modes, the mean and the range of (PDL 0 median / PDL n median): > 1 means the dependent launch
-- is faster. Screened-out configs have no median and drop out of the pairs.
WITH m AS (
  SELECT c.name, m.M, m.N, m.K, m.median_ms,
         CASE WHEN c.name LIKE '%\_pdl' ESCAPE '\' THEN 1 WHEN c.name LIKE '%\_pdlx' ESCAPE '\' THEN 2 ELSE 0 END AS pdl,
         CASE WHEN c.name LIKE '%\_pdl' ESCAPE '\' THEN substr(c.name, 1, length(c.name) - 4)
              WHEN c.name LIKE '%\_pdlx' ESCAPE '\' THEN substr(c.name, 1, length(c.name) - 5) ELSE c.name END AS base
  FROM measurements m JOIN configs c ON c.id = m.config_id WHERE m.status = 'ok'),
pairs AS (
  SELECT d.M, d.N, d.K, d.pdl, p.median_ms / d.median_ms AS gain
  FROM m d JOIN m p ON p.base = d.base AND p.pdl = 0 AND d.pdl > 0 AND p.M = d.M AND p.N = d.N AND p.K = d.K)
SELECT s.M || 'x' || s.N || 'x' || s.K AS shape,
       printf('%.2f', (SELECT min(median_ms) FROM m WHERE m.M = s.M AND m.N = s.N AND m.K = s.K AND pdl = 0) * 1e3) AS best0_us,
       printf('%.2f', (SELECT min(median_ms) FROM m WHERE m.M = s.M AND m.N = s.N AND m.K = s.K AND pdl = 1) * 1e3) AS best1_us,
       printf('%.2f', (SELECT min(median_ms) FROM m WHERE m.M = s.M AND m.N = s.N AND m.K = s.K AND pdl = 2) * 1e3) AS best2_us,
       (SELECT count(*) FROM pairs q WHERE q.M = s.M AND q.N = s.N AND q.K = s.K AND q.pdl = 1) AS pairs1,
       (SELECT printf('%.3f [%.3f, %.3f]', avg(gain), min(gain), max(gain)) FROM pairs q WHERE q.M = s.M AND q.N = s.N AND q.K = s.K AND q.pdl = 1) AS gain1,
       (SELECT count(*) FROM pairs q WHERE q.M = s.M AND q.N = s.N AND q.K = s.K AND q.pdl = 2) AS pairs2,
       (SELECT printf('%.3f [%.3f, %.3f]', avg(gain), min(gain), max(gain)) FROM pairs q WHERE q.M = s.M AND q.N = s.N AND q.K = s.K AND q.pdl = 2) AS gain2
FROM (SELECT DISTINCT M, N, K FROM m) s ORDER BY s.M * s.N * s.K;
