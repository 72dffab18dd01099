#include "store/table_rows.hpp"

#include <array>

#include <fmt/format.h>

#include "common/error.hpp"
#include "store/read_open.hpp"

namespace mpgemm::store_detail {

namespace {

// Dependency order: a table comes after every table it references. The natural keys are the schema's UNIQUE
// constraints (runs.uid since version 8); the timings, profiles and re-ranks have none, so their content is
// their identity; a re-rank's configs and samples belong to it.
const std::array kSpecs{
    TableSpec{"runs", {"uid"}, {}, {}},
    TableSpec{"configs", {"family", "name", "source_hash"}, {}, "alias"},
    TableSpec{"compilations", {"config_id", "arch", "compile_key"}, {}, {}},
    TableSpec{"cublas_timings", {}, {}, {}},
    TableSpec{"cublaslt_timings", {}, {}, {}},
    TableSpec{"measurements", {"result_key"}, {}, {}},
    TableSpec{"profile_metrics", {}, {}, {}},
    TableSpec{"reranks", {}, {}, {}},
    TableSpec{"rerank_configs", {}, "rerank_id", {}},
    TableSpec{"rerank_samples", {}, "rerank_id", {}},
};

}  // namespace

std::string Value::encoded() const {
  switch (type) {
    case SQLITE_INTEGER:
      return fmt::format("i{}", integer);
    case SQLITE_FLOAT:
      return fmt::format("r{}", real);  // shortest form that reads back to the same double
    case SQLITE_TEXT:
      return fmt::format("t{}:{}", bytes.size(), bytes);
    case SQLITE_BLOB:
      return fmt::format("b{}:{}", bytes.size(), bytes);
    default:
      return "n";
  }
}

Value column_value(sqlite3_stmt* stmt, int i) {
  Value v;
  v.type = sqlite3_column_type(stmt, i);
  switch (v.type) {
    case SQLITE_INTEGER:
      v.integer = sqlite3_column_int64(stmt, i);
      break;
    case SQLITE_FLOAT:
      v.real = sqlite3_column_double(stmt, i);
      break;
    case SQLITE_TEXT:
    case SQLITE_BLOB: {
      const void* p =
          v.type == SQLITE_TEXT ? static_cast<const void*>(sqlite3_column_text(stmt, i)) : sqlite3_column_blob(stmt, i);
      const int n = sqlite3_column_bytes(stmt, i);
      if (p) v.bytes.assign(static_cast<const char*>(p), static_cast<std::size_t>(n));
      break;
    }
    default:
      break;
  }
  return v;
}

void bind_value(const sqlite::Statement& stmt, int i, const Value& v) {
  sqlite3_stmt* s = stmt.get();
  int rc = SQLITE_OK;
  switch (v.type) {
    case SQLITE_INTEGER:
      rc = sqlite3_bind_int64(s, i, v.integer);
      break;
    case SQLITE_FLOAT:
      rc = sqlite3_bind_double(s, i, v.real);
      break;
    case SQLITE_TEXT:
      rc = sqlite3_bind_text64(s, i, v.bytes.data(), v.bytes.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
      break;
    case SQLITE_BLOB:
      rc = sqlite3_bind_blob64(s, i, v.bytes.data(), v.bytes.size(), SQLITE_TRANSIENT);
      break;
    default:
      rc = sqlite3_bind_null(s, i);
      break;
  }
  if (rc != SQLITE_OK) throw Error(fmt::format("binding parameter {}: {}", i, sqlite3_errstr(rc)));
}

std::span<const TableSpec> table_specs() {
  return kSpecs;
}

int TableInfo::column_index(std::string_view column) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == column) return static_cast<int>(i);
  return -1;
}

TableInfo table_info(const sqlite::Connection& c, std::string_view table) {
  TableInfo info;
  info.name = std::string(table);
  // table_info leaves out generated columns (compilations.perf_warnings): they are not stored.
  sqlite::Statement cols(c, "SELECT name, pk FROM pragma_table_info(?1) ORDER BY cid",
                         fmt::format("reading the columns of {}", table));
  cols.bind(table);
  while (cols.step()) {
    std::string name = cols.text(0);
    if (name == "id" && cols.int64(1) == 1)
      info.has_id = true;
    else
      info.columns.push_back(std::move(name));
  }
  if (info.columns.empty() && !info.has_id)
    throw StoreError(c.path, SQLITE_ERROR, fmt::format("the database has no table {}", table));
  sqlite::Statement fks(c, "SELECT \"from\", \"table\" FROM pragma_foreign_key_list(?1)",
                        fmt::format("reading the foreign keys of {}", table));
  fks.bind(table);
  while (fks.step()) info.foreign_keys[fks.text(0)] = fks.text(1);
  return info;
}

std::vector<std::string> table_names(const sqlite::Connection& c) {
  std::vector<std::string> names;
  sqlite::Statement s(c, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
                      "listing the tables");
  while (s.step()) names.push_back(s.text(0));
  return names;
}

std::string select_sql(const TableInfo& info) {
  std::string sql = info.has_id ? "SELECT id" : "SELECT 0";
  for (const auto& c : info.columns) sql += fmt::format(", \"{}\"", c);
  return sql + fmt::format(" FROM \"{}\" ORDER BY rowid", info.name);
}

Row read_row(sqlite3_stmt* stmt, const TableInfo& info) {
  Row row;
  row.id = sqlite3_column_int64(stmt, 0);
  row.values.reserve(info.columns.size());
  for (std::size_t i = 0; i < info.columns.size(); ++i)
    row.values.push_back(column_value(stmt, static_cast<int>(i) + 1));
  return row;
}

OwnConnection::OwnConnection(const std::filesystem::path& path, int flags, std::string_view doing) {
  conn_.path = path.string();
  const int rc = sqlite3_open_v2(conn_.path.c_str(), &conn_.db, flags, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_close_v2(conn_.db);  // fail() reads the message first
    conn_.db = nullptr;
    sqlite::fail(conn_, rc, doing);
  }
  sqlite3_extended_result_codes(conn_.db, 1);
  sqlite::harden(conn_.db);
  sqlite3_busy_timeout(conn_.db, 10'000);
}

OwnConnection::OwnConnection(const std::filesystem::path& path, ForReading) {
  conn_.path = path.string();
  in_memory_ = open_for_reading(conn_, path, 10'000);
  sqlite3_extended_result_codes(conn_.db, 1);
}

OwnConnection::~OwnConnection() {
  sqlite3_close_v2(conn_.db);
}

}  // namespace mpgemm::store_detail
