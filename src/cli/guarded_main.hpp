#pragma once
// The one place where errors become exit codes. The rule, printed at the end of every --help (kExitStatusHelp):
//   0  done (also --help)
//   1  a failure while working: a database that cannot be opened, read or written (missing, not a database,
//      damaged, a newer schema, locked, disk full), what a database holds not answering the request (no verified
//      winner, a config it lacks), SQL it cannot run or that runs past --timeout, an output whose folder is
//      missing or read-only, NVRTC, CUDA, a worker
//   2  bad input, refused before any work: the command line (UsageError: an option, its value, options that
//      exclude each other; InputRefused: an output that is one of the command's inputs or a database, SQL that
//      would write or attach), or a file handed to it as input that cannot be read whole or is malformed
//      (SpaceError, InputFileError: a space, a shape list, an exported file)
//   3  no CUDA device or driver, for a command that needs one (NoDeviceError)
// Every refusal is one line naming the file or option and what is wrong; a UsageError adds the --help hint.
// Library code below never exits.
#include <functional>
#include <string>
#include <string_view>

#include "cli/args.hpp"

namespace mpgemm::cli {

enum ExitCode : int { kExitOk = 0, kExitFailure = 1, kExitBadInput = 2, kExitNoDevice = 3 };

// The rule above as --help ends with it.
extern const std::string_view kExitStatusHelp;

// "<program> <version> (commit <sha>)\n": what --version prints, in every executable.
std::string version_line(std::string_view program);

int guarded_main(const ArgParser& parser, int argc, const char* const* argv,
                 const std::function<int(const ParsedArgs&)>& body);

}  // namespace mpgemm::cli
