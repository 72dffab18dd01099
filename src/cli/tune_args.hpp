#pragma once
// The options of mpgemm-tune, shared with tests so the documented flags and the parsed ones stay one table.
#include "cli/args.hpp"
#include "tune/tuner.hpp"

namespace mpgemm::cli {

void add_tune_options(ArgParser& parser);
// Throws UsageError for values out of range.
TuneOptions tune_options_from(const ParsedArgs& args, int argc, const char* const* argv);

}  // namespace mpgemm::cli
