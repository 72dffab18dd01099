#pragma once
// mpgemm-run --rerank K: the top-K re-rank of one shape on its own (tune/rerank.hpp), recorded in the database
// under a run of its own, for a database tuned before re-ranks existed or to re-rank again.
#include <string>
#include <vector>

#include "cli/run_table.hpp"
#include "report/table.hpp"
#include "tune/rerank.hpp"

namespace mpgemm::cli {

// Re-ranks options.shape on the GPU, recording into options.db_path, and returns the re-rank's table
// (rerank_table); `notes` gets the outcome's line. Throws NoDeviceError without a GPU.
report::Table run_rerank(const RunOptions& options, const RerankOptions& rerank, const std::vector<std::string>& argv,
                         std::vector<std::string>* notes);

}  // namespace mpgemm::cli
