#pragma once
// mpgemm-query --sql's printer: the rows of a user query printed as they come (Store::query_sql_rows), in any
// --format, exactly as report::print would print the whole table. CSV and JSON stream, a block of rows at a time,
// so an answer of any length is printed in bounded memory. The aligned table and markdown size their columns from
// every row, so they keep the rows until the end, and refuse an answer larger than kMaxAlignedRows rows or
// kMaxAlignedBytes of text, saying to use CSV or JSON (or a LIMIT), before printing anything.
#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "report/table.hpp"

namespace mpgemm::cli {

inline constexpr std::size_t kMaxAlignedRows = 100'000;
inline constexpr std::size_t kMaxAlignedBytes = 64u << 20;

class SqlRowPrinter {
 public:
  // `block_rows`: rows rendered and written together (CSV, JSON).
  SqlRowPrinter(report::Format format, std::ostream& out, std::size_t block_rows = 1000);

  void columns(const std::vector<std::string>& names);
  // Throws mpgemm::Error for a table or markdown answer past the bounds above.
  void row(std::vector<report::Cell>&& cells);
  // Prints what is left: the last block, or the whole aligned table.
  void finish();

 private:
  void flush_block();
  bool streams() const { return format_ == report::Format::csv || format_ == report::Format::json; }

  report::Format format_;
  std::ostream& out_;
  std::size_t block_rows_;
  report::Table pending_;       // the rows not printed yet
  std::string csv_header_;      // what a block's CSV begins with, printed once
  std::size_t printed_ = 0;     // rows printed so far
  std::size_t text_bytes_ = 0;  // text held for an aligned table
};

}  // namespace mpgemm::cli
