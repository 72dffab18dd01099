#pragma once
// The row-level half of the merge (store/merge.hpp), internal to src/store: one input's rows into OUT, table by
// table, inside the caller's transaction.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "store/merge.hpp"
#include "store/table_rows.hpp"

namespace mpgemm::store_detail {

class RowMerger {
 public:
  // `abort_after_rows` > 0: the test hook (MPGEMM_MERGE_TEST_ABORT_AFTER_ROWS) that kills this process with
  // SIGKILL once that many rows have been written, to prove the merge atomic.
  RowMerger(const sqlite::Connection& out, std::vector<MergeCounts>& counts, std::int64_t abort_after_rows);

  // Every row of `in` into OUT; both at this build's schema version.
  void merge_input(const sqlite::Connection& in);

 private:
  struct Table;
  void merge_table(const sqlite::Connection& in, const TableSpec& spec, MergeCounts& counts);
  Row mapped(const Table& t, const Row& row, const std::string& input) const;
  bool input_wins(const Table& t, const Row& in, const Row& out) const;
  std::string run_uid(const Value& run_id) const;
  void wrote();

  const sqlite::Connection& out_;
  std::vector<MergeCounts>& counts_;
  std::int64_t abort_after_rows_;
  std::int64_t written_ = 0;
  // Per table, for the input being merged: its id -> OUT's id, and the OUT ids it added (their children follow).
  std::map<std::string, std::unordered_map<std::int64_t, std::int64_t>> ids_;
  std::map<std::string, std::set<std::int64_t>> added_;
};

}  // namespace mpgemm::store_detail
