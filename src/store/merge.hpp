#pragma once
// Merging results databases by content (mpgemm-query merge OUT IN...): the shards of one tuning job, or results
// from several machines, into one database.
//
// Rows are matched by their natural keys (store/table_rows.hpp): runs by uid, configs by (family, name,
// source_hash), compilations by (config, arch, compile_key), measurements by result_key; the cuBLAS and cuBLASLt
// timings, profile counters and re-ranks by their whole content (foreign keys compared as the rows they name);
// a re-rank's configs and samples come with it. Columns are copied by name, so a column added by a later schema
// version is carried without a change here; foreign keys are mapped to OUT's ids.
//
// Two rows with one key and different content (a config met by two runs, a result key measured twice) are a
// conflict, resolved by a rule that does not depend on the order of the inputs: the earliest created_at wins,
// then the smaller run uid, then the smaller content; a config keeps an alias either had. For a run (the same
// uid copied at two moments) an ended run wins over a running one, then the later ended_at. The winner replaces
// a loser already in OUT. Hence merging is idempotent and order-independent: A+B, B+A and A+B+B hold the same
// content, and merging a database into itself (or a copy) changes nothing.
//
// Atomic: everything is written in one IMMEDIATE transaction on OUT; a new OUT is built under a temporary name
// beside it and renamed into place at the end. kill -9 at any moment leaves OUT as it was or complete (a new OUT
// absent; its temporary file "<OUT>.merging-<pid>" may be left behind).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "report/table.hpp"

namespace mpgemm {

struct MergeCounts {
  std::string table;
  std::int64_t added = 0;      // rows new to OUT
  std::int64_t present = 0;    // rows OUT already held (same key, same content)
  std::int64_t conflicts = 0;  // same key, different content: resolved by the rule above
  std::int64_t replaced = 0;   // of the conflicts, those where the input's row won and replaced OUT's
};

struct MergeReport {
  bool created = false;             // OUT did not exist before
  std::vector<MergeCounts> tables;  // one per table, in dependency order, summed over the inputs
  std::vector<std::string> notes;   // inputs migrated or skipped, in words
  // For the caller to print on stderr, one line each naming the input: an input whose runs read 'running' (a tuner
  // may still be writing it, or was killed) is merged as it is at that moment.
  std::vector<std::string> warnings;
};

// Merges `inputs` into `out` (created when missing; migrated first like any read-write open). Inputs are never
// modified: one at an older schema version is migrated in a temporary copy. An input that is `out` itself is
// skipped (noted): its rows are already there. Throws StoreError naming the file when an input is not an mpgemm
// results database, has a newer schema than this build or has a table the merge does not know (it would not be
// copied), and when OUT has a run whose process is still recording (merge after it ends); OUT is then left as it
// was.
MergeReport merge_databases(const std::filesystem::path& out, const std::vector<std::filesystem::path>& inputs);

// The counts as a table: table, added, present, conflicts, replaced.
report::Table merge_table(const MergeReport& report);

}  // namespace mpgemm
