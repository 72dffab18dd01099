#include "store/dump.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "store/store.hpp"
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

}  // namespace

std::vector<std::string> canonical_dump(const std::filesystem::path& db, const DumpOptions& options) {
  // Store checks it is ours and current; the rows are read through a connection of our own.
  { const Store check = Store::open(db, Store::Mode::read_only); }
  const OwnConnection c(db, SQLITE_OPEN_READONLY, "dumping the database");
  sqlite::exec(c.get(), "BEGIN", "dumping the database");  // one snapshot of every table

  std::map<std::string, std::unordered_map<std::int64_t, std::string>> keys;  // table -> id -> natural key
  std::vector<std::string> lines;
  for (const auto& spec : table_specs()) {
    const TableInfo info = table_info(c.get(), spec.name);
    const bool skip = table_ignored(options, spec.name);
    auto& table_keys = keys[info.name];
    for_each_row(c.get(), info, [&](const Row& row) {
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
      if (!skip) lines.push_back(std::move(line));
    });
  }
  sqlite::exec(c.get(), "COMMIT", "dumping the database");
  std::sort(lines.begin(), lines.end());
  return lines;
}

}  // namespace mpgemm
