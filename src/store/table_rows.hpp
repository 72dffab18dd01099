#pragma once
// Tables as rows of values, read generically (columns by PRAGMA table_info, foreign keys by PRAGMA
// foreign_key_list), internal to src/store: what the merge and the canonical dump share. Which tables there are,
// in which order, and what identifies a row of each (its natural key) is defined once here, in table_specs().
#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "store/sqlite.hpp"

namespace mpgemm::store_detail {

// One SQLite value, as stored (STRICT tables: integer, real, text, blob or NULL).
struct Value {
  int type = SQLITE_NULL;  // SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB or SQLITE_NULL
  std::int64_t integer = 0;
  double real = 0;
  std::string bytes;  // text or blob

  bool is_null() const { return type == SQLITE_NULL; }
  // Unambiguous and exact (reals in shortest round-trip form): equal strings <=> equal values.
  std::string encoded() const;
  bool operator==(const Value& o) const { return encoded() == o.encoded(); }
};

Value column_value(sqlite3_stmt* stmt, int i);
void bind_value(const sqlite::Statement& stmt, int i, const Value& v);

// How rows of a table are told apart across databases.
struct TableSpec {
  std::string_view name;
  std::vector<std::string_view> key;  // natural key columns (foreign keys among them by the referenced key);
                                      // empty: the row's whole content (every column but id)
  std::string_view parent;            // tables without an id: the column naming the row they belong to
  std::string_view fill_null;         // a column the winner of a conflict takes from the loser when it has none
};

// Every table of the schema, each after the tables it references.
std::span<const TableSpec> table_specs();

// A table's columns as this database has them (generated columns left out: they are computed).
struct TableInfo {
  std::string name;
  bool has_id = false;                              // an INTEGER PRIMARY KEY named id
  std::vector<std::string> columns;                 // every stored column but id, in table order
  std::map<std::string, std::string> foreign_keys;  // column -> referenced table (always its id)
  int column_index(std::string_view column) const;  // into columns; -1 when absent
};
TableInfo table_info(const sqlite::Connection& c, std::string_view table);

// The names of the tables in a database (sqlite_* left out).
std::vector<std::string> table_names(const sqlite::Connection& c);

struct Row {
  std::int64_t id = 0;        // 0 for tables without an id
  std::vector<Value> values;  // TableInfo::columns' order
};

std::string select_sql(const TableInfo& info);  // "SELECT id|0, col, ... FROM table ORDER BY rowid"
Row read_row(sqlite3_stmt* stmt, const TableInfo& info);

// Reads every row of `info`'s table, in rowid order, calling `each` per row.
template <class F>
void for_each_row(const sqlite::Connection& c, const TableInfo& info, F&& each) {
  sqlite::Statement s(c, select_sql(info), "reading table " + info.name);
  while (s.step()) each(read_row(s.get(), info));
}

// A read-only or read-write connection of its own, closed on destruction.
class OwnConnection {
 public:
  struct ForReading {};  // opened as every reader opens a database: open_for_reading (read_open.hpp)

  OwnConnection(const std::filesystem::path& path, int flags, std::string_view doing);
  // Reads `path` without writing anything beside it, whatever journal mode it was left in; in_memory() tells
  // whether the connection holds a snapshot of the file rather than the file.
  OwnConnection(const std::filesystem::path& path, ForReading);
  ~OwnConnection();
  OwnConnection(const OwnConnection&) = delete;
  OwnConnection& operator=(const OwnConnection&) = delete;
  const sqlite::Connection& get() const { return conn_; }
  bool in_memory() const { return in_memory_; }

 private:
  sqlite::Connection conn_;
  bool in_memory_ = false;
};

}  // namespace mpgemm::store_detail
