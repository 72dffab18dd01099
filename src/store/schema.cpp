// The results database's schema. The SQL comments are the column documentation: `mpgemm-query --schema` prints
// this text and SQLite keeps it in sqlite_schema, so `.schema` in the sqlite3 shell shows it too.
// Tables are STRICT (SQLite >= 3.37) so a value of the wrong type is refused instead of stored.
#include "store/schema.hpp"

#include <array>

#include <fmt/format.h>

namespace mpgemm {

namespace {

constexpr std::string_view kVersion1 = R"sql(
-- One invocation of a tool that records results (mpgemm-tune).
CREATE TABLE runs (
  id              INTEGER PRIMARY KEY,
  started_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),  -- UTC, ISO-8601
  ended_at        TEXT,     -- UTC, ISO-8601; NULL while running or when the process died
  status          TEXT NOT NULL DEFAULT 'running'
                  CHECK (status IN ('running', 'finished', 'interrupted', 'failed')),
  tool_version    TEXT NOT NULL,  -- mpgemm version, e.g. '0.1.0'
  git_sha         TEXT NOT NULL,  -- mpgemm's build checkout, '-dirty' suffix when it had local changes
  argv            TEXT NOT NULL CHECK (json_valid(argv) AND json_type(argv) = 'array'),  -- JSON array of strings
  mode            TEXT NOT NULL CHECK (mode IN ('compile-only', 'gpu', 'replay')),
  space_path      TEXT,     -- search-space file as given on the command line
  space_hash      TEXT,     -- hash of the search-space file's content
  hostname        TEXT,
  device_name     TEXT,     -- e.g. 'NVIDIA H200'; NULL when no GPU was used
  device_cc       TEXT,     -- compute capability, e.g. 'sm_90'
  sm_count        INTEGER,  -- multiprocessors on the device
  driver_version  TEXT,     -- CUDA driver version, e.g. '13.0'
  runtime_version TEXT,     -- CUDA runtime version
  nvrtc_version   TEXT,
  cublas_version  TEXT,
  notes           TEXT      -- free text from the user
) STRICT;

-- A kernel configuration: one point of a family's search space. Shared by every run that meets it.
CREATE TABLE configs (
  id          INTEGER PRIMARY KEY,
  family      TEXT NOT NULL,  -- kernel family, e.g. 'wmma'
  name        TEXT NOT NULL,  -- procedural name built from every parameter, e.g. 'wmma_cp_async_bm128_bn64_bk32_s2'
  params      TEXT NOT NULL CHECK (json_valid(params) AND json_type(params) = 'object'),  -- {"BM": 128, ...}
  source_hash TEXT NOT NULL,  -- hash of the generated kernel source: a changed kernel is a new config row
  alias       TEXT,           -- the space's name for a named point, e.g. 'wmma_cp_async'; NULL otherwise
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (family, name, source_hash)
) STRICT;
CREATE INDEX configs_by_name ON configs (name);

-- One NVRTC compilation of a config for an arch, with ptxas's resource report. Resource columns are NULL when
-- the report did not say.
CREATE TABLE compilations (
  id                INTEGER PRIMARY KEY,
  config_id         INTEGER NOT NULL REFERENCES configs (id),
  run_id            INTEGER NOT NULL REFERENCES runs (id),  -- the run that compiled it first
  arch              TEXT NOT NULL,     -- target, e.g. 'sm_90a'
  compile_key       TEXT NOT NULL,     -- hash of source, NVRTC options, arch and NVRTC version
  status            TEXT NOT NULL CHECK (status IN ('ok', 'compile_failed')),
  registers         INTEGER,           -- per thread
  shared_bytes      INTEGER,           -- static shared memory per block (bytes), from ptxas
  dynamic_shared_bytes INTEGER,        -- dynamic shared memory per block the family launches it with (bytes)
  spill_store_bytes INTEGER,           -- bytes
  spill_load_bytes  INTEGER,           -- bytes
  stack_bytes       INTEGER,           -- stack frame per thread (bytes)
  compile_ms        REAL NOT NULL,     -- wall time of the NVRTC compile and cubin fetch (ms)
  log               TEXT NOT NULL,     -- NVRTC program log: the ptxas -v report or the errors
  created_at        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (config_id, arch, compile_key)
) STRICT;
CREATE INDEX compilations_by_run ON compilations (run_id);

-- cuBLAS (the reference) timed on one shape: what measurements are compared against.
CREATE TABLE cublas_timings (
  id           INTEGER PRIMARY KEY,
  run_id       INTEGER NOT NULL REFERENCES runs (id),
  device_name  TEXT NOT NULL,
  device_cc    TEXT NOT NULL,        -- e.g. 'sm_90'
  M            INTEGER NOT NULL CHECK (M > 0),  -- rows of A and C
  N            INTEGER NOT NULL CHECK (N > 0),  -- columns of B and C
  K            INTEGER NOT NULL CHECK (K > 0),  -- columns of A, rows of B
  median_ms    REAL NOT NULL,        -- per launch (ms)
  min_ms       REAL NOT NULL,        -- per launch (ms)
  max_ms       REAL NOT NULL,        -- per launch (ms)
  warmup       INTEGER NOT NULL,     -- launches before timing
  runs         INTEGER NOT NULL,     -- timed batches
  iters        INTEGER NOT NULL,     -- launches per batch
  tflops       REAL,                 -- 2*M*N*K / median time (TFLOP/s)
  sm_clock_mhz REAL,                 -- SM clock read while timing (MHz); NULL when unknown
  created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
CREATE INDEX cublas_timings_by_run ON cublas_timings (run_id);
CREATE INDEX cublas_timings_by_shape ON cublas_timings (device_name, M, N, K);

-- The outcome of one candidate on one shape on one device. Timing columns are NULL unless the kernel was timed
-- (status 'ok'); error columns are NULL unless its output was compared with cuBLAS.
CREATE TABLE measurements (
  id              INTEGER PRIMARY KEY,
  run_id          INTEGER NOT NULL REFERENCES runs (id),
  config_id       INTEGER NOT NULL REFERENCES configs (id),
  compilation_id  INTEGER REFERENCES compilations (id),  -- NULL when nothing was compiled (constraint_rejected)
  result_key      TEXT NOT NULL UNIQUE,  -- hash of what determines the result: a resumed run skips known keys
  device_name     TEXT NOT NULL,         -- e.g. 'NVIDIA H200'
  device_cc       TEXT NOT NULL,         -- e.g. 'sm_90'
  arch            TEXT NOT NULL,         -- compiled for, e.g. 'sm_90a'
  M               INTEGER NOT NULL CHECK (M > 0),
  N               INTEGER NOT NULL CHECK (N > 0),
  K               INTEGER NOT NULL CHECK (K > 0),
  status          TEXT NOT NULL CHECK (status IN ('ok', 'compile_failed', 'resources_exceeded', 'launch_failed',
                                                  'runtime_fault', 'timeout', 'incorrect', 'constraint_rejected')),
  median_ms       REAL CHECK (status <> 'ok' OR median_ms IS NOT NULL),  -- per launch (ms)
  min_ms          REAL,     -- per launch (ms)
  max_ms          REAL,     -- per launch (ms)
  warmup          INTEGER,  -- launches before timing
  runs            INTEGER,  -- timed batches
  iters           INTEGER,  -- launches per batch
  tflops          REAL,     -- 2*M*N*K / median time (TFLOP/s)
  max_abs_err     REAL,     -- max |c - ref|
  max_rel_err     REAL,     -- max |c - ref| / |ref| over ref != 0
  bad_count       INTEGER,  -- elements outside atol + rtol*|ref| (NaN included)
  nan_count       INTEGER,  -- elements that are NaN or Inf
  atol            REAL,     -- absolute tolerance used
  rtol            REAL,     -- relative tolerance used
  cublas_id       INTEGER REFERENCES cublas_timings (id),  -- the reference timing compared against
  ratio_to_cublas REAL,     -- cuBLAS median / this median: > 1 means faster than cuBLAS
  sm_clock_mhz    REAL,     -- SM clock read while timing (MHz); NULL when unknown
  message         TEXT NOT NULL DEFAULT '',  -- what happened, for every status other than 'ok'
  created_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
CREATE INDEX measurements_by_run ON measurements (run_id);
CREATE INDEX measurements_by_config ON measurements (config_id, arch, M, N, K);
CREATE INDEX measurements_ok_by_shape ON measurements (device_name, arch, M, N, K, median_ms) WHERE status = 'ok';

-- For each (device, arch, shape): the fastest 'ok' measurement (lowest median; ties to the lowest id).
CREATE VIEW best AS
SELECT m.device_name, m.device_cc, m.arch, m.M, m.N, m.K,
       c.family, c.name AS config_name, c.alias, c.params,
       m.median_ms, m.tflops, m.ratio_to_cublas,
       m.id AS measurement_id, m.config_id, m.run_id, m.created_at
FROM (SELECT *, row_number() OVER (PARTITION BY device_name, arch, M, N, K ORDER BY median_ms, id) AS place
      FROM measurements WHERE status = 'ok') AS m
JOIN configs AS c ON c.id = m.config_id
WHERE m.place = 1;
)sql";

// Version 2: hardware counters from Nsight Compute (tools/profile_layer2.sh), so two configs' counters can be
// compared with `mpgemm-query DB --compare A,B`.
constexpr std::string_view kVersion2 = R"sql(
-- One counter of one profiled kernel launch (ncu --csv), imported by mpgemm-profile.
CREATE TABLE profile_metrics (
  id          INTEGER PRIMARY KEY,
  label       TEXT NOT NULL,     -- what was profiled: a point name, a config name, or 'cublas'
  config_id   INTEGER REFERENCES configs (id),  -- NULL for cuBLAS and for configs not in this database
  kernel      TEXT NOT NULL,     -- the kernel name ncu reported
  device_name TEXT,              -- e.g. 'NVIDIA H200'
  M           INTEGER NOT NULL,
  N           INTEGER NOT NULL,
  K           INTEGER NOT NULL,
  metric      TEXT NOT NULL,     -- ncu metric name, e.g. 'dram__throughput.avg.pct_of_peak_sustained_elapsed'
  unit        TEXT,              -- ncu's unit, e.g. '%', 'sector', 'register/thread'
  value       REAL NOT NULL,
  source_file TEXT,              -- the CSV it came from
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
CREATE INDEX profile_metrics_by_label ON profile_metrics (label, metric);
)sql";

// Version 3: ptxas's diagnostics that mean lost speed (wgmma serialized, setmaxnreg ignored, ...), parsed from
// the log at compile time, so configs that compiled "ok" but run slow can be listed (mpgemm-query DB warnings).
constexpr std::string_view kVersion3 = R"sql(
-- compilations.warnings: ptxas's performance diagnostics of this compilation, a JSON array in log order of
-- {"code": "C7514", "kind": "wgmma_serialized", "message": "Potential Performance Loss: wgmma..."};
-- kind is one of wgmma_serialized, wgmma_wait_injected, wgmma_arrive_injected, setmaxnreg_ignored,
-- other_performance. '[]' when there were none; NULL for compilations recorded before version 3.
ALTER TABLE compilations ADD COLUMN warnings TEXT
  CHECK (warnings IS NULL OR (json_valid(warnings) AND json_type(warnings) = 'array'));
-- compilations.perf_warnings: how many entries warnings has (NULL when warnings is NULL).
ALTER TABLE compilations ADD COLUMN perf_warnings INTEGER
  GENERATED ALWAYS AS (json_array_length(warnings)) VIRTUAL;
)sql";

// Version 4: cuBLASLt as a second reference (its best of its top heuristic algorithms, timed like cuBLAS),
// the ratio of each measurement to it, and the best views with both references' throughput. `best` keeps one
// row per arch; `best_per_shape` lets every family and arch compete for a device and shape (mpgemm-run
// --config best).
constexpr std::string_view kVersion4 = R"sql(
-- cuBLASLt (the second reference) on one shape: up to 8 algorithms from cublasLtMatmulAlgoGetHeuristic, each run
-- once and compared with cuBLAS at the candidates' tolerance, the ones that agree screened and the fastest timed
-- with the candidates' protocol; the fastest is kept. Timing and algorithm columns are NULL when none could be
-- timed (message says why).
CREATE TABLE cublaslt_timings (
  id                  INTEGER PRIMARY KEY,
  run_id              INTEGER NOT NULL REFERENCES runs (id),
  device_name         TEXT NOT NULL,
  device_cc           TEXT NOT NULL,        -- e.g. 'sm_90'
  M                   INTEGER NOT NULL CHECK (M > 0),
  N                   INTEGER NOT NULL CHECK (N > 0),
  K                   INTEGER NOT NULL CHECK (K > 0),
  median_ms           REAL,                 -- per launch (ms), the fastest verified algorithm
  min_ms              REAL,                 -- per launch (ms)
  max_ms              REAL,                 -- per launch (ms)
  warmup              INTEGER,              -- launches before timing
  runs                INTEGER,              -- timed batches
  iters               INTEGER,              -- launches per batch
  tflops              REAL,                 -- 2*M*N*K / median time (TFLOP/s)
  sm_clock_mhz        REAL,                 -- SM clock read while timing (MHz); NULL when unknown
  heuristics_returned INTEGER NOT NULL,     -- algorithms the heuristic returned (at most 8)
  heuristics_valid    INTEGER NOT NULL,     -- of those, how many ran and agreed with cuBLAS (the fastest timed)
  algo                TEXT,                 -- the fastest, in words: 'algo 66 tile 24 stages 35 splitk 1 ...'
  algo_id             INTEGER,              -- CUBLASLT_ALGO_CONFIG_ID
  tile_id             INTEGER,              -- cublasLtMatmulTile_t (cublasLt.h), e.g. 24 = 256x128
  stages_id           INTEGER,              -- cublasLtMatmulStages_t
  splitk              INTEGER,              -- K splits (1: none)
  reduction_scheme    INTEGER,              -- cublasLtReductionScheme_t
  swizzle             INTEGER,              -- CTA swizzling (0 or 1)
  custom_option       INTEGER,
  inner_shape_id      INTEGER,              -- cublasLtMatmulInnerShape_t
  cluster_shape_id    INTEGER,              -- cublasLtClusterShape_t
  workspace_bytes     INTEGER,              -- workspace the algorithm used (bytes)
  waves               REAL,                 -- the heuristic's waves count
  max_abs_err         REAL,                 -- the fastest's max |c - ref| against cuBLAS
  max_rel_err         REAL,                 -- max |c - ref| / |ref| over ref != 0
  atol                REAL,                 -- absolute tolerance used
  rtol                REAL,                 -- relative tolerance used
  message             TEXT NOT NULL DEFAULT '',  -- why there is no timing, or which algorithms were left out
  created_at          TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  CHECK ((median_ms IS NULL) = (algo_id IS NULL))
) STRICT;
CREATE INDEX cublaslt_timings_by_run ON cublaslt_timings (run_id);
CREATE INDEX cublaslt_timings_by_shape ON cublaslt_timings (device_name, M, N, K);

-- The cuBLASLt timing compared against (NULL when cuBLASLt was skipped or could not be timed), and
-- cuBLASLt median / this median: > 1 means faster than cuBLASLt's best.
ALTER TABLE measurements ADD COLUMN cublaslt_id INTEGER REFERENCES cublaslt_timings (id);
ALTER TABLE measurements ADD COLUMN ratio_to_cublaslt REAL;

-- For each (device, arch, shape): the fastest 'ok' measurement, with both references' throughput.
DROP VIEW best;
CREATE VIEW best AS
SELECT m.device_name, m.device_cc, m.arch, m.M, m.N, m.K,
       c.family, c.name AS config_name, c.alias, c.params,
       m.median_ms, m.tflops, ct.tflops AS cublas_tflops, lt.tflops AS cublaslt_tflops,
       m.ratio_to_cublas, m.ratio_to_cublaslt, lt.algo AS cublaslt_algo,
       m.id AS measurement_id, m.config_id, m.run_id, m.created_at
FROM (SELECT *, row_number() OVER (PARTITION BY device_name, arch, M, N, K ORDER BY median_ms, id) AS place
      FROM measurements WHERE status = 'ok') AS m
JOIN configs AS c ON c.id = m.config_id
LEFT JOIN cublas_timings AS ct ON ct.id = m.cublas_id
LEFT JOIN cublaslt_timings AS lt ON lt.id = m.cublaslt_id
WHERE m.place = 1;

-- For each (device, shape): the fastest 'ok' measurement of any family and arch (sm_90 and sm_90a compete).
CREATE VIEW best_per_shape AS
SELECT m.device_name, m.device_cc, m.arch, m.M, m.N, m.K,
       c.family, c.name AS config_name, c.alias, c.params,
       m.median_ms, m.tflops, ct.tflops AS cublas_tflops, lt.tflops AS cublaslt_tflops,
       m.ratio_to_cublas, m.ratio_to_cublaslt, lt.algo AS cublaslt_algo,
       m.id AS measurement_id, m.config_id, m.run_id, m.created_at
FROM (SELECT *, row_number() OVER (PARTITION BY device_name, M, N, K ORDER BY median_ms, id) AS place
      FROM measurements WHERE status = 'ok') AS m
JOIN configs AS c ON c.id = m.config_id
LEFT JOIN cublas_timings AS ct ON ct.id = m.cublas_id
LEFT JOIN cublaslt_timings AS lt ON lt.id = m.cublaslt_id
WHERE m.place = 1;
)sql";

