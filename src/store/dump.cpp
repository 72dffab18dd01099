#include "store/dump.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "common/error.hpp"
#include "store/schema.hpp"
#include "store/store.hpp"
#include "store/store_impl.hpp"
#include "store/table_rows.hpp"

namespace mpgemm {

namespace {

using namespace store_detail;

bool ignored(const DumpOptions& o, std::string_view table, std::string_view column) {
  for (const auto& i : o.ignore)
    if (i == fmt::format("{}.{}", table, column) || i == fmt::format("*.{}", column)) return true;
  return false;
}

// Backslashes, newlines and carriage returns escaped, so that a row is one line (ptxas logs have newlines).
// Unlike the printers' and the space errors' one-line forms, it escapes backslashes too: one-to-one, so equal dumps
// still mean equal content.
std::string escape_line(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (const char ch : value) {
    if (ch == '\\')
      out += "\\\\";
    else if (ch == '\n')
      out += "\\n";
    else if (ch == '\r')
      out += "\\r";
    else
      out += ch;
  }
  return out;
}

bool table_ignored(const DumpOptions& o, std::string_view table) {
  return std::find(o.ignore.begin(), o.ignore.end(), table) != o.ignore.end();
}

// Checks rows against their table's constraints by writing each into an empty copy of the table and taking it out
// again: SQLite itself judges NOT NULL, CHECK and the STRICT types, exactly as it would have refused the row when it
// was written. The copy is this build's schema (every migration, in a database of its own in memory), not the
// file's own definitions, which damage may have changed too. (PRAGMA integrity_check says a table has such a row,
// not which.)
class RowChecker {
 public:
  explicit RowChecker(std::string_view db)
      : db_(db), scratch_(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, "checking rows against the schema") {
    for (const auto& m : migrations())
      sqlite::exec(scratch_.get(), std::string(m.sql).c_str(), "building the schema to check rows against");
  }

  // Rows of `info`'s table are checked from now on.
  void table(const TableInfo& info) {
    std::string columns = info.has_id ? "id" : "", values = info.has_id ? "?" : "";
    for (const auto& c : info.columns) {
      columns += fmt::format("{}\"{}\"", columns.empty() ? "" : ", ", c);
      values += values.empty() ? "?" : ", ?";
    }
    has_id_ = info.has_id;
    clear_.reset();
    insert_.reset();
    try {
      insert_.emplace(scratch_.get(), fmt::format("INSERT INTO \"{}\" ({}) VALUES ({})", info.name, columns, values),
                      "checking a row of " + info.name);
      clear_.emplace(scratch_.get(), fmt::format("DELETE FROM \"{}\"", info.name), "checking a row of " + info.name);
    } catch (const StoreError&) {
      throw StoreError(db_, SQLITE_CORRUPT,
                       fmt::format("table {} has columns ({}) that schema version {} does not define", info.name,
                                   columns, schema_version()));
    }
  }

  // What the table's constraints say against the row; nothing when they take it.
  std::optional<std::string> refusal(const Row& row) {
    int i = 0;
    if (has_id_) bind_value(*insert_, ++i, store_detail::Value{SQLITE_INTEGER, row.id, 0, {}});
    for (const auto& v : row.values) bind_value(*insert_, ++i, v);
    const int rc = sqlite3_step(insert_->get());
    std::optional<std::string> why;
    if (rc != SQLITE_DONE) why = sqlite3_errmsg(scratch_.get().db);
    insert_->reset();
    sqlite3_clear_bindings(insert_->get());
    if (!why) {
      clear_->run();
      clear_->reset();
    }
    return why;
  }

 private:
  std::string db_;
  OwnConnection scratch_;
  bool has_id_ = false;
  std::optional<sqlite::Statement> insert_, clear_;
};

// "SELECT rowid, id|0, col, ... FROM table ORDER BY rowid": a row's rowid names it in a message, in every table.
std::string select_with_rowid(const TableInfo& info) {
  std::string sql = info.has_id ? "SELECT rowid, id" : "SELECT rowid, 0";
  for (const auto& c : info.columns) sql += fmt::format(", \"{}\"", c);
  return sql + fmt::format(" FROM \"{}\" ORDER BY rowid", info.name);
}

}  // namespace

std::string describe(const DamagedRow& row) {
  return fmt::format("table {}, rowid {}: {}", row.table, row.rowid, row.why);
}

Dump read_dump(const std::filesystem::path& db, const DumpOptions& options) {
  // The Store checks it is ours and not newer, and migrates an older schema in memory; its connection is read.
  const Store store = Store::open(db, Store::Mode::read_only);
  const sqlite::Connection& c = StateAccess::of(store).conn;
  sqlite::exec(c, "BEGIN", "dumping the database");  // one snapshot of every table

  std::map<std::string, std::unordered_map<std::int64_t, std::string>> keys;  // table -> id -> natural key
  Dump dump;
  RowChecker checker(c.path);
  for (const auto& spec : table_specs()) {
    const TableInfo info = table_info(c, spec.name);
    const bool skip = table_ignored(options, spec.name);
    auto& table_keys = keys[info.name];
    checker.table(info);
    sqlite::Statement rows(c, select_with_rowid(info), "reading table " + info.name);
    while (rows.step()) {
      Row row;
      row.id = rows.int64(1);
      for (std::size_t i = 0; i < info.columns.size(); ++i)
        row.values.push_back(column_value(rows.get(), static_cast<int>(i) + 2));
      if (auto why = checker.refusal(row)) {
        dump.damaged.push_back(DamagedRow{info.name, rows.int64(0), std::move(*why)});
        continue;
      }
      std::string line(info.name), key;
      for (std::size_t i = 0; i < info.columns.size(); ++i) {
        const std::string& column = info.columns[i];
        if (ignored(options, info.name, column)) continue;
        std::string value = escape_line(row.values[i].encoded());  // a foreign key's: its row's (escaped) key
        if (auto fk = info.foreign_keys.find(column); fk != info.foreign_keys.end() && !row.values[i].is_null()) {
          const auto& refs = keys[fk->second];
          const auto it = refs.find(row.values[i].integer);
          value = table_ignored(options, fk->second) ? "-" : it == refs.end() ? "?" : "{" + it->second + "}";
        }
        const std::string field = fmt::format("|{}={}", column, value);
        line += field;
        const bool in_key = spec.key.empty() || std::find(spec.key.begin(), spec.key.end(), column) != spec.key.end();
        if (in_key) key += field;
      }
      if (info.has_id) table_keys[row.id] = key;
      if (!skip) dump.lines.push_back(std::move(line));
    }
  }
  sqlite::exec(c, "COMMIT", "dumping the database");
  std::sort(dump.lines.begin(), dump.lines.end());
  return dump;
}

std::vector<std::string> canonical_dump(const std::filesystem::path& db, const DumpOptions& options) {
  Dump dump = read_dump(db, options);
  if (!dump.damaged.empty())
    throw StoreError(
        db.string(), SQLITE_CORRUPT,
        fmt::format("damaged row ({}) and {} more", describe(dump.damaged.front()), dump.damaged.size() - 1));
  return std::move(dump.lines);
}

}  // namespace mpgemm
