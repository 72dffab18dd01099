#pragma once
// The SQLite results database (default results/results.db). One Store is one connection; several processes may
// share a file: writes are short BEGIN IMMEDIATE transactions and a busy connection waits up to 10 s.
// A Store is used from one thread at a time; give each thread its own.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "common/problem_kind.hpp"
#include "common/records.hpp"
#include "common/types.hpp"
#include "report/table.hpp"
#include "store/records.hpp"

namespace mpgemm {

namespace store_detail {
struct State;        // the connection and its settings; defined in src/store/store_impl.hpp
struct StateAccess;  // a Store's State, for the readers in src/store beside its members (store/dump.hpp)
}  // namespace store_detail

// A user query ran past its time limit (Store::query_sql_rows) and was stopped.
class QueryTimeLimit : public Error {
 public:
  explicit QueryTimeLimit(std::chrono::milliseconds limit);
  std::chrono::milliseconds limit() const { return limit_; }

 private:
  std::chrono::milliseconds limit_;
};

class Store {
 public:
  enum class Mode {
    read_write,  // creates the file and its folder, initializes or migrates the schema
    read_only,   // never writes the file; an older schema is migrated in a copy held in memory
  };

  // Throws StoreError when the file cannot be opened, is not an mpgemm results database (left untouched), or
  // has a newer schema than this build supports.
  static Store open(const std::filesystem::path& path, Mode mode);
  // Why open(path, read_write) could not write there, judged from the file system without opening anything: a
  // folder, a file that is not writable, or (for a new file) no writable folder to create it and its missing
  // folders in. nullopt: it could.
  static std::optional<std::string> why_not_writable(const std::filesystem::path& path);
  // Throws mpgemm::Error "database PATH: why" when why_not_writable says why.
  static void require_writable(const std::filesystem::path& path);

  Store(Store&& other) noexcept;
  Store& operator=(Store&& other) noexcept;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;
  ~Store();

  const std::filesystem::path& path() const;
  Mode mode() const;

  // Runs. begin_run stores status "running", started_at now and this process's pid; first, in the same
  // transaction, it marks "interrupted" every run still "running" on info.hostname whose process is gone
  // (store/live_runs.hpp). end_run sets the final status ("finished", "interrupted" or "failed"), ended_at
  // now.
  std::int64_t begin_run(const RunInfo& info);
  void end_run(std::int64_t run_id, std::string_view status);
  // runs.time_accounts (schema version 13): where the run's time went, a JSON object; refused unless it is one.
  void record_time_accounts(std::int64_t run_id, const std::string& json);
  std::optional<StoredRun> find_run(std::int64_t run_id) const;

  // Configs are keyed by (family, name, source_hash); returns the existing id when present, and sets its alias
  // if it had none.
  std::int64_t upsert_config(const Candidate& candidate, std::string_view source_hash);
  std::optional<StoredConfig> find_config(std::int64_t config_id) const;

  // Compilations are keyed by (config_id, arch, compile_key); recording a known key returns the existing id.
  std::optional<StoredCompilation> find_compilation(std::int64_t config_id, std::string_view arch,
                                                    std::string_view compile_key) const;
  std::int64_t record_compilation(std::int64_t config_id, std::int64_t run_id, const CompileResult& result);

  std::int64_t record_cublas(std::int64_t run_id, const CublasRecord& record);
  std::optional<StoredCublas> find_cublas(std::int64_t cublas_id) const;
  // The most recent cuBLAS timing of this problem (its shape and kind) on this device. Every lookup by a shape below
  // has two forms: by GemmProblem, and by Shape, which means the default kind (mk_kn_fp16_fp32) until every caller
  // names its kind.
  std::optional<StoredCublas> find_latest_cublas(std::string_view device_name, const GemmProblem& problem) const;
  std::optional<StoredCublas> find_latest_cublas(std::string_view device_name, const Shape& shape) const {
    return find_latest_cublas(device_name, GemmProblem{shape, ProblemKind{}});
  }
  // Every problem (kind and shape) with a cuBLAS timing on this device, by kind name, then M, N, K (what a replay
  // can replay).
  std::vector<GemmProblem> cublas_problems(std::string_view device_name) const;

  // A cuBLASLt reference, timed or not (then its message says why).
  std::int64_t record_cublaslt(std::int64_t run_id, const CublasLtRecord& record);
  std::optional<StoredCublasLt> find_cublaslt(std::int64_t cublaslt_id) const;
  // The most recent cuBLASLt reference of this problem on this device (replay backend).
  std::optional<StoredCublasLt> find_latest_cublaslt(std::string_view device_name, const GemmProblem& problem) const;
  std::optional<StoredCublasLt> find_latest_cublaslt(std::string_view device_name, const Shape& shape) const {
    return find_latest_cublaslt(device_name, GemmProblem{shape, ProblemKind{}});
  }

