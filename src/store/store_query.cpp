// Read-only queries for mpgemm-query: canned views of the database, and one user SELECT that is refused
// unless it provably only reads.
#include <array>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/refusal.hpp"
#include "store/store_impl.hpp"

namespace mpgemm {

namespace {

// Text columns of canned queries stay one line and short: logs and messages are excerpts.
#define MPGEMM_EXCERPT(col) "substr(replace(replace(" col ", char(13), ''), char(10), ' '), 1, 160)"
// The distinct kinds of a compilation's ptxas performance warnings, in log order, e.g.
// "wgmma_serialized,wgmma_wait_injected"; NULL when it has none (or they were never parsed).
#define MPGEMM_WARNING_KINDS(cp) \
  "(SELECT group_concat(DISTINCT json_extract(value, '$.kind')) FROM json_each(" cp ".warnings))"

struct NamedQuery {
  std::string_view name;
  const char* sql;
  // Its rows are of a problem kind: it shows the column problem and takes the kind to show, or NULL for every kind,
  // as ?1.
  bool per_problem = false;
};

// The condition a per-problem query filters its rows by: ?1 is the kind's name, or NULL for every kind.
#define MPGEMM_OF_PROBLEM(col) "(?1 IS NULL OR " col " = ?1)"

// The SQL is laid out by hand, a clause or a group of columns per line.
// clang-format off
constexpr std::array<NamedQuery, 13> kQueries{{
    {"runs",
     "SELECT r.id, r.started_at, r.ended_at, r.status, r.mode, r.device_name, r.device_cc, r.tool_version, "
     "r.git_sha, (SELECT count(*) FROM compilations WHERE run_id = r.id) AS compilations, "
     "(SELECT count(*) FROM measurements WHERE run_id = r.id) AS measurements, "
     "(SELECT count(*) FROM measurements WHERE run_id = r.id AND status = 'ok') AS ok, "
     "(SELECT count(*) FROM measurements WHERE run_id = r.id AND status = 'screened_out') AS screened_out "
     "FROM runs AS r ORDER BY r.id"},
    // One row per config and arch it was compiled for, with the resources of its latest compilation there.
    {"configs",
     "SELECT c.id, c.family, c.name, c.alias, cp.arch, cp.status AS compile_status, cp.registers, "
     "cp.shared_bytes, cp.dynamic_shared_bytes, cp.spill_store_bytes, cp.spill_load_bytes, cp.perf_warnings, "
     MPGEMM_WARNING_KINDS("cp") " AS warnings, c.source_hash, c.params "
     "FROM configs AS c LEFT JOIN compilations AS cp ON cp.config_id = c.id AND cp.id = "
     "(SELECT max(id) FROM compilations WHERE config_id = c.id AND arch = cp.arch) "
     "ORDER BY c.id, cp.arch"},
    {"compilations",
     "SELECT cp.id, cp.run_id, c.name AS config, cp.arch, cp.status, cp.registers, cp.shared_bytes, "
     "cp.dynamic_shared_bytes, "
     "cp.spill_store_bytes, cp.spill_load_bytes, cp.stack_bytes, cp.perf_warnings, "
     MPGEMM_WARNING_KINDS("cp") " AS warnings, cp.compile_ms, cp.compile_key, cp.created_at "
     "FROM compilations AS cp JOIN configs AS c ON c.id = cp.config_id ORDER BY cp.id"},
    // Compilations that lose speed by ptxas's account: performance warnings or spills. One row per
    // compilation, with the first warning's text; every warning's text is in compilations.warnings.
    {"warnings",
     "SELECT cp.id, cp.run_id, c.name AS config, cp.arch, cp.registers, cp.spill_store_bytes, "
     "cp.spill_load_bytes, cp.perf_warnings, "
     MPGEMM_WARNING_KINDS("cp") " AS warnings, "
     "(SELECT group_concat(DISTINCT json_extract(value, '$.code')) FROM json_each(cp.warnings)) AS codes, "
     MPGEMM_EXCERPT("json_extract(cp.warnings, '$[0].message')") " AS first_message "
     "FROM compilations AS cp JOIN configs AS c ON c.id = cp.config_id "
     "WHERE cp.perf_warnings > 0 OR cp.spill_store_bytes > 0 OR cp.spill_load_bytes > 0 ORDER BY cp.id"},
    {"failures",
     "SELECT * FROM ("
     "SELECT 'compile' AS stage, cp.id, cp.run_id, c.name AS config, cp.arch, NULL AS shape, NULL AS problem, "
     "cp.status, " MPGEMM_EXCERPT("cp.log") " AS detail "
     "FROM compilations AS cp JOIN configs AS c ON c.id = cp.config_id "
     "WHERE cp.status <> 'ok' AND ?1 IS NULL "
     "UNION ALL "
     "SELECT 'measure', m.id, m.run_id, c.name, m.arch, m.M || 'x' || m.N || 'x' || m.K, m.problem, m.status, "
     MPGEMM_EXCERPT("m.message") " FROM measurements AS m JOIN configs AS c ON c.id = m.config_id "
     "WHERE m.status NOT IN ('ok', 'screened_out') AND " MPGEMM_OF_PROBLEM("m.problem") ") "
     "ORDER BY run_id, stage, id", true},
    // Each device's and shape's winner, as mpgemm-run --config best, the export and the library take it
    // (store/shape_winners.hpp): the latest re-rank's winner where the shape was re-ranked, else the first pass's
    // fastest verified config of any family and arch. chosen_by says which; a re-rank winner's TFLOP/s, its
    // references' and its ratios are from the re-rank's rounds. One row per problem kind at a shape: a kind's
    // re-rank never hides another kind's first pass.
    {"best",
     "SELECT b.M, b.N, b.K, b.config_name, b.arch, b.chosen_by, b.tflops, b.cublas_tflops, b.cublaslt_tflops, "
     "b.ratio_to_cublas, b.ratio_to_cublaslt, b.median_ms, b.family, b.alias, b.device_name, b.params, b.problem "
     "FROM ("
     "SELECT w.device_name, w.M, w.N, w.K, w.problem, w.config_name, w.arch, 're-rank' AS chosen_by, "
     "2.0 * w.M * w.N * w.K / (w.median_ms * 1e9) AS tflops, "
     "2.0 * w.M * w.N * w.K / (w.cublas_median_ms * 1e9) AS cublas_tflops, "
     "2.0 * w.M * w.N * w.K / (w.cublaslt_median_ms * 1e9) AS cublaslt_tflops, "
     "w.ratio_to_cublas, w.ratio_to_cublaslt, w.median_ms, w.family, w.alias, w.params FROM winners AS w "
     "UNION ALL "
     "SELECT p.device_name, p.M, p.N, p.K, p.problem, p.config_name, p.arch, 'first pass', p.tflops, "
     "p.cublas_tflops, p.cublaslt_tflops, p.ratio_to_cublas, p.ratio_to_cublaslt, p.median_ms, p.family, p.alias, "
     "p.params FROM best_per_shape AS p "
     "WHERE NOT EXISTS (SELECT 1 FROM winners AS w WHERE w.device_name = p.device_name AND w.M = p.M AND "
     "w.N = p.N AND w.K = p.K AND w.problem = p.problem)) AS b "
     "WHERE " MPGEMM_OF_PROBLEM("b.problem") " "
     "ORDER BY b.device_name, b.problem <> 'mk_kn_fp16_fp32', b.problem, b.M, b.N, b.K", true},
    // The first pass's fastest verified config per device, arch and shape (the SQL view best); the winner's
    // warnings come from the compilation its measurement ran.
    {"fastest",
     "SELECT b.device_name, b.arch, b.M, b.N, b.K, b.config_name, b.alias, b.median_ms, b.tflops, "
     "b.cublas_tflops, b.cublaslt_tflops, b.ratio_to_cublas, b.ratio_to_cublaslt, "
     MPGEMM_WARNING_KINDS("cp") " AS warnings, b.measurement_id, b.params, b.problem "
     "FROM best AS b JOIN measurements AS m ON m.id = b.measurement_id "
     "LEFT JOIN compilations AS cp ON cp.id = m.compilation_id "
     "WHERE " MPGEMM_OF_PROBLEM("b.problem") " "
     "ORDER BY b.device_name, b.arch, b.problem <> 'mk_kn_fp16_fp32', b.problem, b.M, b.N, b.K", true},
    // Every family and arch competing: what mpgemm-run --config best takes for a shape with no re-rank. The answer
    // first: the config, its TFLOP/s, both references' and both ratios.
    {"best_per_shape",
     "SELECT b.M, b.N, b.K, b.config_name, b.arch, b.tflops, b.cublas_tflops, b.cublaslt_tflops, "
     "b.ratio_to_cublas, b.ratio_to_cublaslt, b.median_ms, b.family, b.alias, "
     MPGEMM_WARNING_KINDS("cp") " AS warnings, b.device_name, b.cublaslt_algo, b.measurement_id, b.problem "
     "FROM best_per_shape AS b JOIN measurements AS m ON m.id = b.measurement_id "
     "LEFT JOIN compilations AS cp ON cp.id = m.compilation_id "
     "WHERE " MPGEMM_OF_PROBLEM("b.problem") " "
     "ORDER BY b.device_name, b.problem <> 'mk_kn_fp16_fp32', b.problem, b.M, b.N, b.K", true},
    // Both references of every shape of every run; cuBLASLt with how many of its heuristics verified.
    {"references",
     "SELECT * FROM ("
     "SELECT 'cuBLAS' AS reference, t.run_id, t.device_name, t.M, t.N, t.K, t.median_ms, t.min_ms, t.max_ms, "
     "t.tflops, t.sm_clock_mhz, NULL AS valid_heuristics, NULL AS returned_heuristics, "
     "'cublasGemmEx COMPUTE_32F' AS detail, t.batches, t.problem FROM cublas_timings AS t "
     "UNION ALL "
     "SELECT 'cuBLASLt', l.run_id, l.device_name, l.M, l.N, l.K, l.median_ms, l.min_ms, l.max_ms, l.tflops, "
     "l.sm_clock_mhz, l.heuristics_valid, l.heuristics_returned, "
     "coalesce(l.algo, " MPGEMM_EXCERPT("l.message") "), l.batches, l.problem FROM cublaslt_timings AS l) "
     "WHERE " MPGEMM_OF_PROBLEM("problem") " "
     "ORDER BY run_id, problem <> 'mk_kn_fp16_fp32', problem, M, N, K, reference", true},
    {"measurements",
     "SELECT m.id, m.run_id, c.name AS config, m.device_name, m.arch, m.M, m.N, m.K, m.status, m.median_ms, "
     "m.tflops, m.ratio_to_cublas, m.ratio_to_cublaslt, m.max_rel_err, m.bad_count, m.sm_clock_mhz, "
     MPGEMM_EXCERPT("m.message") " AS message, m.gpu_ordinal, m.gpu_uuid, m.batches, m.problem "
     "FROM measurements AS m JOIN configs AS c ON c.id = m.config_id "
     "WHERE " MPGEMM_OF_PROBLEM("m.problem") " ORDER BY m.id", true},
    {"profiles",
     "SELECT p.label, p.kernel, p.device_name, p.M, p.N, p.K, p.metric, p.unit, p.value, p.created_at "
     "FROM profile_metrics AS p ORDER BY p.label, p.metric, p.id"},
    // The winner of each shape's latest re-rank (the view winners): what mpgemm-run --config best takes first.
    {"winners",
     "SELECT w.M, w.N, w.K, w.config_name, w.arch, w.median_ms, w.ratio_to_cublas, w.cublas_median_ms, "
     "w.ratio_to_cublaslt, w.cublaslt_median_ms, w.tied, w.top_k, w.rounds, w.iters, w.tie_band, w.rule, w.family, "
     "w.alias, w.device_name, w.rerank_id, w.problem "
     "FROM winners AS w WHERE " MPGEMM_OF_PROBLEM("w.problem") " "
     "ORDER BY w.device_name, w.problem <> 'mk_kn_fp16_fp32', w.problem, w.M, w.N, w.K", true},
    // Every config of every re-rank, in each one's place order: the samples' summary and the tie-break facts.
    {"reranks",
     "SELECT r.id AS rerank, r.run_id, r.device_name, r.M, r.N, r.K, rc.place, c.name AS config, rc.arch, "
     "rc.status, rc.tied, rc.median_ms, rc.min_ms, rc.max_ms, rc.samples, rc.ratio_to_cublas, rc.ratio_to_cublaslt, "
     "rc.prior_median_ms, rc.registers, rc.threads, rc.smem_bytes, " MPGEMM_EXCERPT("rc.message") " AS message, "
     "r.problem "
     "FROM reranks AS r JOIN rerank_configs AS rc ON rc.rerank_id = r.id JOIN configs AS c ON c.id = rc.config_id "
     "WHERE " MPGEMM_OF_PROBLEM("r.problem") " "
     "ORDER BY r.id, rc.place IS NULL, rc.place, c.name", true},
}};
// clang-format on

#undef MPGEMM_EXCERPT
#undef MPGEMM_WARNING_KINDS
#undef MPGEMM_OF_PROBLEM

constexpr std::array<std::string_view, kQueries.size()> kNames = [] {
  std::array<std::string_view, kQueries.size()> names{};
  for (std::size_t i = 0; i < kQueries.size(); ++i) names[i] = kQueries[i].name;
  return names;
}();

// The current row's cells, typed as SQLite holds them; a blob shows as its size.
std::vector<report::Cell> cells_of(const sqlite::Statement& q) {
  std::vector<report::Cell> row;
  for (int c = 0; c < q.column_count(); ++c) {
    switch (sqlite3_column_type(q.get(), c)) {
      case SQLITE_INTEGER:
        row.emplace_back(q.int64(c));
        break;
      case SQLITE_FLOAT:
        row.emplace_back(q.real(c));
        break;
      case SQLITE_TEXT:
        row.emplace_back(q.text(c));
        break;
      case SQLITE_BLOB:
        row.emplace_back(fmt::format("<{} bytes>", sqlite3_column_bytes(q.get(), c)));
        break;
      default:
        row.emplace_back(std::monostate{});
        break;
    }
  }
  return row;
}

std::vector<std::string> columns_of(const sqlite::Statement& q) {
  std::vector<std::string> names;
  for (int c = 0; c < q.column_count(); ++c) names.emplace_back(sqlite3_column_name(q.get(), c));
  return names;
}

report::Table to_table(sqlite::Statement& q) {
  report::Table table;
  table.columns = columns_of(q);
  while (q.step()) table.rows.push_back(cells_of(q));
  return table;
}

// Pragmas a user query may run: these only report. Any other pragma, or one of these given a value, is refused.
bool readable_pragma(const char* name, const char* value) {
  constexpr std::array<std::string_view, 8> kWithArgument{"table_info",       "table_xinfo",    "table_list",
                                                          "index_list",       "index_info",     "index_xinfo",
                                                          "foreign_key_list", "compile_options"};
  constexpr std::array<std::string_view, 6> kNoArgument{"user_version", "application_id", "schema_version",
                                                        "journal_mode", "page_count",     "page_size"};
  if (!name) return false;
  for (auto n : kWithArgument)
    if (n == name) return true;
  for (auto n : kNoArgument)
    if (n == name) return value == nullptr;
  return false;
}

// Functions a user query may not call although they only "read": fts3_tokenizer() hands out (one argument) or
// installs (two: SQLite is built with ENABLE_FTS3_TOKENIZER here) a pointer to C code, load_extension() loads a
// shared library. Compared without case, as SQLite resolves function names.
bool refused_function(const char* name) {
  constexpr std::array<std::string_view, 2> kRefused{"fts3_tokenizer", "load_extension"};
  if (!name) return false;
  for (auto refused : kRefused)
    if (sqlite3_stricmp(name, std::string(refused).c_str()) == 0) return true;
  return false;
}

// What the authorizer refused, for the message (SQLite's own says only "not authorized").
struct Refusal {
  std::string function;
};

// Authorizer for user queries: reading only. ATTACH is refused here because sqlite3_stmt_readonly() counts
// it as read-only (it changes the connection, not a file).
int authorize_read(void* user, int action, const char* arg1, const char* arg2, const char*, const char*) {
  switch (action) {
    case SQLITE_FUNCTION:
      if (!refused_function(arg2)) return SQLITE_OK;
      static_cast<Refusal*>(user)->function = arg2;
      return SQLITE_DENY;
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_RECURSIVE:
      return SQLITE_OK;
    case SQLITE_PRAGMA:
      return readable_pragma(arg1, arg2) ? SQLITE_OK : SQLITE_DENY;
    default:
      return SQLITE_DENY;
  }
}

// Keeps the authorizer installed while preparing, whatever happens.
class ReadOnlyAuthorizer {
 public:
  explicit ReadOnlyAuthorizer(sqlite3* db) : db_(db) { sqlite3_set_authorizer(db_, authorize_read, &refusal_); }
  ~ReadOnlyAuthorizer() { sqlite3_set_authorizer(db_, nullptr, nullptr); }
  ReadOnlyAuthorizer(const ReadOnlyAuthorizer&) = delete;
  ReadOnlyAuthorizer& operator=(const ReadOnlyAuthorizer&) = delete;
  const Refusal& refusal() const { return refusal_; }

