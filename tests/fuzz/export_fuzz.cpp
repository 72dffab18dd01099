// libFuzzer harness of the exported-file reader (tools/fuzz.sh --target export runs it): every input goes through
// parse_json_bounded and export_table_from_json, and a table it reads through the writer and back; a broken
// contract (fuzz/export_check.hpp) traps, so libFuzzer keeps the input.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "fuzz/export_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string problem = mpgemm::fuzz::check_export_input({reinterpret_cast<const char*>(data), size});
  if (!problem.empty()) {
    std::fprintf(stderr, "export_fuzz: %s\n", problem.c_str());
    __builtin_trap();
  }
  return 0;
}
