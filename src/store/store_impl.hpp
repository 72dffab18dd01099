#pragma once
// Store's state (the connection and its settings), shared by the store_*.cpp files that implement its parts.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "common/file_lock.hpp"
#include "store/sqlite.hpp"
#include "store/store.hpp"

namespace mpgemm {

namespace store_detail {

// What a file says about itself, read without writing anything.
struct Identity {
  std::int64_t application_id = 0;
  std::int64_t user_version = 0;
  std::int64_t objects = 0;  // tables, indexes, views, triggers
};
Identity read_identity(const sqlite::Connection& c);

struct State {
  sqlite::Connection conn;
  std::filesystem::path path;
  Store::Mode mode = Store::Mode::read_only;
  std::optional<LockFile> live_runs;  // "<db>-claims", opened by the first begin_run (store/live_runs.hpp)
  bool rollback_on_close = false;     // a read-write connection to our database, fully opened: ~State leaves
                                      // the file in rollback-journal mode when it is the last one

  State() = default;
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  // Closes the connection; never throws (every Statement is already finalized: they are scoped). A read-write
  // connection that is the last one open leaves the file in rollback-journal mode (store.cpp says why).
  ~State();

  // Throws StoreError (SQLITE_READONLY) on a read-only Store; `doing` says what was attempted.
  void require_writable(std::string_view doing) const;
  // Throws StoreError for a row the schema should have made impossible (unknown status, malformed JSON).
  [[noreturn]] void bad_row(std::string detail) const;
};

// A Store's state, for the code of src/store that reads through a Store's connection without being one of its
// members: the canonical dump reads every table generically from the connection (for an older schema, its migrated
// copy in memory).
// Whether the file is (or was migrated from) the first form of schema 1, before commit 9fad9ec: its compilations
// table lacks dynamic_shared_bytes, which no migration adds. A read-only open adds it to its copy in memory.
bool lacks_dynamic_shared_bytes(const sqlite::Connection& c);

struct StateAccess {
  static const State& of(const Store& store) { return store.state(); }
};

// The six timing columns that measurements, cublas_timings and cublaslt_timings share, in this order from column
// `first`: median_ms, min_ms, max_ms, warmup, runs, iters. The other fields keep their defaults.
TimingStats timing_at(const sqlite::Statement& q, int first);
// An L2 mode or batch mode column: none when NULL, a bad row (`row` names it, e.g. "measurement 7") when its text
// is no mode the code knows. The schema's CHECK constraints keep such text out; a file edited by hand may not.
std::optional<L2Mode> l2_mode_at(const State& s, const sqlite::Statement& q, int column, std::string_view row);
std::optional<BatchEnqueue> batches_at(const State& s, const sqlite::Statement& q, int column, std::string_view row);
// A problem column (schema 14): the kind its name reads as; a bad row (`row` names it) when it names none. The CHECK
// holds the layouts and the characters; a name it lets through may still name no kind ('mk_kn_fp16_fp64').
ProblemKind problem_at(const State& s, const sqlite::Statement& q, int column, std::string_view row);

}  // namespace store_detail

// 2*M*N*K / median in TFLOP/s; none without a positive median.
std::optional<double> tflops_of(const Shape& shape, double median_ms);

}  // namespace mpgemm
