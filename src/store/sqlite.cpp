#include "store/sqlite.hpp"

#include <fmt/format.h>

#include "common/bounded_input.hpp"
#include "common/error.hpp"

namespace mpgemm::sqlite {

void fail(const Connection& c, int rc, std::string_view doing) {
  // Escaped and cut: SQLite quotes a damaged schema's SQL, newlines and all, and a refusal is one line.
  const std::string message = text_excerpt(c.db ? sqlite3_errmsg(c.db) : sqlite3_errstr(rc), 200);
  std::string detail;
  switch (rc & 0xff) {
    case SQLITE_FULL:
      detail = fmt::format("disk full while {}: {}", doing, message);
      break;
    case SQLITE_READONLY:
      detail = fmt::format("database is read-only: {} (while {})", message, doing);
      break;
    case SQLITE_NOTADB:
      detail = fmt::format("file is not an mpgemm results database (not an SQLite database: {})", message);
      break;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      detail = fmt::format("database stayed locked by another connection past the busy timeout while {}: {}", doing,
                           message);
      break;
    case SQLITE_CORRUPT:
      detail = fmt::format("database file is corrupt (while {}): {}", doing, message);
      break;
    case SQLITE_CANTOPEN:
      detail = fmt::format("cannot open the database file while {}: {}", doing, message);
      break;
    default:
      detail = fmt::format("{} failed: {}", doing, message);
      break;
  }
  throw StoreError(c.path, rc, std::move(detail));
}

void harden(sqlite3* db) {
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
}

void exec(const Connection& c, const char* sql, std::string_view doing) {
  check(c, sqlite3_exec(c.db, sql, nullptr, nullptr, nullptr), doing);
}

Statement::Statement(const Connection& c, std::string_view sql, std::string doing)
    : conn_(c), doing_(std::move(doing)) {
  const char* tail = nullptr;
  check(c, sqlite3_prepare_v2(c.db, sql.data(), static_cast<int>(sql.size()), &stmt_, &tail), doing_);
  if (!stmt_) fail(c, SQLITE_MISUSE, doing_ + " (empty statement)");
}

Statement::Statement(const Connection& c, sqlite3_stmt* prepared, std::string doing) noexcept
    : conn_(c), stmt_(prepared), doing_(std::move(doing)) {}

Statement::~Statement() {
  sqlite3_finalize(stmt_);
}

void Statement::check_bind(int rc, int i) {
  if (rc != SQLITE_OK) fail(conn_, rc, fmt::format("{} (binding parameter {})", doing_, i));
}

void Statement::bind_one(int i, std::int64_t v) {
  check_bind(sqlite3_bind_int64(stmt_, i, v), i);
}
void Statement::bind_one(int i, double v) {
  check_bind(sqlite3_bind_double(stmt_, i, v), i);
}
void Statement::bind_one(int i, std::string_view v) {
  check_bind(sqlite3_bind_text64(stmt_, i, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8), i);
}
void Statement::bind_one(int i, std::nullopt_t) {
  check_bind(sqlite3_bind_null(stmt_, i), i);
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail(conn_, rc, doing_);
}

void Statement::run() {
  while (step()) {
  }
}

std::string Statement::text(int i) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, i));
  return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, i))) : std::string();
}

std::optional<std::int64_t> Statement::opt_int64(int i) const {
  if (is_null(i)) return std::nullopt;
  return int64(i);
}

std::optional<double> Statement::opt_real(int i) const {
  if (is_null(i)) return std::nullopt;
  return real(i);
}

std::optional<std::string> Statement::opt_text(int i) const {
  if (is_null(i)) return std::nullopt;
  return text(i);
}

Transaction::Transaction(const Connection& c, std::string doing) : conn_(c), doing_(std::move(doing)) {
  exec(conn_, "BEGIN IMMEDIATE", doing_);
  open_ = true;
}

void Transaction::commit() {
  exec(conn_, "COMMIT", doing_);
  open_ = false;
}

Transaction::~Transaction() {
  // A failed statement or COMMIT leaves the transaction open; undo it. Errors here cannot be reported and need
  // not be: SQLite rolls back an unfinished transaction when the connection closes anyway.
  if (open_ && !sqlite3_get_autocommit(conn_.db)) sqlite3_exec(conn_.db, "ROLLBACK", nullptr, nullptr, nullptr);
}

}  // namespace mpgemm::sqlite
