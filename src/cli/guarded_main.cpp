#include "cli/guarded_main.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "common/bounded_input.hpp"
#include "common/error.hpp"
#include "common/refusal.hpp"
#include "common/version.hpp"

namespace mpgemm::cli {

const std::string_view kExitStatusHelp =
    "\nExit status:\n"
    "  0  done\n"
    "  1  a failure while working: a database that cannot be opened, read or written, what it holds not\n"
    "     answering the request, an output that cannot be written, NVRTC, CUDA, a worker\n"
    "  2  bad input, refused in one line before any work: an option or its value (an output that is one of the\n"
    "     command's inputs or a database, SQL that would write), or a space, shape or exported file that cannot be\n"
    "     read or is malformed\n"
    "  3  no CUDA device or driver, for a command that needs one\n";

std::string version_line(std::string_view program) {
  return fmt::format("{} {} (commit {})\n", program, tool_version(), git_sha());
}

namespace {

// Flushes standard output and says whether everything written there arrived: a full disk (ENOSPC), a closed pipe
// (EPIPE: SIGPIPE is ignored) or any other failed write must not read as success.
std::optional<std::string> stdout_failure() {
  std::cout.flush();
  const bool stream_failed = !std::cout.good();
  errno = 0;
  const bool flush_failed = std::fflush(stdout) != 0;
  const int error = errno;
  if (!stream_failed && !flush_failed && !std::ferror(stdout)) return std::nullopt;
  return flush_failed && error != 0 ? std::string(std::strerror(error)) : std::string("a write failed");
}

// `status`, or kExitFailure with one line on stderr when standard output did not take everything written to it.
int checking_stdout(const char* prog, int status) {
  if (auto why = stdout_failure()) {
    std::fprintf(stderr, "%s: error: cannot write standard output: %s\n", prog, why->c_str());
    return status == kExitOk ? kExitFailure : status;
  }
  return status;
}

}  // namespace

int guarded_main(const ArgParser& parser, int argc, const char* const* argv,
                 const std::function<int(const ParsedArgs&)>& body) {
  std::signal(SIGPIPE, SIG_IGN);  // a dead worker or a closed pager must surface as an error, not kill us
  const char* prog = parser.program().c_str();
  try {
    ParsedArgs args = parser.parse(argc, argv);
    if (args.help_requested()) {
      std::fputs(parser.help_text().c_str(), stdout);
      std::fputs(std::string(kExitStatusHelp).c_str(), stdout);
      return checking_stdout(prog, kExitOk);
    }
    if (args.version_requested()) {
      std::fputs(version_line(parser.program()).c_str(), stdout);
      return checking_stdout(prog, kExitOk);
    }
    return checking_stdout(prog, body(args));
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: error: %s\nRun '%s --help' for the options.\n", prog, printable_text(e.what()).c_str(),
                 prog);
    return kExitBadInput;
  } catch (const SpaceError& e) {
    std::fprintf(stderr, "%s\n", printable_text(e.what()).c_str());
    return kExitBadInput;
  } catch (const InputFileError& e) {  // a file handed to it as input: missing, a folder, unreadable, too large
    std::fprintf(stderr, "%s: error: %s\n", prog, printable_text(e.what()).c_str());
    return kExitBadInput;
  } catch (const InputRefused& e) {  // an output that is one of its inputs or a database; SQL that would write
    std::fprintf(stderr, "%s: error: %s\n", prog, printable_text(e.what()).c_str());
    return kExitBadInput;
  } catch (const NoDeviceError& e) {
    std::fprintf(stderr, "%s: %s\n", prog, printable_text(e.what()).c_str());
    return kExitNoDevice;
  } catch (const Error& e) {
    std::fprintf(stderr, "%s: error: %s\n", prog, printable_text(e.what()).c_str());
    return kExitFailure;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s\n", prog, printable_text(e.what()).c_str());
    return kExitFailure;
  }
}

}  // namespace mpgemm::cli
