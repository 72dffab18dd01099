#pragma once
// A database's content as sorted text lines, independent of ids and of the order rows were written in: two
// databases with equal dumps hold the same results. Each line is one row, "table|column=value|..." (backslashes,
// newlines and carriage returns in values escaped as \\, \n and \r), with every
// foreign key replaced by the natural key of the row it names (store/table_rows.hpp: a run by its uid, a config
// by family, name and source hash, a timing by its content, ...). What merge tests compare (A+B against B+A),
// and what `mpgemm-query DB --dump` prints.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace mpgemm {

struct DumpOptions {
  // Left out of every line and every key: "table.column" (e.g. "measurements.created_at"), "*.column" (that
  // column in every table) or "table" (the table's rows, and references to them become "-").
  std::vector<std::string> ignore;
};

// A row its table's constraints refuse (a NULL in a NOT NULL column, a value a CHECK or a STRICT column's type
// refuses): the schema makes such a row impossible to write, so the file was damaged or written past the schema.
struct DamagedRow {
  std::string table;
  std::int64_t rowid = 0;
  std::string why;  // SQLite's words, e.g. "NOT NULL constraint failed: configs.family"
};

struct Dump {
  std::vector<std::string> lines;   // sorted; damaged rows are left out (a reference to one reads "?")
  std::vector<DamagedRow> damaged;  // in table order, then rowid order
};

// Reads `db` without writing it, whatever schema version of this project it has (an older one is migrated in a
// copy in memory, as Store's read-only open does). Every row is checked against its table's constraints. Throws
// StoreError when the file cannot be opened or read at all.
Dump read_dump(const std::filesystem::path& db, const DumpOptions& options = {});

// read_dump's lines; throws StoreError naming the first damaged row when there is one.
std::vector<std::string> canonical_dump(const std::filesystem::path& db, const DumpOptions& options = {});

// "table T, rowid R: why", for a message.
std::string describe(const DamagedRow& row);

}  // namespace mpgemm
