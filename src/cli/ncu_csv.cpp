#include "cli/ncu_csv.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <sstream>

#include "common/error.hpp"

namespace mpgemm::cli {

std::vector<std::string> split_csv_line(std::string_view line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  return fields;
}

namespace {
std::optional<double> number(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), ','), text.end());
  if (text.empty()) return std::nullopt;
  double v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}
}  // namespace

std::vector<ProfileRecord> parse_ncu_csv(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::string line;
  std::map<std::string, int> col;
  std::vector<ProfileRecord> out;
  std::map<std::string, std::size_t> by_id;
  std::size_t needed_fields = 0;  // a row must reach the last column read
  while (std::getline(in, line)) {
    auto f = split_csv_line(line);
    if (col.empty()) {
      if (std::find(f.begin(), f.end(), "Metric Name") == f.end()) continue;
      for (std::size_t i = 0; i < f.size(); ++i) col[f[i]] = static_cast<int>(i);
      for (const char* needed : {"ID", "Kernel Name", "Metric Name", "Metric Unit", "Metric Value"}) {
        if (!col.count(needed)) throw Error(std::string("ncu CSV header has no \"") + needed + "\" column");
        needed_fields = std::max(needed_fields, static_cast<std::size_t>(col[needed]) + 1);
      }
      continue;
    }
    // A program's own output between rows has fewer fields. Rows of a section's metrics end before the
    // header's rule columns ("Rule Name", ... "Estimated Speedup"), which only rule rows fill.
    if (f.size() < needed_fields) continue;
    const std::string& id = f[col["ID"]];
    auto [it, fresh] = by_id.try_emplace(id, out.size());
    if (fresh) {
      ProfileRecord r;
      r.kernel = f[col["Kernel Name"]];
      out.push_back(std::move(r));
    }
    // The "Device" column is an ordinal; the name comes only as a metric, when it was asked for.
    if (f[col["Metric Name"]] == kDeviceNameMetric && !f[col["Metric Value"]].empty())
      out[it->second].device_name = f[col["Metric Value"]];
    else if (auto v = number(f[col["Metric Value"]]))
      out[it->second].metrics.push_back({f[col["Metric Name"]], f[col["Metric Unit"]], *v});
  }
  if (col.empty()) throw Error("no ncu CSV header (a line with \"Metric Name\") found");
  return out;
}

}  // namespace mpgemm::cli
