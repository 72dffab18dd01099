#pragma once
// The printers behind report::print(); internal to src/report. Each takes a Table whose rows were checked to
// have one cell per column.
#include <iosfwd>

#include "report/table.hpp"

namespace mpgemm::report::detail {

void print_table(const Table& table, std::ostream& out);
void print_markdown(const Table& table, std::ostream& out);
void print_csv(const Table& table, std::ostream& out);
void print_json(const Table& table, std::ostream& out);

}  // namespace mpgemm::report::detail
