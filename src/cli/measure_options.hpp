#pragma once
// The verification and timing flags shared by every command that measures (mpgemm-tune, mpgemm-run), so their
// names, defaults and checks are one table: --atol --rtol --warmup --runs --iters --no-cublaslt.
#include "cli/args.hpp"
#include "tune/backend.hpp"

namespace mpgemm::cli {

void add_measure_options(ArgParser& parser);
// Throws UsageError for negative tolerances or warm-up, and for runs or iters that are not positive.
MeasureSettings measure_settings_from(const ParsedArgs& args);

}  // namespace mpgemm::cli