 private:
  sqlite3* db_;
  Refusal refusal_;
};

// The time SQLite spends on a query's steps, stopped (SQLITE_INTERRUPT) once it reaches a limit: a progress
// handler every 1000 virtual-machine instructions compares the time in steps so far with it. Time between steps
// (the caller printing a row) is not counted.
class StepClock {
 public:
  using Clock = std::chrono::steady_clock;
  StepClock(sqlite3* db, std::chrono::milliseconds limit) : db_(db), limit_(limit) {
    if (limit_.count() > 0) sqlite3_progress_handler(db_, 1000, &StepClock::check, this);
  }
  ~StepClock() {
    if (limit_.count() > 0) sqlite3_progress_handler(db_, 0, nullptr, nullptr);
  }
  StepClock(const StepClock&) = delete;
  StepClock& operator=(const StepClock&) = delete;

  // One sqlite3_step, timed; QueryTimeLimit when the limit stopped it.
  bool step(sqlite::Statement& q) {
    step_started_ = Clock::now();
    try {
      const bool row = q.step();
      used_ += Clock::now() - step_started_;
      return row;
    } catch (const StoreError&) {
      if (stopped_) throw QueryTimeLimit(limit_);
      throw;
    }
  }

 private:
  static int check(void* self) {
    auto* c = static_cast<StepClock*>(self);
    if (c->used_ + (Clock::now() - c->step_started_) < c->limit_) return 0;
    c->stopped_ = true;
    return 1;
  }