  // Measurements are keyed by result_key; recording a known key is a no-op returning the existing id.
  bool has_measurement(std::string_view result_key) const;
  std::optional<StoredMeasurement> find_measurement(std::string_view result_key) const;
  std::int64_t record_measurement(const MeasurementRecord& record);
  // The most recent measurement of the config named `config_name` for `arch` on `problem` (replay backend).
  std::optional<StoredMeasurement> find_measurement_by_config(std::string_view config_name, std::string_view arch,
                                                              const GemmProblem& problem) const;
  std::optional<StoredMeasurement> find_measurement_by_config(std::string_view config_name, std::string_view arch,
                                                              const Shape& shape) const {
    return find_measurement_by_config(config_name, arch, GemmProblem{shape, ProblemKind{}});
  }

  // The top-K re-rank (tune/rerank.hpp). ranked_configs: the configs with an 'ok' measurement of `problem` (its
  // shape and kind: no other kind's) on `device_name`, one per (config name, arch) at its fastest median, fastest
  // first, equal medians in config name order, then arch; at most `limit`. By cycles (RankBy::cycles): fewest median x
  // clock first, the configs whose clock is unknown after them by median. record_rerank writes the re-rank, its configs
  // and every sample in one transaction. find_latest_rerank: the newest re-rank of the problem on the device, with its
  // entries (in place order, unplaced last) and samples.
  std::vector<RankedConfig> ranked_configs(std::string_view device_name, const GemmProblem& problem, int limit,
                                           RankBy by = RankBy::time) const;
  std::vector<RankedConfig> ranked_configs(std::string_view device_name, const Shape& shape, int limit,
                                           RankBy by = RankBy::time) const {
    return ranked_configs(device_name, GemmProblem{shape, ProblemKind{}}, limit, by);
  }
  std::int64_t record_rerank(const RerankRecord& record);
  std::optional<StoredRerank> find_latest_rerank(std::string_view device_name, const GemmProblem& problem) const;
  std::optional<StoredRerank> find_latest_rerank(std::string_view device_name, const Shape& shape) const {
    return find_latest_rerank(device_name, GemmProblem{shape, ProblemKind{}});
  }

  // The configs of `family` that led somewhere in this database at problems of `kind` (mpgemm-tune --leaders-from),
  // by name, sorted: at each device and shape of that kind, every config whose fastest 'ok' median is within
  // (1 + rule.within) x the family's fastest there, and the first rule.places of every re-rank of that kind.
  // `shapes` counts the (device, shape)s of the kind measured. Without a kind: the default kind.
  struct Leaders {
    std::vector<std::string> names;
    std::size_t shapes = 0;
  };
  Leaders leaders(std::string_view family, const LeaderRule& rule, const ProblemKind& kind) const;
  Leaders leaders(std::string_view family, const LeaderRule& rule) const {
    return leaders(family, rule, ProblemKind{});
  }

  // Hardware counters of one profiled kernel, all in one transaction. A record whose every counter is already the
  // newest of its label, shape and metric (same kernel, device, config, unit, value and source file) is not written
  // again: importing a CSV twice adds nothing, while one profiled again after another keeps the newest on top.
  // Returns the number of rows written.
  std::size_t record_profile(const ProfileRecord& record);
  // Config id of the newest config whose name or alias is `label`, for linking profiles.
  std::optional<std::int64_t> find_config_id(std::string_view label) const;
  // Every metric profiled for both labels (latest value of each), side by side with b / a: which counter moved.
  report::Table compare_profiles(std::string_view label_a, std::string_view label_b) const;

  // Canned queries for mpgemm-query: runs, configs, compilations, warnings, failures, best, best_per_shape,
  // references, measurements, profiles, winners, reranks.
  static std::span<const std::string_view> query_names();
  // Throws mpgemm::Error listing the valid names for an unknown one. Every query whose rows are of a problem shows its
  // kind (column problem); given `problem`, only that kind's rows, and an Error for a query whose rows are of no
  // problem (runs, configs, compilations, warnings, profiles).
  report::Table query_named(std::string_view what, const std::optional<ProblemKind>& problem = std::nullopt) const;
  // Whether query_named(what) has rows of a problem, so that it can be asked for one kind.
  static bool query_has_problem(std::string_view what);
  // One read-only SELECT from the user. Needs a Store opened read_only; refuses (mpgemm::Error) anything that
  // writes, ATTACH/DETACH, setting pragmas, functions that reach the process's memory (fts3_tokenizer,
  // load_extension), and more than one statement.
  report::Table query_sql(std::string_view sql) const;
  // The same, streamed: `columns` gets the column names, then `row` each row as SQLite produces it, so no more
  // than one row is held here. Throws QueryTimeLimit once SQLite itself has worked on the query for `limit` (the
  // time spent in `row` does not count: a reader paging through the output is not the query's fault); zero: no
  // limit. An exception from `row` ends the query and propagates.
  void query_sql_rows(std::string_view sql, const std::function<void(const std::vector<std::string>&)>& columns,
                      const std::function<void(std::vector<report::Cell>&&)>& row,
                      std::chrono::milliseconds limit = {}) const;

 private:
  friend struct store_detail::StateAccess;
  explicit Store(std::unique_ptr<store_detail::State> state);
  store_detail::State& state() const;  // throws mpgemm::Error on a moved-from Store
  std::unique_ptr<store_detail::State> state_;
};

}  // namespace mpgemm
