#pragma once
// Test support: the SASS of a cubin, from `cuobjdump --dump-sass`, so a test can check which instructions a
// kernel compiled to (HGMMA for wgmma, HMMA for mma.sync / WMMA). CMake finds cuobjdump (the toolkit's, or
// the one from PyPI's nvidia-cuda-cuobjdump that tools/bootstrap.sh installs into build/cuda-tools when the
// toolkit lacks it) and passes its path as MPGEMM_CUOBJDUMP, empty when there was none. Header-only.
#include <unistd.h>

#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "support/run_command.hpp"

#ifndef MPGEMM_CUOBJDUMP
#define MPGEMM_CUOBJDUMP ""
#endif

namespace mpgemm::testing {

// The cuobjdump the build found; empty when none.
inline std::string cuobjdump_path() {
  return MPGEMM_CUOBJDUMP;
}

// Writes the cubin to a temporary file, runs `cuobjdump --dump-sass` on it and returns what it printed.
// Throws std::runtime_error when there is no cuobjdump or it fails (its output in the message).
inline std::string disassemble(std::span<const char> cubin) {
  const std::string tool = cuobjdump_path();
  if (tool.empty())
    throw std::runtime_error(
        "no cuobjdump: the build found none when it was configured; tools/bootstrap.sh installs PyPI's "
        "nvidia-cuda-cuobjdump into build/cuda-tools (then re-run cmake), or pass -DMPGEMM_CUOBJDUMP=PATH");
  std::string path = (std::filesystem::temp_directory_path() / "mpgemm_sass_XXXXXX.cubin").string();
  const int fd = ::mkstemps(path.data(), 6);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot create a temporary file like {}", path));
  std::size_t written = 0;
  while (written < cubin.size()) {
    const ssize_t n = ::write(fd, cubin.data() + written, cubin.size() - written);
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  ::close(fd);
  CommandResult r;
  if (written == cubin.size()) r = run_command(fmt::format("'{}' --dump-sass '{}'", tool, path));
  std::error_code ec;
  std::filesystem::remove(path, ec);
  if (written != cubin.size()) throw std::runtime_error(fmt::format("cannot write the cubin to {}", path));
  if (r.exit_code != 0)
    throw std::runtime_error(fmt::format("{} --dump-sass exited with {}: {}", tool, r.exit_code, r.output));
  return r.output;
}

}  // namespace mpgemm::testing
