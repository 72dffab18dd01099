#pragma once
// Test helper: run a shell command, capture stdout+stderr and the exit code; temp dirs per test.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace mpgemm::testing {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr interleaved
};

inline CommandResult run_command(const std::string& command) {
  CommandResult r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

inline std::string bin(const std::string& tool) {
  return std::string(MPGEMM_BINARY_DIR) + "/bin/" + tool;
}
inline std::string source(const std::string& rel) {
  return std::string(MPGEMM_SOURCE_DIR) + "/" + rel;
}

// A file's bytes, whole (empty when it cannot be read).
inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A fresh empty directory under the system temp dir, unique per test name.
inline std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("mpgemm_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace mpgemm::testing
