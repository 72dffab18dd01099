#pragma once
// Opening a results database for reading without writing anything beside it, whatever journal mode it was left in
// (internal to src/store). A database left in WAL mode (a tuner killed with -9, a copy taken while one ran) cannot
// be read by SQLite without its "-wal" and "-shm" files: a plain read-only connection creates the missing ones, and
// on read-only media it cannot, and fails. Such a file is read from a snapshot held in memory instead.
#include <filesystem>
#include <string_view>

#include "store/sqlite.hpp"

namespace mpgemm::store_detail {

// Opens `path` read-only into `c` (c.path names the file in messages; c.db is set). Returns false for a connection
// to the file itself (a database in rollback-journal mode, or in WAL mode with both its -wal and -shm present: a
// live writer's, or a killed one's, which SQLite reads without creating anything); true for a connection to an
// in-memory snapshot of it (WAL mode with the -wal or the -shm missing: no writer is live, and what the -wal holds
// is read too). Nothing is written beside the file either way. Throws StoreError.
bool open_for_reading(sqlite::Connection& c, const std::filesystem::path& path, int busy_timeout_ms);

// Replaces c.db by an in-memory copy of its main database (SQLite's backup: one consistent snapshot) and closes the
// original connection. `doing` completes "… while <doing>" in an error.
void read_into_memory(sqlite::Connection& c, std::string_view doing);

}  // namespace mpgemm::store_detail
