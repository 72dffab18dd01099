#pragma once
// One tabular record feeding every printer: store queries, tuner summaries and the CLI all build a Table, and
// each output format (terminal table, CSV, JSON, markdown) is a printer over it. Printers never see where the
// data came from, so every format shows the same rows.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace mpgemm::report {

// One value: null (std::monostate), integer, floating point or text.
using Cell = std::variant<std::monostate, std::int64_t, double, std::string>;

// Column names and rows of cells; every row has exactly columns.size() cells (print() throws mpgemm::Error
// otherwise). A column whose name ends in "_ms" holds times in milliseconds and keeps 4 decimals for humans.
struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;
};

enum class Format {
  table,     // aligned columns for a terminal: numbers right-aligned, doubles compact, nulls as "-"
  csv,       // header line + one line per row ("\n" line ends); RFC 4180 quoting; nulls empty; full precision
  json,      // array of objects, keys in column order, values typed (null, number, string); full precision
  markdown,  // GitHub pipe table, numbers right-aligned, '|' escaped, nulls as "-"
};

std::string_view to_string(Format format);
// "table", "csv", "json", "markdown" (or "md"); nullopt for anything else.
std::optional<Format> format_from_string(std::string_view text);
// Comma-separated list of the accepted names, for --help and error messages.
std::string_view format_names();

void print(const Table& table, Format format, std::ostream& out);
// print() into a string.
std::string render(const Table& table, Format format);

}  // namespace mpgemm::report
