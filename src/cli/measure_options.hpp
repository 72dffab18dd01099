#pragma once
// The verification and timing flags shared by every command that measures (mpgemm-tune, mpgemm-run), so their
// names, defaults and checks are one table: --atol --rtol --warmup --runs --iters --no-cublaslt,
// --l2, --noise-target --min-samples --max-time, --screen-threshold --screen-launches --no-screen.
#include <optional>

#include "cli/args.hpp"
#include "tune/backend.hpp"
#include "tune/rerank.hpp"

namespace mpgemm::cli {

void add_measure_options(ArgParser& parser);
// Throws UsageError for negative tolerances or warm-up, runs or iters that are not positive, an unknown L2 mode,
// a noise target that is not positive, and contradictory screening flags.
MeasureSettings measure_settings_from(const ParsedArgs& args);

// --rerank-within X of the commands that re-rank (mpgemm-tune, mpgemm-run): nullopt when not given; throws
// UsageError outside [0, 1].
std::optional<double> rerank_within_from(const ParsedArgs& args);

// --rerank-settle-ms MS of the same commands: untimed rounds of the re-rank's batches before its timed ones
// (RerankProtocol::settle_ms). One declaration and one default for both; throws UsageError outside 0 to
// kMaxSettleMs.
void add_rerank_settle_option(ArgParser& parser);
int rerank_settle_ms_from(const ParsedArgs& args);

// --rerank-min-ms, --rerank-max-batch-ms and --rerank-cycles of the same commands: the re-rank sized by time
// (RerankOptions::min_kernel_ms, max_batch_ms; sized_rerank_protocol) and ranked by cycles too (by_cycles_too).
// One declaration and one default for both; rerank_choices_from sets those fields of `options` and throws
// UsageError for a time that is negative or over a minute.
void add_rerank_choice_options(ArgParser& parser);
void rerank_choices_from(const ParsedArgs& args, RerankOptions& options);

}  // namespace mpgemm::cli
