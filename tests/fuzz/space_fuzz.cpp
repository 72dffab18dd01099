// libFuzzer harness of the search-space loader (tools/fuzz.sh runs it): every input goes through parse_space,
// and enumerate when it loads; a broken contract (fuzz/space_check.hpp) traps, so libFuzzer keeps the input.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "fuzz/space_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string problem = mpgemm::fuzz::check_space_input({reinterpret_cast<const char*>(data), size});
  if (!problem.empty()) {
    std::fprintf(stderr, "space_fuzz: %s\n", problem.c_str());
    __builtin_trap();
  }
  return 0;
}
