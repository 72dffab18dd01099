#include "compile/ptxas_report.hpp"

#include <cctype>
#include <charconv>

namespace mpgemm {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The integer right before `suffix` in `text` (e.g. "80" in "Used 80 registers"), or -1.
int number_before(std::string_view text, std::string_view suffix) {
  const std::size_t at = text.find(suffix);
  if (at == std::string_view::npos) return -1;
  std::size_t end = at;
  while (end > 0 && text[end - 1] == ' ') --end;
  std::size_t begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(text[begin - 1]))) --begin;
  int value = -1;
  if (begin == end || std::from_chars(text.data() + begin, text.data() + end, value).ec != std::errc{}) return -1;
  return value;
}

// The integer right after `prefix` (e.g. "1" in "used 1 barriers"), or -1.
int number_after(std::string_view text, std::string_view prefix) {
  const std::size_t at = text.find(prefix);
  if (at == std::string_view::npos) return -1;
  std::string_view rest = text.substr(at + prefix.size());
  int value = -1;
  if (std::from_chars(rest.data(), rest.data() + rest.size(), value).ec != std::errc{}) return -1;
  return value;
}

// Text after `marker` up to the first character in `stop` (or the end), trimmed.
std::optional<std::string_view> field_after(std::string_view line, std::string_view marker, std::string_view stop) {
  const std::size_t at = line.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(at + marker.size());
  return trim(rest.substr(0, rest.find_first_of(stop)));
}

}  // namespace

std::vector<PtxasFunctionReport> parse_ptxas_report(std::string_view log) {
  std::vector<PtxasFunctionReport> out;
  auto entry_for = [&](std::string_view name) -> PtxasFunctionReport& {
    for (auto& r : out)
      if (r.name == name) return r;
    out.push_back(PtxasFunctionReport{std::string(name)});
    return out.back();
  };
  std::string entry;       // from "Compiling entry function": owns the next "Used" line
  std::string properties;  // from "Function properties for": owns the next stack/spill line
  while (!log.empty()) {
    const std::size_t eol = log.find('\n');
    const std::string_view line = log.substr(0, eol);
    log = eol == std::string_view::npos ? std::string_view{} : log.substr(eol + 1);
    if (line.find("ptxas") == std::string_view::npos) continue;

    if (auto name = field_after(line, "Compiling entry function '", "'")) {
      entry = std::string(*name);
      entry_for(entry);
    } else if (auto props = field_after(line, "Function properties for ", " \t\r")) {
      properties = std::string(*props);
      entry_for(properties);
    } else if (line.find("bytes stack frame") != std::string_view::npos && !properties.empty()) {
      auto& r = entry_for(properties);
      r.stack_bytes = number_before(line, "bytes stack frame");
      r.spill_store_bytes = number_before(line, "bytes spill stores");
      r.spill_load_bytes = number_before(line, "bytes spill loads");
    } else if (line.find(": Used ") != std::string_view::npos) {
      const std::string& owner = entry.empty() ? properties : entry;
      if (owner.empty()) continue;
      auto& r = entry_for(owner);
      r.registers = number_after(line, ": Used ");
      r.barriers = number_after(line, "used ");
      const int smem = number_before(line, "bytes smem");
      r.shared_bytes = smem < 0 ? 0 : smem;
      entry.clear();
    }
  }
  return out;
}

std::optional<PtxasFunctionReport> find_function_report(const std::vector<PtxasFunctionReport>& reports,
                                                        std::string_view name) {
  if (!name.empty())
    for (const auto& r : reports)
      if (r.name == name) return r;
  for (const auto& r : reports)
    if (r.registers >= 0) return r;
  return std::nullopt;
}

}  // namespace mpgemm
