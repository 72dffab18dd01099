#pragma once
// The exported-file reader's contract on any input (export/export_table.hpp, the format's one reader, which
// read_export_file and the library's read_export put behind parse_json_bounded), shared by the libFuzzer harness
// (fuzz/export_fuzz.cpp) and the corpus replay that CI runs without clang (unit/export_corpus_test.cpp):
//   - parse_json_bounded accepts the text or throws a nlohmann::json::exception whose what() is one line;
//   - export_table_from_json then returns a table or throws an ExportError whose what() is one line of at most
//     kMaxExportMessage bytes starting with "/" (the JSON path) or naming the format;
//   - a table it returns reads back the same through its writer (to_json, then the text of that), so what was read
//     is what the file says, field for field.
// Anything else (another exception, a crash, a hang) is a bug in src/export/export_table.cpp or src/common.
#include <exception>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/bounded_input.hpp"
#include "export/export_table.hpp"
#include "fuzz/contract.hpp"

namespace mpgemm::fuzz {

// A message names a JSON path (/entries/<index>/params) and quotes a parameter cut short.
inline constexpr std::size_t kMaxExportMessage = 512;

// Empty when the reader kept its contract on `text`; otherwise what it did wrong.
inline std::string check_export_input(std::string_view text) {
  nlohmann::json j;
  try {
    j = parse_json_bounded(text);
  } catch (const nlohmann::json::exception& e) {
    const std::string what = e.what();
    return what.find('\n') == std::string::npos ? "" : "a JSON error over several lines: " + what;
  } catch (const std::exception& e) {
    return "parse_json_bounded threw " + type_name(e) + ": " + e.what();
  }
  try {
    const ExportTable table = export_table_from_json(j);
    const std::string written = to_json(table).dump();
    if (export_table_from_json(parse_json_bounded(written)) != table)
      return "the table read differs from the same table written and read again: " + written.substr(0, 200);
  } catch (const ExportError& e) {
    const std::string_view what = e.what();
    if (what.find('\n') != std::string_view::npos) return "an ExportError over several lines: " + std::string(what);
    if (what.size() > kMaxExportMessage) return "an ExportError of " + std::to_string(what.size()) + " bytes";
    if (!what.starts_with("/") && !what.starts_with("not an mpgemm-export file") &&
        !what.starts_with("export format version"))
      return "an ExportError that names no JSON path: " + std::string(what);
  } catch (const std::exception& e) {
    return "threw " + type_name(e) + " instead of ExportError: " + e.what();
  } catch (...) {
    return "threw something that is not a std::exception";
  }
  return "";
}

}  // namespace mpgemm::fuzz
