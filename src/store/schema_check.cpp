// A writer's checks of an existing database: SQLite's quick_check, and the file's schema against the one its
// version's migrations create (built in memory from the same SQL, so the check never restates the schema).
#include "store/schema_check.hpp"

#include <map>
#include <vector>

#include <fmt/format.h>

#include "common/error.hpp"
#include "store/schema.hpp"

namespace mpgemm::store_detail {

namespace {

// What a schema is made of, as SQLite reports it.
struct SchemaShape {
  std::map<std::string, std::pair<std::string, std::string>> objects;  // name -> (type, table it belongs to)
  std::map<std::string, std::vector<std::string>> columns;             // table -> its columns, in order
  std::map<std::string, std::string> kinds;                            // table -> "STRICT", "WITHOUT ROWID", ...
};

std::string column_text(const sqlite::Statement& q) {
  std::string text = fmt::format("{} {}", q.text(0), q.text(1));
  if (q.int64(2) != 0) text += " NOT NULL";
  if (q.int64(3) != 0) text += fmt::format(" PRIMARY KEY({})", q.int64(3));
  if (q.int64(4) >= 2) text += " GENERATED";
  return text;
}

SchemaShape shape_of(const sqlite::Connection& c) {
  SchemaShape s;
  sqlite::Statement objects(c,
                            "SELECT name, type, tbl_name FROM sqlite_schema "
                            "WHERE name NOT LIKE 'sqlite_stat%' AND name <> 'sqlite_sequence'",
                            "reading the schema");
  while (objects.step()) s.objects[objects.text(0)] = {objects.text(1), objects.text(2)};
  for (const auto& [name, object] : s.objects) {
    if (object.first != "table") continue;
    sqlite::Statement columns(c, "SELECT name, type, \"notnull\", pk, hidden FROM pragma_table_xinfo(?1) ORDER BY cid",
                              fmt::format("reading the columns of table {}", name));
    columns.bind(name);
    auto& list = s.columns[name];
    while (columns.step()) list.push_back(column_text(columns));
    sqlite::Statement kind(c, "SELECT strict, wr FROM pragma_table_list WHERE schema = 'main' AND name = ?1",
                           fmt::format("reading the kind of table {}", name));
    kind.bind(name);
    if (kind.step())
      s.kinds[name] =
          fmt::format("{}{}", kind.int64(0) ? "STRICT" : "not STRICT", kind.int64(1) ? ", WITHOUT ROWID" : "");
  }
  return s;
}

// The schema migrations 1 to `version` create, in a database of its own in memory.
SchemaShape expected_shape(int version) {
  sqlite::Connection memory{nullptr, ":memory: (the schema of version " + std::to_string(version) + ")"};
  const int rc = sqlite3_open_v2(":memory:", &memory.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  const struct Closer {
    sqlite3* db;
    ~Closer() { sqlite3_close_v2(db); }
  } closer{memory.db};
  sqlite::check(memory, rc, "opening an in-memory database for the expected schema");
  sqlite::exec(memory, "BEGIN", "building the expected schema");
  for (const auto& m : migrations())
    if (m.version <= version)
      sqlite::exec(memory, std::string(m.sql).c_str(), fmt::format("building the schema of version {}", m.version));
  sqlite::exec(memory, "COMMIT", "building the expected schema");
  return shape_of(memory);
}

void compare_columns(const std::string& table, const std::vector<std::string>& found,
                     const std::vector<std::string>& expected, std::vector<std::string>& differences) {
  for (std::size_t i = 0; i < std::max(found.size(), expected.size()); ++i) {
    if (i >= found.size()) {
      differences.push_back(fmt::format("table {} lacks column '{}'", table, expected[i]));
    } else if (i >= expected.size()) {
      differences.push_back(fmt::format("table {} has a column its version lacks: '{}'", table, found[i]));
    } else if (found[i] != expected[i]) {
      differences.push_back(
          fmt::format("table {}: column {} is '{}', expected '{}'", table, i + 1, found[i], expected[i]));
    } else {
      continue;
    }
    return;  // the columns after the first difference are shifted: one difference says it
  }
}

}  // namespace

std::optional<std::string> quick_check_problem(const sqlite::Connection& c) {
  sqlite::Statement q(c, "PRAGMA quick_check(1)", "checking the database (PRAGMA quick_check)");
  if (!q.step()) return "PRAGMA quick_check returned nothing";
  std::string result = q.text(0);
  if (result == "ok") return std::nullopt;
  return result;
}

std::optional<std::string> schema_difference(const sqlite::Connection& c, int version) {
  const SchemaShape expected = expected_shape(version);
  const SchemaShape found = shape_of(c);
  std::vector<std::string> differences;
  for (const auto& [name, object] : expected.objects) {
    const auto it = found.objects.find(name);
    if (it == found.objects.end()) {
      differences.push_back(fmt::format("no {} {}", object.first, name));
    } else if (it->second != object) {
      differences.push_back(fmt::format("{} is a {} of {}, expected a {} of {}", name, it->second.first,
                                        it->second.second, object.first, object.second));
    } else if (object.first == "table") {
      compare_columns(name, found.columns.at(name), expected.columns.at(name), differences);
      const auto kind = found.kinds.find(name);
      const std::string found_kind = kind == found.kinds.end() ? "unknown" : kind->second;
      if (found_kind != expected.kinds.at(name))
        differences.push_back(fmt::format("table {} is {}, expected {}", name, found_kind, expected.kinds.at(name)));
    }
  }
  if (differences.empty()) return std::nullopt;
  std::string text = differences.front();
  if (differences.size() > 1) text += fmt::format(" (and {} more difference(s))", differences.size() - 1);
  return text;
}

}  // namespace mpgemm::store_detail
