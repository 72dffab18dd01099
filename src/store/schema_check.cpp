// The checks of an existing database before it is trusted: SQLite's quick_check (a writer's), and the file's schema
// against the one its version's migrations create, compared by SQL (built in memory from the same SQL, so the check
// never restates the schema).
#include "store/schema_check.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "common/bounded_input.hpp"
#include "common/error.hpp"
#include "store/schema.hpp"

namespace mpgemm::store_detail {

namespace {

// One entry of sqlite_schema.
struct SchemaObject {
  std::string type;                // table, index, view or trigger
  std::string table;               // the table it belongs to (tbl_name)
  std::optional<std::string> sql;  // normalised; none for the indexes SQLite makes for UNIQUE and PRIMARY KEY
};

// What a schema is made of, as SQLite reports it.
struct SchemaShape {
  std::map<std::string, SchemaObject> objects;              // by name
  std::map<std::string, std::vector<std::string>> columns;  // table -> its columns, in order
  std::map<std::string, std::string> kinds;                 // table -> "STRICT", "not STRICT, WITHOUT ROWID", ...
};

std::string column_text(const sqlite::Statement& q) {
  std::string text = fmt::format("{} {}", q.text(0), q.text(1));
  if (q.int64(2) != 0) text += " NOT NULL";
  if (q.int64(3) != 0) text += fmt::format(" PRIMARY KEY({})", q.int64(3));
  if (q.int64(4) >= 2) text += " GENERATED";
  return text;
}

std::vector<std::string> columns_of(const sqlite::Connection& c, const std::string& table) {
  sqlite::Statement q(c, "SELECT name, type, \"notnull\", pk, hidden FROM pragma_table_xinfo(?1) ORDER BY cid",
                      fmt::format("reading the columns of table {}", table));
  q.bind(table);
  std::vector<std::string> list;
  while (q.step()) list.push_back(column_text(q));
  return list;
}

std::string kind_of(const sqlite::Connection& c, const std::string& table) {
  sqlite::Statement q(c, "SELECT strict, wr FROM pragma_table_list WHERE schema = 'main' AND name = ?1",
                      fmt::format("reading the kind of table {}", table));
  q.bind(table);
  if (!q.step()) return "unknown";
  return fmt::format("{}{}", q.int64(0) ? "STRICT" : "not STRICT", q.int64(1) ? ", WITHOUT ROWID" : "");
}

// Every object of sqlite_schema, by name. Reading sqlite_schema parses the schema; nothing of it runs.
std::map<std::string, SchemaObject> objects_of(const sqlite::Connection& c) {
  std::map<std::string, SchemaObject> objects;
  sqlite::Statement q(c, "SELECT name, type, tbl_name, sql FROM sqlite_schema", "reading the schema");
  while (q.step()) {
    auto sql = q.opt_text(3);
    objects[q.text(0)] = {q.text(1), q.text(2), sql ? std::optional(normalised_sql(*sql)) : std::nullopt};
  }
  return objects;
}

// The forms of a version's schema that mpgemm wrote: its migrations as they are now, and as the first build of two
// versions wrote them, before their SQL changed (git log -p src/store/schema.cpp): version 1 before
// compilations.dynamic_shared_bytes (commit 9fad9ec), version 6 before measurements.status admitted 'pruned'
// (79d379c). tests/support/old_database.hpp builds the same forms as files.
struct Form {
  int version = 0;
  bool first_of_1 = false;
  bool first_of_6 = false;
  auto operator<=>(const Form&) const = default;
};

std::string migration_sql(const Migration& m, const Form& form) {
  std::string sql(m.sql);
  if (m.version == 1 && form.first_of_1)
    if (const auto at = sql.find("  dynamic_shared_bytes INTEGER,"); at != std::string::npos)
      sql.erase(at, sql.find('\n', at) + 1 - at);
  if (m.version == 6 && form.first_of_6)
    if (const auto at = sql.find("'pruned', "); at != std::string::npos) sql.erase(at, 10);
  return sql;
}

// The schema migrations 1 to form.version create, in a database of its own in memory.
SchemaShape build_shape(const Form& form) {
  sqlite::Connection memory{nullptr, fmt::format(":memory: (the schema of version {})", form.version)};
  const int rc = sqlite3_open_v2(":memory:", &memory.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  const struct Closer {
    sqlite3* db;
    ~Closer() { sqlite3_close_v2(db); }
  } closer{memory.db};
  sqlite::check(memory, rc, "opening an in-memory database for the expected schema");
  sqlite::harden(memory.db);
  sqlite::exec(memory, "BEGIN", "building the expected schema");
  for (const auto& m : migrations())
    if (m.version <= form.version)
      sqlite::exec(memory, migration_sql(m, form).c_str(), fmt::format("building the schema of version {}", m.version));
  sqlite::exec(memory, "COMMIT", "building the expected schema");
  SchemaShape s;
  s.objects = objects_of(memory);
  for (const auto& [name, object] : s.objects) {
    if (object.type != "table") continue;
    s.columns[name] = columns_of(memory, name);
    s.kinds[name] = kind_of(memory, name);
  }
  return s;
}

// build_shape, once per form in a process (every open checks a schema; the readers of a library open many).
const SchemaShape& expected_shape(const Form& form) {
  static std::mutex mutex;
  static std::map<Form, SchemaShape> built;
  const std::lock_guard lock(mutex);
  auto it = built.find(form);
  if (it == built.end()) it = built.emplace(form, build_shape(form)).first;
  return it->second;
}

// The first difference of `found` from `expected`, columns compared in order; none when they are the same.
std::optional<std::string> column_difference(const std::string& table, const std::vector<std::string>& found,
                                             const std::vector<std::string>& expected) {
  for (std::size_t i = 0; i < std::max(found.size(), expected.size()); ++i) {
    if (i >= found.size()) return fmt::format("table {} lacks column '{}'", table, expected[i]);
    if (i >= expected.size())
      return fmt::format("table {} has a column its version lacks: '{}'", table, text_excerpt(found[i], 80));
    if (found[i] != expected[i])
      return fmt::format("table {}: column {} is '{}', expected '{}'", table, i + 1, text_excerpt(found[i], 80),
                         expected[i]);
  }
  return std::nullopt;
}

// What is different about table `name`, whose SQL is none of the forms': its columns, its kind, or else what its
// columns do not show (a CHECK, a default, a foreign key).
std::string table_change(const sqlite::Connection& c, const std::string& name,
                         const std::vector<const SchemaShape*>& forms, int version) {
  const std::vector<std::string> found = columns_of(c, name);
  const bool columns_match = std::any_of(forms.begin(), forms.end(), [&](const SchemaShape* s) {
    const auto it = s->columns.find(name);
    return it != s->columns.end() && it->second == found;
  });
  if (!columns_match)
    if (auto difference = column_difference(name, found, forms.front()->columns.at(name))) return *difference;
  const std::string kind = kind_of(c, name);
  if (kind != forms.front()->kinds.at(name))
    return fmt::format("table {} is {}, expected {}", name, kind, forms.front()->kinds.at(name));
  return fmt::format("table {} is not as version {} defines it (a constraint, default or key differs)", name, version);
}

// Whether an object that no form has may stay: ANALYZE's statistics, and an index that is not UNIQUE on a table of
// the version (it changes how a query runs, never what it returns).
bool tolerated(const sqlite::Connection& c, const std::string& name, const SchemaObject& object,
               const SchemaShape& expected) {
  if (object.type == "table")
    return name == "sqlite_stat1" || name == "sqlite_stat2" || name == "sqlite_stat3" || name == "sqlite_stat4" ||
           name == "sqlite_sequence";
  if (object.type != "index" || !object.sql) return false;
  const auto table = expected.objects.find(object.table);
  if (table == expected.objects.end() || table->second.type != "table") return false;
  sqlite::Statement q(c, "SELECT \"unique\" FROM pragma_index_list(?1) WHERE name = ?2",
                      fmt::format("reading index {}", text_excerpt(name, 80)));
  q.bind(object.table, name);
  return q.step() && q.int64(0) == 0;
}

}  // namespace

std::string normalised_sql(std::string_view sql) {
  std::string out;
  bool space = false;  // whitespace or a comment was skipped since the last token
  const auto is_tight = [](char ch) { return ch == '(' || ch == ')' || ch == ',' || ch == ';'; };
  for (std::size_t i = 0; i < sql.size();) {
    const char ch = sql[i];
    if (std::isspace(static_cast<unsigned char>(ch))) {
      space = true;
      ++i;
      continue;
    }
    if (sql.substr(i, 2) == "--") {
      const auto end = sql.find('\n', i);
      i = end == std::string_view::npos ? sql.size() : end + 1;
      space = true;
      continue;
    }
    if (sql.substr(i, 2) == "/*") {
      const auto end = sql.find("*/", i + 2);
      i = end == std::string_view::npos ? sql.size() : end + 2;
      space = true;
      continue;
    }
    if (space && !out.empty() && !is_tight(out.back()) && !is_tight(ch)) out += ' ';
    space = false;
    if (ch == '\'' || ch == '"' || ch == '`' || ch == '[') {
      // A quoted string or identifier, kept as written; a doubled quote inside is part of it.
      const char close = ch == '[' ? ']' : ch;
      std::size_t end = i + 1;
      for (;;) {
        end = sql.find(close, end);
        if (end == std::string_view::npos) {
          end = sql.size();
          break;
        }
        if (close != ']' && end + 1 < sql.size() && sql[end + 1] == close) {
          end += 2;
          continue;
        }
        ++end;
        break;
      }
      out.append(sql.substr(i, end - i));
      i = end;
      continue;
    }
    out += ch;
    ++i;
  }
  return out;
}

std::optional<std::string> quick_check_problem(const sqlite::Connection& c) {
  sqlite::Statement q(c, "PRAGMA quick_check(1)", "checking the database (PRAGMA quick_check)");
  if (!q.step()) return "PRAGMA quick_check returned nothing";
  std::string result = q.text(0);
  if (result == "ok") return std::nullopt;
  return result;
}

std::optional<std::string> schema_difference(const sqlite::Connection& c, int version, SchemaUse use) {
  std::vector<const SchemaShape*> forms{&expected_shape({version, false, false})};
  if (version >= 6) forms.push_back(&expected_shape({version, false, true}));
  if (use == SchemaUse::read) {
    forms.push_back(&expected_shape({version, true, false}));
    if (version >= 6) forms.push_back(&expected_shape({version, true, true}));
  }
  const SchemaShape& expected = *forms.front();
  const std::map<std::string, SchemaObject> found = objects_of(c);
  std::vector<std::string> differences;
  for (const auto& [name, object] : expected.objects) {
    const auto it = found.find(name);
    if (it == found.end()) {
      differences.push_back(fmt::format("no {} {}", object.type, name));
      continue;
    }
    const SchemaObject& f = it->second;
    if (f.type != object.type || f.table != object.table) {
      differences.push_back(fmt::format("{} is a {} of {}, expected a {} of {}", name, f.type,
                                        text_excerpt(f.table, 80), object.type, object.table));
      continue;
    }
    const bool same = std::any_of(forms.begin(), forms.end(), [&](const SchemaShape* s) {
      const auto e = s->objects.find(name);
      return e != s->objects.end() && e->second.sql == f.sql;
    });
    if (same) continue;
    differences.push_back(object.type == "table"
                              ? table_change(c, name, forms, version)
                              : fmt::format("{} {} is not the one version {} defines", object.type, name, version));
  }
  for (const auto& [name, f] : found) {
    if (expected.objects.count(name) || tolerated(c, name, f, expected)) continue;
    const std::string on = f.type == "trigger" || f.type == "index" ? " on " + text_excerpt(f.table, 80) : "";
    // Quoted: the name is the file's, not the schema's.
    const bool unique_index = f.type == "index" && expected.objects.count(f.table);
    const std::string what = unique_index ? "a UNIQUE index" : (f.type == "index" ? "an " : "a ") + f.type;
    differences.push_back(
        fmt::format("{} '{}'{}, which version {} does not define", what, text_excerpt(name, 80), on, version));
  }
  if (differences.empty()) return std::nullopt;
  std::string text = differences.front();
  if (differences.size() > 1) text += fmt::format(" (and {} more difference(s))", differences.size() - 1);
  return text;
}

}  // namespace mpgemm::store_detail