// Version 5: the process of each run, so that the next run can tell a dead run from a live one: a run left
// 'running' by a process that died (kill -9, a crash) is marked 'interrupted' when the next run on the
// database starts.
constexpr std::string_view kVersion5 = R"sql(
-- runs.pid: the process that recorded the run, on runs.hostname. While it lives it holds an open-file-description
-- lock on byte 2^60 + id of "<db>-claims". A run still 'running' whose host is this one, whose process is gone and
-- whose lock is free is marked 'interrupted' by the next run that starts (ended_at stays NULL: when it died is not
-- known). NULL for runs recorded before version 5, which are left as they are.
ALTER TABLE runs ADD COLUMN pid INTEGER;
)sql";

// Version 6: the quick screen's outcome, 'screened_out' (a config whose first launches were far slower than the
// best so far for its shape, not timed through the full protocol), 'pruned' (compiled, but its resources make
// timing it pointless: the pipeline's, issue 8), and how each timing was taken: the L2 mode and
// the noise of its batches. SQLite cannot change a CHECK, so measurements is rebuilt: same ids and rows, the
// indexes and the views (unchanged from version 4) made again on the new table.
constexpr std::string_view kVersion6 = R"sql(
-- cublas_timings.l2: the L2 mode cuBLAS was timed in, the candidates' ('warm' or 'cold'); NULL before version 6
-- (all warm).
ALTER TABLE cublas_timings ADD COLUMN l2 TEXT CHECK (l2 IN ('warm', 'cold'));

