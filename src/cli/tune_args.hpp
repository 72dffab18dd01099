#pragma once
// The options of mpgemm-tune, shared with tests so the documented flags and the parsed ones stay one table.
#include "cli/args.hpp"
#include "tune/tuner.hpp"

namespace mpgemm::cli {

void add_tune_options(ArgParser& parser);
// Throws UsageError for values out of range. The shapes are --shapes' extents whatever kind each names, and the kind
// is --problem's: one run's options before tune_runs_from splits them by kind.
TuneOptions tune_options_from(const ParsedArgs& args, int argc, const char* const* argv);

// The runs the command line asks for, one per problem kind: a --shapes entry is tuned as the kind it names (its own,
// else its file's), an entry that names none as --problem's (else the default). The runs come in the order each
// kind is first listed, each with its own shapes in list order; a command whose shapes name no kind is one run, as
// before. Throws UsageError as tune_options_from.
std::vector<TuneOptions> tune_runs_from(const ParsedArgs& args, int argc, const char* const* argv);

}  // namespace mpgemm::cli
