#pragma once
// Small RAII wrappers over the SQLite C API, internal to src/store. Every failing call throws StoreError carrying
// the database path, SQLite's extended result code, its message and what the store was doing.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include <sqlite3.h>

namespace mpgemm::sqlite {

// One open connection and what error messages need to name.
struct Connection {
  sqlite3* db = nullptr;
  std::string path;  // as given to Store::open
};

// Throws StoreError for result code `rc`. `doing` completes "… while <doing>", e.g. "recording measurement 1f2e".
[[noreturn]] void fail(const Connection& c, int rc, std::string_view doing);
inline void check(const Connection& c, int rc, std::string_view doing) {
  if (rc != SQLITE_OK) fail(c, rc, doing);
}

// What every connection of the store sets before its first statement: SQLite's defensive mode (no writable_schema,
// no journal_mode OFF, no writes to shadow tables: a statement cannot damage the file it runs on) and triggers off
// (mpgemm defines none; one planted in a file after its schema was checked still does not run). trusted_schema stays
// on: SQLite 3.40's JSON functions are not marked innocuous, so the schema's own CHECKs would be refused without it;
// the schema check (store/schema_check.hpp) is what keeps views, triggers and CHECKs to mpgemm's own.
void harden(sqlite3* db);

// Runs constant SQL (schema, pragmas, BEGIN/COMMIT); never SQL built from values.
void exec(const Connection& c, const char* sql, std::string_view doing);

// A prepared statement. Bind values with bind(), then step() through the rows.
class Statement {
 public:
  Statement(const Connection& c, std::string_view sql, std::string doing);
  // Takes ownership of a statement prepared elsewhere (the read-only query path).
  Statement(const Connection& c, sqlite3_stmt* prepared, std::string doing) noexcept;
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Binds ?1, ?2, ... in order. Accepts integers, doubles, text, std::nullopt and std::optional of those.
  template <class... Args>
  Statement& bind(const Args&... args) {
    int index = 0;
    (bind_one(++index, args), ...);
    return *this;
  }

  bool step();                                     // true: a row is ready; false: the statement is done
  void run();                                      // steps to the end, ignoring rows (INSERT, UPDATE)
  void reset() noexcept { sqlite3_reset(stmt_); }  // ends a read early, e.g. before COMMIT

  int column_count() const { return sqlite3_column_count(stmt_); }
  bool is_null(int i) const { return sqlite3_column_type(stmt_, i) == SQLITE_NULL; }
  std::int64_t int64(int i) const { return sqlite3_column_int64(stmt_, i); }
  double real(int i) const { return sqlite3_column_double(stmt_, i); }
  std::string text(int i) const;  // "" for NULL
  std::optional<std::int64_t> opt_int64(int i) const;
  std::optional<double> opt_real(int i) const;
  std::optional<std::string> opt_text(int i) const;
  sqlite3_stmt* get() const { return stmt_; }

 private:
  void bind_one(int i, std::int64_t v);
  void bind_one(int i, int v) { bind_one(i, static_cast<std::int64_t>(v)); }
  void bind_one(int i, double v);
  void bind_one(int i, std::string_view v);
  void bind_one(int i, const std::string& v) { bind_one(i, std::string_view(v)); }
  void bind_one(int i, const char* v) { bind_one(i, std::string_view(v)); }
  void bind_one(int i, std::nullopt_t);
  template <class T>
  void bind_one(int i, const std::optional<T>& v) {
    if (v)
      bind_one(i, *v);
    else
      bind_one(i, std::nullopt);
  }
  void check_bind(int rc, int i);

  const Connection& conn_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string doing_;
};

// BEGIN IMMEDIATE ... COMMIT: takes the write lock up front (waiting up to the busy timeout for other
// processes) so a transaction never fails half-way with SQLITE_BUSY. Rolls back unless committed.
class Transaction {
 public:
  Transaction(const Connection& c, std::string doing);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  const Connection& conn_;
  std::string doing_;
  bool open_ = false;
};

}  // namespace mpgemm::sqlite