DROP VIEW best;
DROP VIEW best_per_shape;
-- The outcome of one candidate on one shape on one device. Timing columns are NULL unless the kernel was timed
-- (status 'ok', or 'screened_out': then they hold its screening launches, warmup 0, runs = launches, iters 1, and
-- the ratios are NULL); error columns are NULL unless its output was compared with cuBLAS.
CREATE TABLE measurements_v6 (
  id              INTEGER PRIMARY KEY,
  run_id          INTEGER NOT NULL REFERENCES runs (id),
  config_id       INTEGER NOT NULL REFERENCES configs (id),
  compilation_id  INTEGER REFERENCES compilations (id),  -- NULL when nothing was compiled (constraint_rejected)
  result_key      TEXT NOT NULL UNIQUE,  -- hash of what determines the result: a resumed run skips known keys
  device_name     TEXT NOT NULL,         -- e.g. 'NVIDIA H200'
  device_cc       TEXT NOT NULL,         -- e.g. 'sm_90'
  arch            TEXT NOT NULL,         -- compiled for, e.g. 'sm_90a'
  M               INTEGER NOT NULL CHECK (M > 0),
  N               INTEGER NOT NULL CHECK (N > 0),
  K               INTEGER NOT NULL CHECK (K > 0),
  status          TEXT NOT NULL CHECK (status IN ('ok', 'compile_failed', 'resources_exceeded', 'launch_failed',
                                                  'runtime_fault', 'timeout', 'incorrect', 'constraint_rejected',
                                                  'pruned', 'screened_out')),
  median_ms       REAL CHECK (status NOT IN ('ok', 'screened_out') OR median_ms IS NOT NULL),  -- per launch (ms)
  min_ms          REAL,     -- per launch (ms)
  max_ms          REAL,     -- per launch (ms)
  warmup          INTEGER,  -- launches before timing
  runs            INTEGER,  -- timed batches (with a noise target: as many as it took)
  iters           INTEGER,  -- launches per batch
  tflops          REAL,     -- 2*M*N*K / median time (TFLOP/s)
  max_abs_err     REAL,     -- max |c - ref|
  max_rel_err     REAL,     -- max |c - ref| / |ref| over ref != 0
  bad_count       INTEGER,  -- elements outside atol + rtol*|ref| (NaN included)
  nan_count       INTEGER,  -- elements that are NaN or Inf
  atol            REAL,     -- absolute tolerance used
  rtol            REAL,     -- relative tolerance used
  cublas_id       INTEGER REFERENCES cublas_timings (id),  -- the reference timing compared against
  ratio_to_cublas REAL,     -- cuBLAS median / this median: > 1 means faster than cuBLAS
  sm_clock_mhz    REAL,     -- SM clock read while timing (MHz); NULL when unknown
  message         TEXT NOT NULL DEFAULT '',  -- what happened, for every status other than 'ok'
  created_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  cublaslt_id     INTEGER REFERENCES cublaslt_timings (id),  -- the cuBLASLt timing compared against
  ratio_to_cublaslt REAL,   -- cuBLASLt median / this median: > 1 means faster than cuBLASLt's best
  l2              TEXT CHECK (l2 IN ('warm', 'cold')),  -- L2 at each timed launch; NULL when not timed
  noise           REAL,     -- sample stdev / mean of the batch times (unitless); NULL when not timed or before v6
  noise_target    REAL,     -- the noise target batches were taken to (unitless); NULL: a fixed number of batches
  CHECK (status <> 'screened_out' OR (ratio_to_cublas IS NULL AND ratio_to_cublaslt IS NULL))
) STRICT;
INSERT INTO measurements_v6 (id, run_id, config_id, compilation_id, result_key, device_name, device_cc, arch, M, N,
                             K, status, median_ms, min_ms, max_ms, warmup, runs, iters, tflops, max_abs_err,
                             max_rel_err, bad_count, nan_count, atol, rtol, cublas_id, ratio_to_cublas,
                             sm_clock_mhz, message, created_at, cublaslt_id, ratio_to_cublaslt, l2)
