// Format names, the print() entry point, and the machine-readable printers (CSV, JSON), which keep every digit.
#include <algorithm>
#include <array>
#include <ostream>
#include <sstream>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "report/printers.hpp"
#include "report/table.hpp"

namespace mpgemm::report {

namespace {

constexpr std::array<std::pair<Format, std::string_view>, 4> kFormatNames{{
    {Format::table, "table"},
    {Format::csv, "csv"},
    {Format::json, "json"},
    {Format::markdown, "markdown"},
}};

// Shortest text that reads back as the same double (fmt's default), so CSV and JSON lose nothing.
std::string exact_number(double v) {
  return fmt::format("{}", v);
}

// RFC 4180: quote a field holding a comma, a quote or a line break; double the quotes inside.
std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string quoted = "\"";
  for (char c : s) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  quoted += '"';
  return quoted;
}

std::string csv_cell(const Cell& cell) {
  if (const auto* i = std::get_if<std::int64_t>(&cell)) return fmt::format("{}", *i);
  if (const auto* d = std::get_if<double>(&cell)) return exact_number(*d);
  if (const auto* s = std::get_if<std::string>(&cell)) return csv_field(*s);
  return "";  // null
}

nlohmann::ordered_json json_cell(const Cell& cell) {
  if (const auto* i = std::get_if<std::int64_t>(&cell)) return *i;
  if (const auto* d = std::get_if<double>(&cell)) return *d;  // NaN and infinities print as null
  if (const auto* s = std::get_if<std::string>(&cell)) return *s;
  return nullptr;
}

// JSON object keys must be unique; a query such as "SELECT 1, 1" repeats a column name, so later copies get a
// "_2", "_3", ... suffix instead of silently replacing the first value.
std::vector<std::string> unique_keys(const std::vector<std::string>& columns) {
  std::vector<std::string> keys;
  for (const auto& column : columns) {
    std::string key = column;
    for (int n = 2; std::find(keys.begin(), keys.end(), key) != keys.end(); ++n) key = fmt::format("{}_{}", column, n);
    keys.push_back(std::move(key));
  }
  return keys;
}

}  // namespace

std::string_view to_string(Format format) {
  for (const auto& [f, name] : kFormatNames)
    if (f == format) return name;
  return "unknown";
}

std::optional<Format> format_from_string(std::string_view text) {
  if (text == "md") return Format::markdown;
  for (const auto& [f, name] : kFormatNames)
    if (name == text) return f;
  return std::nullopt;
}

std::string_view format_names() {
  return "table, csv, json, markdown";
}

void print(const Table& table, Format format, std::ostream& out) {
  for (std::size_t r = 0; r < table.rows.size(); ++r)
    if (table.rows[r].size() != table.columns.size())
      throw Error(
          fmt::format("report: row {} has {} cells for {} columns", r + 1, table.rows[r].size(), table.columns.size()));
  switch (format) {
    case Format::table:
      return detail::print_table(table, out);
    case Format::csv:
      return detail::print_csv(table, out);
    case Format::json:
      return detail::print_json(table, out);
    case Format::markdown:
      return detail::print_markdown(table, out);
  }
  throw Error(fmt::format("report: unknown format {}", static_cast<int>(format)));
}

std::string render(const Table& table, Format format) {
  std::ostringstream out;
  print(table, format, out);
  return out.str();
}

namespace detail {

void print_csv(const Table& table, std::ostream& out) {
  std::string line;
  for (std::size_t c = 0; c < table.columns.size(); ++c) line += (c ? "," : "") + csv_field(table.columns[c]);
  out << line << '\n';
  for (const auto& row : table.rows) {
    line.clear();
    for (std::size_t c = 0; c < row.size(); ++c) line += (c ? "," : "") + csv_cell(row[c]);
    out << line << '\n';
  }
}

void print_json(const Table& table, std::ostream& out) {
  const auto keys = unique_keys(table.columns);
  auto array = nlohmann::ordered_json::array();
  for (const auto& row : table.rows) {
    auto object = nlohmann::ordered_json::object();
    for (std::size_t c = 0; c < row.size(); ++c) object[keys[c]] = json_cell(row[c]);
    array.push_back(std::move(object));
  }
  // Text from the database (compiler logs) may hold invalid UTF-8: replace it rather than fail the whole print.
  out << array.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
}

}  // namespace detail

}  // namespace mpgemm::report
