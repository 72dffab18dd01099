#pragma once
// The one place where errors become exit codes: 0 success, 1 a run-time failure, 2 bad input (usage, space
// file), 3 no CUDA device for a command that needs one. Library code below never exits.
#include <functional>

#include "cli/args.hpp"

namespace mpgemm::cli {

enum ExitCode : int { kExitOk = 0, kExitFailure = 1, kExitBadInput = 2, kExitNoDevice = 3 };

int guarded_main(const ArgParser& parser, int argc, const char* const* argv,
                 const std::function<int(const ParsedArgs&)>& body);

}  // namespace mpgemm::cli