SELECT id, run_id, config_id, compilation_id, result_key, device_name, device_cc, arch, M, N, K, status,
       median_ms, min_ms, max_ms, warmup, runs, iters, tflops, max_abs_err, max_rel_err, bad_count, nan_count,
       atol, rtol, cublas_id, ratio_to_cublas, sm_clock_mhz, message, created_at, cublaslt_id, ratio_to_cublaslt,
       CASE WHEN median_ms IS NULL THEN NULL ELSE 'warm' END  -- every earlier timing was warm
FROM measurements;
DROP TABLE measurements;
ALTER TABLE measurements_v6 RENAME TO measurements;
CREATE INDEX measurements_by_run ON measurements (run_id);
CREATE INDEX measurements_by_config ON measurements (config_id, arch, M, N, K);
CREATE INDEX measurements_ok_by_shape ON measurements (device_name, arch, M, N, K, median_ms) WHERE status = 'ok';

-- For each (device, arch, shape): the fastest 'ok' measurement, with both references' throughput. Screened-out
-- configs never win: their times are of a few screening launches.
CREATE VIEW best AS
SELECT m.device_name, m.device_cc, m.arch, m.M, m.N, m.K,
       c.family, c.name AS config_name, c.alias, c.params,
       m.median_ms, m.tflops, ct.tflops AS cublas_tflops, lt.tflops AS cublaslt_tflops,
       m.ratio_to_cublas, m.ratio_to_cublaslt, lt.algo AS cublaslt_algo,
       m.id AS measurement_id, m.config_id, m.run_id, m.created_at
