// The printers for people: an aligned terminal table and a GitHub markdown table. Both show doubles compactly
// (4 significant digits; times in "_ms" columns with 4 decimals so the decimal points line up), nulls as "-".
#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "report/printers.hpp"

namespace mpgemm::report::detail {

namespace {

bool is_number(const Cell& cell) {
  return std::holds_alternative<std::int64_t>(cell) || std::holds_alternative<double>(cell);
}

// A column is right-aligned when it holds numbers only (nulls aside) and at least one of them.
std::vector<bool> numeric_columns(const Table& table) {
  std::vector<bool> numeric(table.columns.size(), false);
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    bool any = false;
    bool all = true;
    for (const auto& row : table.rows) {
      if (std::holds_alternative<std::monostate>(row[c])) continue;
      any = true;
      all = all && is_number(row[c]);
    }
    numeric[c] = any && all;
  }
  return numeric;
}

// Terminal and markdown rows are one line each: control characters (newlines of a compiler log) become spaces.
std::string one_line(std::string_view s) {
  std::string line(s);
  for (char& c : line)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return line;
}

std::string human_text(const Cell& cell, std::string_view column) {
  if (const auto* i = std::get_if<std::int64_t>(&cell)) return fmt::format("{}", *i);
  if (const auto* d = std::get_if<double>(&cell))
    return column.ends_with("_ms") ? fmt::format("{:.4f}", *d) : fmt::format("{:.4g}", *d);
  if (const auto* s = std::get_if<std::string>(&cell)) return one_line(*s);
  return "-";
}

// Columns on a terminal count characters, not bytes: skip UTF-8 continuation bytes.
std::size_t display_width(std::string_view s) {
  std::size_t width = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++width;
  return width;
}

std::string pad(std::string_view text, std::size_t width, bool right) {
  const std::size_t fill = width > display_width(text) ? width - display_width(text) : 0;
  return right ? std::string(fill, ' ') + std::string(text) : std::string(text) + std::string(fill, ' ');
}

// Every cell as it will be shown, the header first; `escape` adapts the text to the format.
template <class Escape>
std::vector<std::vector<std::string>> texts(const Table& table, Escape escape) {
  std::vector<std::vector<std::string>> lines;
  std::vector<std::string> header;
  for (const auto& column : table.columns) header.push_back(escape(one_line(column)));
  lines.push_back(std::move(header));
  for (const auto& row : table.rows) {
    std::vector<std::string> line;
    for (std::size_t c = 0; c < row.size(); ++c) line.push_back(escape(human_text(row[c], table.columns[c])));
    lines.push_back(std::move(line));
  }
  return lines;
}

std::vector<std::size_t> widths(const std::vector<std::vector<std::string>>& lines, std::size_t columns,
                                std::size_t minimum) {
  std::vector<std::size_t> width(columns, minimum);
  for (const auto& line : lines)
    for (std::size_t c = 0; c < columns; ++c) width[c] = std::max(width[c], display_width(line[c]));
  return width;
}

std::string escape_markdown(std::string text) {
  std::string escaped;
  for (char c : text) {
    if (c == '|') escaped += '\\';
    escaped += c;
  }
  return escaped;
}

}  // namespace

void print_table(const Table& table, std::ostream& out) {
  const std::size_t n = table.columns.size();
  const auto numeric = numeric_columns(table);
  auto lines = texts(table, [](std::string s) { return s; });
  const auto width = widths(lines, n, 1);
  std::vector<std::string> rule;
  for (std::size_t c = 0; c < n; ++c) rule.emplace_back(width[c], '-');
  lines.insert(lines.begin() + 1, std::move(rule));
  for (const auto& line : lines) {
    std::string text;
    for (std::size_t c = 0; c < n; ++c) {
      if (c) text += "  ";
      // The last column is not padded on the right: no trailing blanks.
      text += (numeric[c] || c + 1 < n) ? pad(line[c], width[c], numeric[c]) : line[c];
    }
    out << text << '\n';
  }
}

void print_markdown(const Table& table, std::ostream& out) {
  const std::size_t n = table.columns.size();
  const auto numeric = numeric_columns(table);
  auto lines = texts(table, escape_markdown);
  const auto width = widths(lines, n, 3);
  std::vector<std::string> rule;
  for (std::size_t c = 0; c < n; ++c)
    rule.push_back(numeric[c] ? std::string(width[c] - 1, '-') + ":" : std::string(width[c], '-'));
  lines.insert(lines.begin() + 1, std::move(rule));
  for (const auto& line : lines) {
    std::string text = "|";
    for (std::size_t c = 0; c < n; ++c) text += " " + pad(line[c], width[c], numeric[c]) + " |";
    out << text << '\n';
  }
}

}  // namespace mpgemm::report::detail