  sqlite3* db_;
  std::chrono::milliseconds limit_;
  Clock::duration used_{};
  Clock::time_point step_started_{};
  bool stopped_ = false;
};

// A user query's values and rows are bounded like every other input: SQLite refuses to make or read a value over
// the limit (SQLITE_TOOBIG), and a row whose values together exceed it is refused before it is copied.
constexpr int kMaxSqlValueBytes = 64 << 20;
constexpr std::size_t kMaxSqlRowBytes = std::size_t{64} << 20;

// SQLITE_LIMIT_LENGTH lowered for one query, restored after it.
class ValueLimit {
 public:
  explicit ValueLimit(sqlite3* db) : db_(db), before_(sqlite3_limit(db, SQLITE_LIMIT_LENGTH, kMaxSqlValueBytes)) {}
  ~ValueLimit() { sqlite3_limit(db_, SQLITE_LIMIT_LENGTH, before_); }
  ValueLimit(const ValueLimit&) = delete;
  ValueLimit& operator=(const ValueLimit&) = delete;

 private:
  sqlite3* db_;
  int before_;
};

// The bytes of a row's text and blob values, as SQLite holds them (a blob is printed as its size, not copied).
std::size_t text_bytes_of(const sqlite::Statement& q) {
  std::size_t total = 0;
  for (int c = 0; c < q.column_count(); ++c)
    if (sqlite3_column_type(q.get(), c) == SQLITE_TEXT)
      total += static_cast<std::size_t>(sqlite3_column_bytes(q.get(), c));
  return total;
}

}  // namespace

std::span<const std::string_view> Store::query_names() {
  return kNames;
}

bool Store::query_has_problem(std::string_view what) {
  for (const auto& q : kQueries)
    if (q.name == what) return q.per_problem;
  return false;
}

report::Table Store::query_named(std::string_view what, const std::optional<ProblemKind>& problem) const {
  auto& s = state();
  for (const auto& q : kQueries) {
    if (q.name != what) continue;
    if (problem && !q.per_problem)
      throw Error(fmt::format("the '{}' query has no problem kind to choose by: its rows are of none", what));
    sqlite::Statement statement(s.conn, q.sql, fmt::format("running the '{}' query", what));
    if (q.per_problem) statement.bind(problem ? std::optional(problem->name()) : std::nullopt);
    return to_table(statement);
  }
  std::string valid;
  for (auto name : kNames) valid += (valid.empty() ? "" : ", ") + std::string(name);
  throw Error(fmt::format("unknown query '{}' (valid: {})", what, valid));
}

QueryTimeLimit::QueryTimeLimit(std::chrono::milliseconds limit)
    : Error(fmt::format("query stopped: it ran past its time limit of {:g} s",
                        std::chrono::duration<double>(limit).count())),
      limit_(limit) {}

report::Table Store::query_sql(std::string_view sql) const {
  report::Table table;
  query_sql_rows(
      sql, [&](const std::vector<std::string>& columns) { table.columns = columns; },
      [&](std::vector<report::Cell>&& row) { table.rows.push_back(std::move(row)); });
  return table;
}

void Store::query_sql_rows(std::string_view sql, const std::function<void(const std::vector<std::string>&)>& columns,
                           const std::function<void(std::vector<report::Cell>&&)>& row,
                           std::chrono::milliseconds limit) const {
  auto& s = state();
  if (s.mode != Mode::read_only)
    throw Error("a user SQL query needs the database opened read-only (Store::Mode::read_only)");
  // The authorizer stays on while the statement runs too: SQLite checks it again if it ever re-prepares.
  ReadOnlyAuthorizer guard(s.conn.db);
  sqlite3_stmt* prepared = nullptr;
  const char* tail = nullptr;
  const int rc = sqlite3_prepare_v2(s.conn.db, sql.data(), static_cast<int>(sql.size()), &prepared, &tail);
  // A refused function fails the prepare with SQLITE_ERROR ("not authorized to use function"), not SQLITE_AUTH.
  if (rc != SQLITE_OK && !guard.refusal().function.empty())
    throw InputRefused(fmt::format("query refused: {}() is not allowed (it reaches the program's memory or loads code)",
                                   guard.refusal().function));
  if ((rc & 0xff) == SQLITE_AUTH)
    throw InputRefused(fmt::format("query refused: only reading is allowed ({})", sqlite3_errmsg(s.conn.db)));
  if (rc != SQLITE_OK) sqlite::fail(s.conn, rc, "preparing the query");
  sqlite::Statement statement(s.conn, prepared, "running the query");
  // Anything after the first statement other than blanks, comments and semicolons is a second statement.
  sqlite3_stmt* second = nullptr;
  const auto rest = static_cast<int>(sql.data() + sql.size() - tail);
  const int rc2 = sqlite3_prepare_v2(s.conn.db, tail, rest, &second, nullptr);
  sqlite3_finalize(second);
  if (rc2 != SQLITE_OK || second != nullptr) throw InputRefused("query refused: only one statement is allowed");
  if (statement.get() == nullptr) throw InputRefused("query refused: it is empty");
  if (!sqlite3_stmt_readonly(statement.get())) throw InputRefused("query refused: it would modify the database");
  columns(columns_of(statement));
  StepClock clock(s.conn.db, limit);
  const ValueLimit value_limit(s.conn.db);
  std::size_t n = 0;
  for (;;) {
    try {
      if (!clock.step(statement)) break;
    } catch (const StoreError& e) {
      if ((e.code() & 0xff) != SQLITE_TOOBIG) throw;
      throw Error(
          fmt::format("query stopped: a value of row {} is larger than {} MiB", n + 1, kMaxSqlValueBytes >> 20));
    }
    ++n;
    if (const std::size_t bytes = text_bytes_of(statement); bytes > kMaxSqlRowBytes)
      throw Error(fmt::format("query stopped: row {} holds {} bytes of text, more than {} MiB", n, bytes,
                              kMaxSqlRowBytes >> 20));
    row(cells_of(statement));
  }
}

}  // namespace mpgemm