FROM (SELECT *, row_number() OVER (PARTITION BY device_name, arch, M, N, K ORDER BY median_ms, id) AS place
      FROM measurements WHERE status = 'ok') AS m
JOIN configs AS c ON c.id = m.config_id
LEFT JOIN cublas_timings AS ct ON ct.id = m.cublas_id
LEFT JOIN cublaslt_timings AS lt ON lt.id = m.cublaslt_id
WHERE m.place = 1;

-- For each (device, shape): the fastest 'ok' measurement of any family and arch (sm_90 and sm_90a compete).
CREATE VIEW best_per_shape AS
SELECT m.device_name, m.device_cc, m.arch, m.M, m.N, m.K,
       c.family, c.name AS config_name, c.alias, c.params,
       m.median_ms, m.tflops, ct.tflops AS cublas_tflops, lt.tflops AS cublaslt_tflops,
       m.ratio_to_cublas, m.ratio_to_cublaslt, lt.algo AS cublaslt_algo,
       m.id AS measurement_id, m.config_id, m.run_id, m.created_at
FROM (SELECT *, row_number() OVER (PARTITION BY device_name, M, N, K ORDER BY median_ms, id) AS place
      FROM measurements WHERE status = 'ok') AS m
JOIN configs AS c ON c.id = m.config_id
LEFT JOIN cublas_timings AS ct ON ct.id = m.cublas_id
LEFT JOIN cublaslt_timings AS lt ON lt.id = m.cublaslt_id
WHERE m.place = 1;
)sql";

// Version 7: the top-K re-rank. Before a winner is declared for a shape, the K fastest verified configs are
// re-timed side by side with cuBLAS in rotating rounds (worker time_interleaved); every batch is kept, and the
// winner is chosen by a fixed rule over those samples (tune/rerank.hpp), so the same database names the same
// winner every time.
constexpr std::string_view kVersion7 = R"sql(
-- One re-rank of one shape on one device.
CREATE TABLE reranks (
  id               INTEGER PRIMARY KEY,
  run_id           INTEGER NOT NULL REFERENCES runs (id),
  device_name      TEXT NOT NULL,                      -- e.g. 'NVIDIA H200'
  device_cc        TEXT NOT NULL,                      -- e.g. 'sm_90'
  M                INTEGER NOT NULL CHECK (M > 0),
  N                INTEGER NOT NULL CHECK (N > 0),
  K                INTEGER NOT NULL CHECK (K > 0),
  top_k            INTEGER NOT NULL CHECK (top_k > 0),    -- configs asked for; fewer when the shape has fewer
  warmup           INTEGER NOT NULL CHECK (warmup >= 0),  -- launches of each entry before the rounds
  rounds           INTEGER NOT NULL CHECK (rounds > 0),   -- timed batches of each entry, one per round
  iters            INTEGER NOT NULL CHECK (iters > 0),    -- launches per batch
  tie_band         REAL NOT NULL CHECK (tie_band >= 0),   -- configs whose median is within (1 + tie_band) x the
                                                          -- fastest median tie with it (0.01: 1%)
  rule             TEXT NOT NULL,  -- the winner rule applied, by name (tune/rerank.hpp), e.g. 'tie_band_then_...'
  winner_config_id INTEGER REFERENCES configs (id),       -- NULL when no config was timed
  cublas_median_ms REAL,           -- cuBLAS's median over the same rounds (ms)
  sm_clock_mhz     REAL,           -- SM clock read after the rounds (MHz); NULL when unknown
  created_at       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
CREATE INDEX reranks_by_shape ON reranks (device_name, M, N, K);

-- One config of a re-rank: why it was in the top K, how it ended, the summary of its samples and the facts the
-- tie-break reads. Timing columns are NULL when it has no samples.
CREATE TABLE rerank_configs (
  rerank_id       INTEGER NOT NULL REFERENCES reranks (id),
  config_id       INTEGER NOT NULL REFERENCES configs (id),
  arch            TEXT NOT NULL,     -- compiled for, e.g. 'sm_90a'
  prior_median_ms REAL NOT NULL,     -- its fastest stored median, which put it in the top K (ms)
  status          TEXT NOT NULL CHECK (status IN ('ok', 'compile_failed', 'resources_exceeded', 'launch_failed',
                                                  'runtime_fault', 'timeout', 'incorrect', 'constraint_rejected')),
  samples         INTEGER NOT NULL,  -- batches timed
  median_ms       REAL,              -- per launch, over its samples (ms)
  min_ms          REAL,              -- per launch (ms)
  max_ms          REAL,              -- per launch (ms)
  ratio_to_cublas REAL,              -- cuBLAS median / this median, both from these rounds: > 1 is faster
  registers       INTEGER,           -- per thread (ptxas); NULL when unknown
  threads         INTEGER,           -- per block, from the launch geometry
  smem_bytes      INTEGER,           -- static + dynamic shared memory per block (bytes); NULL when unknown
  tied            INTEGER NOT NULL CHECK (tied IN (0, 1)),  -- 1: within the tie band of the fastest median
  place           INTEGER,           -- 1 = the winner, in the rule's order; NULL when not timed ok
  message         TEXT NOT NULL DEFAULT '',  -- why it was dropped, for every status other than 'ok'
  PRIMARY KEY (rerank_id, config_id, arch)
) STRICT;

-- Every timed batch of a re-rank, cuBLAS's included.
CREATE TABLE rerank_samples (
  rerank_id INTEGER NOT NULL REFERENCES reranks (id),
  config_id INTEGER REFERENCES configs (id),  -- NULL: cuBLAS
  arch      TEXT,                             -- compiled for; NULL for cuBLAS
  round     INTEGER NOT NULL CHECK (round >= 0),     -- 0-based
  position  INTEGER NOT NULL CHECK (position >= 0),  -- 0-based place in its round (round r starts at entry r mod
                                                     -- (K + 1), cuBLAS last, so positions rotate)
  ms        REAL NOT NULL CHECK (ms >= 0),           -- per launch: the batch's time / iters (ms)
  CHECK ((config_id IS NULL) = (arch IS NULL))
) STRICT;
CREATE INDEX rerank_samples_by_rerank ON rerank_samples (rerank_id, config_id);

-- For each (device, shape): the winner of its latest re-rank that named one (what mpgemm-run --config best takes
-- before best_per_shape), with how many configs tied with it.
CREATE VIEW winners AS
SELECT r.device_name, r.device_cc, rc.arch, r.M, r.N, r.K,
       c.family, c.name AS config_name, c.alias, c.params,
       rc.median_ms, rc.ratio_to_cublas, r.cublas_median_ms,
       (SELECT count(*) FROM rerank_configs WHERE rerank_id = r.id AND tied = 1) AS tied,
       r.top_k, r.rounds, r.iters, r.tie_band, r.rule,
       r.id AS rerank_id, rc.config_id, r.run_id, r.created_at
FROM (SELECT *, row_number() OVER (PARTITION BY device_name, M, N, K ORDER BY id DESC) AS place
      FROM reranks WHERE winner_config_id IS NOT NULL) AS r
JOIN rerank_configs AS rc ON rc.rerank_id = r.id AND rc.place = 1
JOIN configs AS c ON c.id = rc.config_id
WHERE r.place = 1;
)sql";

