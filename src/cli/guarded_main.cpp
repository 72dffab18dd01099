#include "cli/guarded_main.hpp"

#include <csignal>
#include <cstdio>

#include <fmt/format.h>

#include "common/error.hpp"

namespace mpgemm::cli {

int guarded_main(const ArgParser& parser, int argc, const char* const* argv,
                 const std::function<int(const ParsedArgs&)>& body) {
  std::signal(SIGPIPE, SIG_IGN);  // a dead worker or a closed pager must surface as an error, not kill us
  const char* prog = parser.program().c_str();
  try {
    ParsedArgs args = parser.parse(argc, argv);
    if (args.help_requested()) {
      std::fputs(parser.help_text().c_str(), stdout);
      return kExitOk;
    }
    return body(args);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: error: %s\nRun '%s --help' for the options.\n", prog, e.what(), prog);
    return kExitBadInput;
  } catch (const SpaceError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return kExitBadInput;
  } catch (const NoDeviceError& e) {
    std::fprintf(stderr, "%s: %s\n", prog, e.what());
    return kExitNoDevice;
  } catch (const Error& e) {
    std::fprintf(stderr, "%s: error: %s\n", prog, e.what());
    return kExitFailure;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s\n", prog, e.what());
    return kExitFailure;
  }
}

}  // namespace mpgemm::cli
