// libFuzzer harness of the shape list readers (tools/fuzz.sh --target shapes runs it): every input goes through
// parse_shape_file and parse_shape_list; a broken contract (fuzz/shapes_check.hpp) traps, so libFuzzer keeps the
// input.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "fuzz/shapes_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string problem = mpgemm::fuzz::check_shapes_input({reinterpret_cast<const char*>(data), size});
  if (!problem.empty()) {
    std::fprintf(stderr, "shapes_fuzz: %s\n", problem.c_str());
    __builtin_trap();
  }
  return 0;
}