// Version 8: scale-out (issue 10). Which GPU of a host took each timing (a run may measure on several GPUs of one
// model), the shard of the work a run took, and a content identity for every run, so that databases of shards
// merge by content (mpgemm-query merge): a run met twice is the same run.
constexpr std::string_view kVersion8 = R"sql(
-- runs.uid: the run's identity across databases (32 hex digits, random when the run starts). Runs recorded before
-- version 8 get a deterministic one from their start time, host, process and id, so copies of one database
-- migrated apart still agree.
ALTER TABLE runs ADD COLUMN uid TEXT;
UPDATE runs SET uid = 'v7-' || started_at || '-' || coalesce(hostname, '') || '-' || coalesce(pid, '') || '-' || id;
CREATE UNIQUE INDEX runs_by_uid ON runs (uid);
-- runs.shard: 'I/N' when the run took shard I (1-based) of N of its (config, shape) pairs (--shard); NULL: all.
ALTER TABLE runs ADD COLUMN shard TEXT;
-- runs.gpus: the GPUs it measured on, a JSON array of {"ordinal": 0, "uuid": "GPU-...", "name": "NVIDIA H200"};
-- NULL when no GPU was used or before version 8.
ALTER TABLE runs ADD COLUMN gpus TEXT CHECK (gpus IS NULL OR (json_valid(gpus) AND json_type(gpus) = 'array'));
-- gpu_uuid / gpu_ordinal: the GPU that took this timing (cudaDeviceProp::uuid as 'GPU-xxxxxxxx-...', and its CUDA
-- ordinal in the measuring process). NULL when nothing ran on a GPU, in replays, and before version 8.
ALTER TABLE measurements ADD COLUMN gpu_uuid TEXT;
ALTER TABLE measurements ADD COLUMN gpu_ordinal INTEGER;
ALTER TABLE cublas_timings ADD COLUMN gpu_uuid TEXT;
ALTER TABLE cublas_timings ADD COLUMN gpu_ordinal INTEGER;
ALTER TABLE cublaslt_timings ADD COLUMN gpu_uuid TEXT;
ALTER TABLE cublaslt_timings ADD COLUMN gpu_ordinal INTEGER;
ALTER TABLE reranks ADD COLUMN gpu_uuid TEXT;
ALTER TABLE reranks ADD COLUMN gpu_ordinal INTEGER;
)sql";

// Version 9: cuBLASLt in the re-rank's rounds. The re-rank timed its configs beside cuBLAS only, so a winner's ratio
// to cuBLASLt had to be scaled by the two references' speeds at the shape's start, a timing one outlier can move
// by 25%; now cuBLASLt, running the algorithm that won its best-of-heuristics at the shape's start, is one more
// entry of the rounds (position rotation over K + 2 entries) and every config's ratio to it comes from the same
// rounds. The winners view gains both.
constexpr std::string_view kVersion9 = R"sql(
-- reranks.cublaslt_median_ms: cuBLASLt's median over the same rounds (ms), running the algorithm its best-of-
-- heuristics chose at the shape's start; NULL when it was not in the rounds (--no-cublaslt, none of its algorithms
-- verified) and before version 9.
ALTER TABLE reranks ADD COLUMN cublaslt_median_ms REAL;
-- rerank_configs.ratio_to_cublaslt: cuBLASLt median / this median, both from these rounds: > 1 is faster; NULL
-- when either is missing.
ALTER TABLE rerank_configs ADD COLUMN ratio_to_cublaslt REAL;
-- rerank_samples.reference: which reference a batch with a NULL config is, 'cublas' or 'cublaslt'; NULL for a
-- config's batch. With cuBLASLt in the rounds a round has K + 2 entries (round r starts at entry r mod (K + 2):
-- the configs, cuBLAS, then cuBLASLt).
ALTER TABLE rerank_samples ADD COLUMN reference TEXT
  CHECK (reference IS NULL OR (reference IN ('cublas', 'cublaslt') AND config_id IS NULL));
UPDATE rerank_samples SET reference = 'cublas' WHERE config_id IS NULL;

DROP VIEW winners;
-- For each (device, shape): the winner of its latest re-rank that named one (what mpgemm-run --config best takes
-- before best_per_shape), with how many configs tied with it and both references over the same rounds.
CREATE VIEW winners AS
SELECT r.device_name, r.device_cc, rc.arch, r.M, r.N, r.K,
       c.family, c.name AS config_name, c.alias, c.params,
       rc.median_ms, rc.ratio_to_cublas, r.cublas_median_ms,
       (SELECT count(*) FROM rerank_configs WHERE rerank_id = r.id AND tied = 1) AS tied,
       r.top_k, r.rounds, r.iters, r.tie_band, r.rule,
       r.id AS rerank_id, rc.config_id, r.run_id, r.created_at,
       rc.ratio_to_cublaslt, r.cublaslt_median_ms
FROM (SELECT *, row_number() OVER (PARTITION BY device_name, M, N, K ORDER BY id DESC) AS place
      FROM reranks WHERE winner_config_id IS NOT NULL) AS r
