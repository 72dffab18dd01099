#include "store/merge_rows.hpp"

#include <signal.h>

#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "common/error.hpp"

namespace mpgemm::store_detail {

namespace {

std::string content_of(const std::vector<Value>& values) {
  std::string s;
  for (const auto& v : values) s += v.encoded() + ";";
  return s;
}

std::string quoted_list(const std::vector<std::string>& columns, std::string_view suffix) {
  std::string out;
  for (const auto& c : columns) out += fmt::format("{}\"{}\"{}", out.empty() ? "" : ", ", c, suffix);
  return out;
}

}  // namespace

// One table of OUT: its columns, the positions the merge reads, and its statements.
struct RowMerger::Table {
  TableSpec spec;
  TableInfo info;
  std::vector<int> key;                     // positions of the natural key columns
  std::map<int, std::string> foreign_keys;  // position -> referenced table
  int created_at = -1, ended_at = -1, status = -1, run_id = -1, fill = -1, parent = -1;
  std::optional<sqlite::Statement> insert, update, find;

  Table(const sqlite::Connection& out, const TableSpec& s) : spec(s), info(table_info(out, s.name)) {
    for (auto k : spec.key) key.push_back(at(k));
    for (const auto& [column, table] : info.foreign_keys) foreign_keys[at(column)] = table;
    created_at = info.column_index("created_at");
    ended_at = info.column_index("ended_at");
    status = info.column_index("status");
    run_id = info.foreign_keys.contains("run_id") ? info.column_index("run_id") : -1;
    if (!spec.fill_null.empty()) fill = at(spec.fill_null);
    if (!spec.parent.empty()) parent = at(spec.parent);
    std::string params;
    for (std::size_t i = 1; i <= info.columns.size(); ++i) params += fmt::format("{}?{}", i > 1 ? ", " : "", i);
    insert.emplace(out,
                   fmt::format("INSERT INTO \"{}\" ({}) VALUES ({})", info.name, quoted_list(info.columns, ""), params),
                   "adding a row to " + info.name);
    if (!info.has_id) return;
    std::string sets;
    for (std::size_t i = 0; i < info.columns.size(); ++i)
      sets += fmt::format("{}\"{}\" = ?{}", i ? ", " : "", info.columns[i], i + 1);
    update.emplace(out, fmt::format("UPDATE \"{}\" SET {} WHERE id = ?{}", info.name, sets, info.columns.size() + 1),
                   "replacing a row of " + info.name);
    if (key.empty()) return;
    std::string where;
    for (std::size_t i = 0; i < key.size(); ++i)
      where += fmt::format("{}\"{}\" IS ?{}", i ? " AND " : "", info.columns[key[i]], i + 1);
    const std::string select = select_sql(info);
    find.emplace(out, fmt::format("{} WHERE {}", select.substr(0, select.find(" ORDER BY")), where),
                 "looking up a row of " + info.name + " by its key");
  }

