#pragma once
// What is checked of an existing database before it is trusted (internal to src/store): that SQLite finds its pages
// sound (a writer, before its first write), and that its schema is what its version defines, by the SQL of every
// table, index, view and trigger (every reader and writer, before anything reads a view or writes a row). A
// database from elsewhere is untrusted input: a planted trigger would run inside the tools as they write, and a
// redefined view would be believed (or never finish) as they read.
#include <optional>
#include <string>

#include "store/sqlite.hpp"

namespace mpgemm::store_detail {

// PRAGMA quick_check's first finding (a damaged page, a malformed row, a NULL in a NOT NULL column, a value of the
// wrong type in a STRICT table); none when it says "ok". Reads every page once. Throws StoreError when SQLite
// cannot even run it (a page too damaged to read).
std::optional<std::string> quick_check_problem(const sqlite::Connection& c);

// Who asks: a reader also accepts the first form of schema 1 (compilations without dynamic_shared_bytes), which it
// completes in its copy in memory; a writer, which would insert into that column, refuses it.
enum class SchemaUse { read, write };

// How the file's schema differs from what migrations 1 to `version` create (built in memory from the same SQL, so
// the check never restates the schema), or none. Every table, index and view of that version must be there with
// the same SQL once comments and whitespace are set aside (sqlite_schema.sql; a form an earlier build of the
// version wrote is accepted too). Of the file's own objects only an index that is not UNIQUE may be there (it
// changes no result, only a plan; a UNIQUE one could make inserts fail or rows be skipped), besides ANALYZE's
// sqlite_stat tables; a trigger, a view or a table of its own is a difference. The first difference is named, then
// how many more there are. Reads the schema only: runs no view, trigger or CHECK of the file.
std::optional<std::string> schema_difference(const sqlite::Connection& c, int version, SchemaUse use);

// `sql` with its comments removed and every run of whitespace made one space (none next to brackets, commas and
// semicolons); quoted strings and identifiers are kept as they are. Two statements that differ only in their
// comments and layout have the same normalised text.
std::string normalised_sql(std::string_view sql);

}  // namespace mpgemm::store_detail