JOIN rerank_configs AS rc ON rc.rerank_id = r.id AND rc.place = 1
JOIN configs AS c ON c.id = rc.config_id
WHERE r.place = 1;
)sql";

// Version 10: the re-rank's batches may be graph replays. A batch of microsecond launches enqueued call by call from
// the host runs at the host's pace when a call costs more host time than its kernel takes (cublasGemmEx does, at
// 512^3 on the H200), so the references' medians moved 30-45% between runs; a batch captured once as a CUDA graph
// and replayed runs at the GPU's pace for every entry.
constexpr std::string_view kVersion10 = R"sql(
-- reranks.batches: how each batch of the rounds was enqueued: 'stream' (iters calls between two events) or 'graph'
-- (one replay of the batch captured as a CUDA graph, every entry alike); NULL before version 10 (stream).
ALTER TABLE reranks ADD COLUMN batches TEXT CHECK (batches IS NULL OR batches IN ('stream', 'graph'));
-- (No table changes with it: from measure protocol 3 on, a 'screened_out' measurement timed with warm L2 holds its
-- screening launches as one batch after as many untimed ones: warmup = iters = launches, runs 1; with cold L2 as
-- before, one by one.)
)sql";

// Version 11: the tuner's own batches may be graph replays too (mpgemm-tune --graphs), not only the re-rank's: the
// first pass decides which configs reach the re-rank, and at microsecond shapes a host-paced first pass ranks the
// host's cost per call, not the kernels.
constexpr std::string_view kVersion11 = R"sql(
-- batches: how each timed warm batch was enqueued: 'stream' (iters calls between two events) or 'graph' (one replay
-- of the batch captured as a CUDA graph); 'stream' also when graphs were asked for and the calls could not be
-- captured. NULL when not timed, and before version 11 (stream).
ALTER TABLE measurements ADD COLUMN batches TEXT CHECK (batches IS NULL OR batches IN ('stream', 'graph'));
ALTER TABLE cublas_timings ADD COLUMN batches TEXT CHECK (batches IS NULL OR batches IN ('stream', 'graph'));
ALTER TABLE cublaslt_timings ADD COLUMN batches TEXT CHECK (batches IS NULL OR batches IN ('stream', 'graph'));
)sql";

// Version 12: the re-rank may settle the card before its timed rounds. On the H200 the first ~0.1-0.3 s of GEMM
// batches run near the top clock, then the power cap holds the SM clock near 1.4 GHz; the rounds timed in between
// ranked some configs by how they run on a cool card (at 4096^3 a pingpong config that leads the capped rounds by
// 5% trailed the cooperative ones in the first round).
constexpr std::string_view kVersion12 = R"sql(
-- reranks.settled_ms: wall time of the untimed rounds (the same batches, ordered likewise) run before the
-- timed ones (ms); 0: none; NULL before version 12 (none).
-- (No table change with it: from worker protocol 10 on the rounds follow a Williams square, so
-- rerank_samples.position no longer rotates as the version 7 and 9 comments say; in a rotation cuBLAS almost always
-- ran right after the last-ranked kernel.)
ALTER TABLE reranks ADD COLUMN settled_ms REAL CHECK (settled_ms IS NULL OR settled_ms >= 0);
)sql";

// Version 13: where a tuning run's time went (issue 44). A run that timed on the GPU 7% of its wall time blamed
// compiling in its hint while its coordinator paced it; the accounts that show which are now kept with the run.
constexpr std::string_view kVersion13 = R"sql(
-- runs.time_accounts: where the run's time went, a JSON object: "coordinator" and each of "lanes" as {"owner",
-- "wall_s", "phases": {phase: seconds}} (the phases add up to wall_s; docs/tuning.md names them), and "workers",
-- each GPU worker's own account at the run's end ({"measurements", "shapes", "timing_s", "verifying_s", ...}:
-- worker/phase_totals.hpp). NULL for a compile-only run, a run that ended in an error, and before version 13.
ALTER TABLE runs ADD COLUMN time_accounts TEXT
  CHECK (time_accounts IS NULL OR (json_valid(time_accounts) AND json_type(time_accounts) = 'object'));
)sql";

