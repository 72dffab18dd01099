#pragma once
// A database's content as sorted text lines, independent of ids and of the order rows were written in: two
// databases with equal dumps hold the same results. Each line is one row, "table|column=value|..." (backslashes,
// newlines and carriage returns in values escaped as \\, \n and \r), with every
// foreign key replaced by the natural key of the row it names (store/table_rows.hpp: a run by its uid, a config
// by family, name and source hash, a timing by its content, ...). What merge tests compare (A+B against B+A),
// and what `mpgemm-query DB --dump` prints.
#include <filesystem>
#include <string>
#include <vector>

namespace mpgemm {

struct DumpOptions {
  // Left out of every line and every key: "table.column" (e.g. "measurements.created_at"), "*.column" (that
  // column in every table) or "table" (the table's rows, and references to them become "-").
  std::vector<std::string> ignore;
};

// Opens `db` read-only (it must be at this build's schema version); throws StoreError.
std::vector<std::string> canonical_dump(const std::filesystem::path& db, const DumpOptions& options = {});

}  // namespace mpgemm