  int at(std::string_view column) const {
    const int i = info.column_index(column);
    if (i < 0) throw Error(fmt::format("merge: table {} has no column {}", info.name, column));
    return i;
  }
};

RowMerger::RowMerger(const sqlite::Connection& out, std::vector<MergeCounts>& counts, std::int64_t abort_after_rows)
    : out_(out), counts_(counts), abort_after_rows_(abort_after_rows) {}

void RowMerger::wrote() {
  if (abort_after_rows_ > 0 && ++written_ >= abort_after_rows_) ::raise(SIGKILL);
}

void RowMerger::merge_input(const sqlite::Connection& in) {
  ids_.clear();
  added_.clear();
  const auto specs = table_specs();
  for (std::size_t i = 0; i < specs.size(); ++i) merge_table(in, specs[i], counts_.at(i));
}

Row RowMerger::mapped(const Table& t, const Row& row, const std::string& input) const {
  Row out = row;
  for (const auto& [i, table] : t.foreign_keys) {
    Value& v = out.values[static_cast<std::size_t>(i)];
    if (v.is_null()) continue;
    const auto& map = ids_.at(table);
    const auto it = map.find(v.integer);
    if (it == map.end())
      throw StoreError(input, SQLITE_CONSTRAINT_FOREIGNKEY,
                       fmt::format("merge input: a row of {} names {} id {}, which the input does not hold",
                                   t.info.name, table, v.integer));
    v.integer = it->second;
  }
  return out;
}

std::string RowMerger::run_uid(const Value& run_id) const {
  sqlite::Statement s(out_, "SELECT uid FROM runs WHERE id = ?1", "reading a run's uid");
  s.bind(run_id.integer);
  return s.step() ? s.text(0) : std::string();
}

// The conflict rule of store/merge.hpp; every step compares the two rows alone, never which came first.
bool RowMerger::input_wins(const Table& t, const Row& in, const Row& out) const {
  auto text = [](const Row& r, int i) { return r.values[static_cast<std::size_t>(i)].bytes; };
  if (t.created_at >= 0 && text(in, t.created_at) != text(out, t.created_at))
    return text(in, t.created_at) < text(out, t.created_at);
  if (t.ended_at >= 0 && t.status >= 0) {  // a run: ended beats running, then the later end
    auto rank = [&](const Row& r) {
      const Value& end = r.values[static_cast<std::size_t>(t.ended_at)];
      return std::tuple(text(r, t.status) != "running", !end.is_null(), end.bytes);
    };
    if (rank(in) != rank(out)) return rank(in) > rank(out);
  }
  if (t.run_id >= 0) {
    const std::string a = run_uid(in.values[static_cast<std::size_t>(t.run_id)]);
    const std::string b = run_uid(out.values[static_cast<std::size_t>(t.run_id)]);
    if (a != b) return a < b;
  }
  // Last, the content without foreign keys (OUT's ids depend on the order rows arrived in).
  std::string a, b;
  for (std::size_t i = 0; i < in.values.size(); ++i) {
    if (t.foreign_keys.contains(static_cast<int>(i))) continue;
    a += in.values[i].encoded() + ";";
    b += out.values[i].encoded() + ";";
  }
  return a < b;
}

void RowMerger::merge_table(const sqlite::Connection& in, const TableSpec& spec, MergeCounts& counts) {
  Table t(out_, spec);
  auto& ids = ids_[t.info.name];
  auto& added = added_[t.info.name];
  auto insert = [&](const Row& row) {
    t.insert->reset();
    for (std::size_t i = 0; i < row.values.size(); ++i) bind_value(*t.insert, static_cast<int>(i) + 1, row.values[i]);
    t.insert->run();
    wrote();
    ++counts.added;
    const std::int64_t id = sqlite3_last_insert_rowid(out_.db);
    added.insert(id);
    return id;
  };
  // Content-keyed tables: what OUT holds, by content (its foreign keys are OUT ids, like a mapped input row's).
  std::unordered_map<std::string, std::int64_t> by_content;
  if (t.info.has_id && t.key.empty())
    for_each_row(out_, t.info, [&](const Row& r) { by_content.emplace(content_of(r.values), r.id); });

  for_each_row(in, t.info, [&](const Row& raw) {
    const Row row = mapped(t, raw, in.path);
    if (!t.info.has_id) {  // a child: comes with its parent, when the parent was added
      const std::string& parent_table = t.info.foreign_keys.at(std::string(spec.parent));
      if (added_[parent_table].contains(row.values[static_cast<std::size_t>(t.parent)].integer))
        insert(row);
      else
        ++counts.present;
      return;
    }
    if (t.key.empty()) {
      const std::string content = content_of(row.values);
      if (auto it = by_content.find(content); it != by_content.end()) {
        ids[raw.id] = it->second;
        ++counts.present;
      } else {
        ids[raw.id] = by_content[content] = insert(row);
      }
      return;
    }
    t.find->reset();
    for (std::size_t i = 0; i < t.key.size(); ++i)
      bind_value(*t.find, static_cast<int>(i) + 1, row.values[static_cast<std::size_t>(t.key[i])]);
    if (!t.find->step()) {
      ids[raw.id] = insert(row);
      return;
    }
    const Row existing = read_row(t.find->get(), t.info);
    t.find->reset();
    ids[raw.id] = existing.id;
    if (content_of(existing.values) == content_of(row.values)) {
      ++counts.present;
      return;
    }
    ++counts.conflicts;
    const bool in_wins = input_wins(t, row, existing);
    Row result = in_wins ? row : existing;
    const Row& loser = in_wins ? existing : row;
    if (t.fill >= 0 && result.values[static_cast<std::size_t>(t.fill)].is_null())
      result.values[static_cast<std::size_t>(t.fill)] = loser.values[static_cast<std::size_t>(t.fill)];
    if (in_wins) ++counts.replaced;
    if (content_of(result.values) == content_of(existing.values)) return;
    t.update->reset();
    for (std::size_t i = 0; i < result.values.size(); ++i)
      bind_value(*t.update, static_cast<int>(i) + 1, result.values[i]);
    Value id;
    id.type = SQLITE_INTEGER;
    id.integer = existing.id;
    bind_value(*t.update, static_cast<int>(result.values.size()) + 1, id);
    t.update->run();
    wrote();
  });
}

}  // namespace mpgemm::store_detail