// Version 14: the problem kind (issue 58). Until now every row was one problem, C (FP32) = A (FP16, M x K row-major)
// x B (FP16, K x N row-major), written only in comments; a linear layer's GEMM (B stored N x K, BF16, a 16-bit
// output, beta) is another problem at the same M, N, K, and its winner must never stand for this one's. Every table
// keyed by a shape gains the kind, and every index, view and PARTITION BY that is per shape is per (problem, shape).
constexpr std::string_view kVersion14 = R"sql(
-- problem: the kind of GEMM the row is of (common/problem_kind.hpp, ProblemKind::name()): A's layout (mk: stored
-- M x K row-major; km: K x M), B's (kn: K x N; nk: N x K), the input type (A and B), the output type (C and D), and
-- '_beta' when C is read, e.g. 'mk_kn_fp16_fp32' (today's problem, the default), 'mk_nk_bf16_bf16',
-- 'km_kn_fp16_fp32_beta'. Every row written before version 14 is the default kind. The CHECK holds the layouts to
-- the four there are and the rest to lowercase letters, digits and '_' at most 64 characters long (room for the
-- next issue's epilogues without another migration); the readers parse the whole name and refuse a row whose name
-- does not read.
ALTER TABLE measurements ADD COLUMN problem TEXT NOT NULL DEFAULT 'mk_kn_fp16_fp32'
  CHECK (length(problem) <= 64 AND substr(problem, 1, 6) IN ('mk_kn_', 'mk_nk_', 'km_kn_', 'km_nk_')
         AND problem NOT GLOB '*[^a-z0-9_]*');
ALTER TABLE cublas_timings ADD COLUMN problem TEXT NOT NULL DEFAULT 'mk_kn_fp16_fp32'
  CHECK (length(problem) <= 64 AND substr(problem, 1, 6) IN ('mk_kn_', 'mk_nk_', 'km_kn_', 'km_nk_')
         AND problem NOT GLOB '*[^a-z0-9_]*');
ALTER TABLE cublaslt_timings ADD COLUMN problem TEXT NOT NULL DEFAULT 'mk_kn_fp16_fp32'
  CHECK (length(problem) <= 64 AND substr(problem, 1, 6) IN ('mk_kn_', 'mk_nk_', 'km_kn_', 'km_nk_')
         AND problem NOT GLOB '*[^a-z0-9_]*');
ALTER TABLE reranks ADD COLUMN problem TEXT NOT NULL DEFAULT 'mk_kn_fp16_fp32'
  CHECK (length(problem) <= 64 AND substr(problem, 1, 6) IN ('mk_kn_', 'mk_nk_', 'km_kn_', 'km_nk_')
         AND problem NOT GLOB '*[^a-z0-9_]*');

-- The per-shape indexes, per (problem, shape): a lookup of a shape's references, measurements or re-ranks names
-- its kind.
DROP INDEX cublas_timings_by_shape;
CREATE INDEX cublas_timings_by_shape ON cublas_timings (device_name, problem, M, N, K);
DROP INDEX cublaslt_timings_by_shape;
CREATE INDEX cublaslt_timings_by_shape ON cublaslt_timings (device_name, problem, M, N, K);
DROP INDEX measurements_by_config;
CREATE INDEX measurements_by_config ON measurements (config_id, arch, problem, M, N, K);
DROP INDEX measurements_ok_by_shape;
CREATE INDEX measurements_ok_by_shape ON measurements (device_name, problem, arch, M, N, K, median_ms)
  WHERE status = 'ok';
DROP INDEX reranks_by_shape;
CREATE INDEX reranks_by_shape ON reranks (device_name, problem, M, N, K);

DROP VIEW best;
DROP VIEW best_per_shape;
DROP VIEW winners;
-- For each (device, arch, problem, shape): the fastest 'ok' measurement, with both references' throughput.
-- Screened-out configs never win: their times are of a few screening launches.
CREATE VIEW best AS
SELECT m.device_name, m.device_cc, m.arch, m.M, m.N, m.K, m.problem,
       c.family, c.name AS config_name, c.alias, c.params,
       m.median_ms, m.tflops, ct.tflops AS cublas_tflops, lt.tflops AS cublaslt_tflops,
       m.ratio_to_cublas, m.ratio_to_cublaslt, lt.algo AS cublaslt_algo,
       m.id AS measurement_id, m.config_id, m.run_id, m.created_at
FROM (SELECT *, row_number() OVER (PARTITION BY device_name, arch, problem, M, N, K ORDER BY median_ms, id) AS place
      FROM measurements WHERE status = 'ok') AS m
JOIN configs AS c ON c.id = m.config_id
LEFT JOIN cublas_timings AS ct ON ct.id = m.cublas_id
LEFT JOIN cublaslt_timings AS lt ON lt.id = m.cublaslt_id
WHERE m.place = 1;

-- For each (device, problem, shape): the fastest 'ok' measurement of any family and arch (sm_90 and sm_90a
-- compete); a kind never competes with another.
CREATE VIEW best_per_shape AS
SELECT m.device_name, m.device_cc, m.arch, m.M, m.N, m.K, m.problem,
       c.family, c.name AS config_name, c.alias, c.params,
       m.median_ms, m.tflops, ct.tflops AS cublas_tflops, lt.tflops AS cublaslt_tflops,
       m.ratio_to_cublas, m.ratio_to_cublaslt, lt.algo AS cublaslt_algo,
       m.id AS measurement_id, m.config_id, m.run_id, m.created_at
FROM (SELECT *, row_number() OVER (PARTITION BY device_name, problem, M, N, K ORDER BY median_ms, id) AS place
      FROM measurements WHERE status = 'ok') AS m
JOIN configs AS c ON c.id = m.config_id
LEFT JOIN cublas_timings AS ct ON ct.id = m.cublas_id
LEFT JOIN cublaslt_timings AS lt ON lt.id = m.cublaslt_id
WHERE m.place = 1;

-- For each (device, problem, shape): the winner of its latest re-rank that named one (what mpgemm-run --config best
-- takes before best_per_shape), with how many configs tied with it and both references over the same rounds.
CREATE VIEW winners AS
SELECT r.device_name, r.device_cc, rc.arch, r.M, r.N, r.K, r.problem,
       c.family, c.name AS config_name, c.alias, c.params,
       rc.median_ms, rc.ratio_to_cublas, r.cublas_median_ms,
       (SELECT count(*) FROM rerank_configs WHERE rerank_id = r.id AND tied = 1) AS tied,
       r.top_k, r.rounds, r.iters, r.tie_band, r.rule,
       r.id AS rerank_id, rc.config_id, r.run_id, r.created_at,
       rc.ratio_to_cublaslt, r.cublaslt_median_ms
FROM (SELECT *, row_number() OVER (PARTITION BY device_name, problem, M, N, K ORDER BY id DESC) AS place
      FROM reranks WHERE winner_config_id IS NOT NULL) AS r
JOIN rerank_configs AS rc ON rc.rerank_id = r.id AND rc.place = 1
JOIN configs AS c ON c.id = rc.config_id
WHERE r.place = 1;
)sql";

constexpr std::array kMigrations{
    store_detail::Migration{1, kVersion1},   store_detail::Migration{2, kVersion2},
    store_detail::Migration{3, kVersion3},   store_detail::Migration{4, kVersion4},
    store_detail::Migration{5, kVersion5},   store_detail::Migration{6, kVersion6},
    store_detail::Migration{7, kVersion7},   store_detail::Migration{8, kVersion8},
    store_detail::Migration{9, kVersion9},   store_detail::Migration{10, kVersion10},
    store_detail::Migration{11, kVersion11}, store_detail::Migration{12, kVersion12},
    store_detail::Migration{13, kVersion13}, store_detail::Migration{14, kVersion14},
};

}  // namespace

int schema_version() {
  return kMigrations.back().version;
}

std::string schema_sql() {
  std::string text;
  for (const auto& m : kMigrations) text += fmt::format("-- schema version {}\n{}\n", m.version, m.sql);
  return text;
}

namespace store_detail {
std::span<const Migration> migrations() {
  return kMigrations;
}
}  // namespace store_detail

}  // namespace mpgemm
