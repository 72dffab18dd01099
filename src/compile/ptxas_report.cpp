#include "compile/ptxas_report.hpp"

#include <array>
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

// Codes NVRTC 13.0 printed for test kernels on sm_90a (the cause each was provoked by in brackets; the
// wording is in tests/data/ptxas/). Codes not seen (C7506, C7512, C7516, C7518 would fit the gaps) fall to
// kWordings.
struct KnownCode {
  std::string_view code;
  PtxasWarningKind kind;
};
constexpr std::array<KnownCode, 13> kKnownCodes{{
    {"C7504", PtxasWarningKind::setmaxnreg_ignored},     // across compilation units [-rdc=true]
    {"C7505", PtxasWarningKind::setmaxnreg_ignored},     // to allow debugging [-G]
    {"C7507", PtxasWarningKind::setmaxnreg_ignored},     // minimum register requirements [dec to 24 in a kernel]
    {"C7508", PtxasWarningKind::setmaxnreg_ignored},     // register count at entry [no __launch_bounds__(N, 1)]
    {"C7509", PtxasWarningKind::wgmma_serialized},       // extern calls [-rdc=true, an extern function]
    {"C7510", PtxasWarningKind::wgmma_serialized},       // function boundary [wgmma in a __noinline__ function]
    {"C7511", PtxasWarningKind::wgmma_serialized},       // insufficient registers [--maxrregcount=64]
    {"C7513", PtxasWarningKind::wgmma_serialized},       // input registers defined [A in registers, changed]
    {"C7514", PtxasWarningKind::wgmma_serialized},       // accumulator read [between commit and wait]
    {"C7515", PtxasWarningKind::wgmma_serialized},       // accumulator defined [no wgmma.fence]
    {"C7517", PtxasWarningKind::wgmma_wait_injected},    // [accumulator read before the wait]
    {"C7519", PtxasWarningKind::wgmma_arrive_injected},  // [no wgmma.fence before a wgmma]
    {"C7520", PtxasWarningKind::wgmma_serialized},       // WG.AR in divergent path [-G]
}};

// The fixed part of each diagnostic's wording, for codes kKnownCodes lacks; first match wins.
struct Wording {
  std::string_view text;
  PtxasWarningKind kind;
};
constexpr std::array<Wording, 5> kWordings{{
    {"wgmma.mma_async instructions are serialized", PtxasWarningKind::wgmma_serialized},
    {"'setmaxnreg' ignored", PtxasWarningKind::setmaxnreg_ignored},
    {"warpgroup.wait is injected", PtxasWarningKind::wgmma_wait_injected},
    {"warpgroup.arrive is injected", PtxasWarningKind::wgmma_arrive_injected},
    {"Potential Performance Loss", PtxasWarningKind::other_performance},
}};

std::optional<PtxasWarningKind> classify(std::string_view code, std::string_view message) {
  for (const auto& k : kKnownCodes)
    if (k.code == code) return k.kind;
  for (const auto& w : kWordings)
    if (message.find(w.text) != std::string_view::npos) return w.kind;
  return std::nullopt;
}

// "C7514" and the text after it from "ptxas info    : (C7514) text", or nullopt for a line without a code.
std::optional<std::pair<std::string_view, std::string_view>> coded_line(std::string_view line) {
  const std::size_t colon = line.find(" : (C");
  if (line.find("ptxas") != 0 || colon == std::string_view::npos) return std::nullopt;
  const std::size_t begin = colon + 4;  // at 'C'
  std::size_t end = begin + 1;
  while (end < line.size() && std::isdigit(static_cast<unsigned char>(line[end]))) ++end;
  if (end == begin + 1 || end >= line.size() || line[end] != ')') return std::nullopt;
  return std::pair{line.substr(begin, end - begin), trim(line.substr(end + 1))};
}

}  // namespace

std::vector<PtxasWarning> parse_ptxas_warnings(std::string_view log) {
  std::vector<PtxasWarning> out;
  while (!log.empty()) {
    const std::size_t eol = log.find('\n');
    const std::string_view line = log.substr(0, eol);
    log = eol == std::string_view::npos ? std::string_view{} : log.substr(eol + 1);
    const auto coded = coded_line(line);
    if (!coded) continue;
    const auto [code, message] = *coded;
    if (auto kind = classify(code, message))
      out.push_back(PtxasWarning{std::string(code), *kind, std::string(message)});
  }
  return out;
}

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
