#pragma once
// The results database's schema, defined once here: an ordered list of migrations, each bringing the database
// from version N-1 to N (PRAGMA user_version). A new column or table is a new migration appended to the list;
// released migrations never change.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace mpgemm {

// PRAGMA application_id of every mpgemm results database: "mpge" in ASCII.
inline constexpr std::int32_t kStoreApplicationId = 0x6D706765;

// The schema version this build writes and reads (the last migration's version).
int schema_version();

// The documented schema: every migration's SQL in order, with its version as a comment. Shown by
// `mpgemm-query --schema` and in docs/schema.md (tools/gen_schema_doc.py).
std::string schema_sql();

namespace store_detail {

struct Migration {
  int version;           // user_version once applied
  std::string_view sql;  // statements run in the migration's transaction
};

std::span<const Migration> migrations();

}  // namespace store_detail

}  // namespace mpgemm
