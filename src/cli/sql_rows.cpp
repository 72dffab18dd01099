#include "cli/sql_rows.hpp"

#include <ostream>

#include <fmt/format.h>

#include "common/error.hpp"

namespace mpgemm::cli {

SqlRowPrinter::SqlRowPrinter(report::Format format, std::ostream& out, std::size_t block_rows)
    : format_(format), out_(out), block_rows_(block_rows == 0 ? 1 : block_rows) {}

void SqlRowPrinter::columns(const std::vector<std::string>& names) {
  pending_.columns = names;
  if (format_ == report::Format::csv) csv_header_ = report::render(report::Table{names, {}}, format_);
}

void SqlRowPrinter::row(std::vector<report::Cell>&& cells) {
  if (!streams()) {
    for (const auto& cell : cells)
      if (const auto* s = std::get_if<std::string>(&cell)) text_bytes_ += s->size();
    if (pending_.rows.size() >= kMaxAlignedRows || text_bytes_ > kMaxAlignedBytes)
      throw Error(fmt::format(
          "the answer has more than {} rows or {} MiB of text, too much to align as a {}: use --format csv or "
          "--format json, which print the rows as they come, or add a LIMIT",
          kMaxAlignedRows, kMaxAlignedBytes >> 20, report::to_string(format_)));
  }
  pending_.rows.push_back(std::move(cells));
  if (streams() && pending_.rows.size() >= block_rows_) flush_block();
}

// A block printed as part of the whole: CSV without its header after the first, JSON's objects without the
// brackets of their array, joined by commas, so the output is the one report::print gives for every row at once.
void SqlRowPrinter::flush_block() {
  if (pending_.rows.empty()) return;
  std::string text = report::render(pending_, format_);
  if (format_ == report::Format::csv) {
    if (printed_ > 0) text.erase(0, csv_header_.size());
  } else {
    // "[\n  {...},\n  {...}\n]\n" -> "  {...},\n  {...}"
    text = text.substr(2, text.size() - 5);
    text = (printed_ == 0 ? "[\n" : ",\n") + text;
  }
  out_ << text;
  // A reader that went away (head, a pager quit; SIGPIPE is ignored) would otherwise leave an endless query running
  // until its time limit.
  if (!out_.flush()) throw Error("cannot write the rows: the output was closed");
  printed_ += pending_.rows.size();
  pending_.rows.clear();
}

void SqlRowPrinter::finish() {
  if (!streams()) {
    report::print(pending_, format_, out_);
    return;
  }
  if (format_ == report::Format::csv && printed_ == 0 && pending_.rows.empty()) {
    out_ << csv_header_;
    return;
  }
  if (format_ == report::Format::json && printed_ == 0 && pending_.rows.empty()) {
    out_ << "[]\n";
    return;
  }
  flush_block();
  if (format_ == report::Format::json) out_ << "\n]\n";
}

}  // namespace mpgemm::cli
