#pragma once
// What a writer checks of an existing database before its first write (internal to src/store): that SQLite finds
// its pages sound, and that it holds the tables, columns, indexes and views its schema version has. A resumed tune
// must not add rows to a file whose rows it cannot trust.
#include <optional>
#include <string>

#include "store/sqlite.hpp"

namespace mpgemm::store_detail {

// PRAGMA quick_check's first finding (a damaged page, a malformed row, a NULL in a NOT NULL column, a value of the
// wrong type in a STRICT table); none when it says "ok". Reads every page once. Throws StoreError when SQLite
// cannot even run it (a page too damaged to read).
std::optional<std::string> quick_check_problem(const sqlite::Connection& c);

// How the file's schema differs from what migrations 1 to `version` create: every table, view, index and trigger
// of that version must be there, each table with the same columns in the same order (name, declared type, NOT
// NULL, primary key, generated) and the same STRICT and WITHOUT ROWID. Objects of the file's own (a view a user
// added) are not differences. None when it matches.
std::optional<std::string> schema_difference(const sqlite::Connection& c, int version);

}  // namespace mpgemm::store_detail
