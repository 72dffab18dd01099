#include "export/export_table.hpp"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "common/bounded_input.hpp"

namespace mpgemm {

namespace {

using nlohmann::json;

json optional_number(const std::optional<double>& v) {
  return v ? json(*v) : json(nullptr);
}

// `where` is the JSON path of `j`: "" for the root, which messages call "/".
const json& field(const json& j, const char* name, const std::string& where) {
  if (!j.is_object()) throw ExportError(fmt::format("{}: expected an object", where.empty() ? "/" : where));
  auto it = j.find(name);
  if (it == j.end()) throw ExportError(fmt::format("{}: missing \"{}\"", where.empty() ? "/" : where, name));
  return *it;
}

std::string text(const json& j, const char* name, const std::string& where) {
  const json& v = field(j, name, where);
  if (!v.is_string()) throw ExportError(fmt::format("{}/{}: expected a string", where, name));
  return v.get<std::string>();
}

double number(const json& j, const char* name, const std::string& where) {
  const json& v = field(j, name, where);
  if (!v.is_number()) throw ExportError(fmt::format("{}/{}: expected a number", where, name));
  return v.get<double>();
}

std::optional<double> number_or_null(const json& j, const char* name, const std::string& where) {
  if (field(j, name, where).is_null()) return std::nullopt;
  return number(j, name, where);
}

std::int64_t positive(const json& j, const char* name, const std::string& where) {
  const json& v = field(j, name, where);
  if (!v.is_number_integer() || v.get<std::int64_t>() <= 0)
    throw ExportError(fmt::format("{}/{}: expected a positive integer", where, name));
  return v.get<std::int64_t>();
}

}  // namespace

json to_json(const ExportEntry& e) {
  return json{{"device", e.device},
              {"device_arch", e.device_arch},
              {"arch", e.arch},
              {"problem", e.problem.name()},
              {"shape", {{"M", e.shape.m}, {"N", e.shape.n}, {"K", e.shape.k}}},
              {"family", e.family},
              {"config", e.config},
              {"params", to_json(e.params)},
              {"tflops", e.tflops},
              {"cublas_tflops", optional_number(e.cublas_tflops)},
              {"ratio_cublas", optional_number(e.ratio_cublas)},
              {"cublaslt_tflops", optional_number(e.cublaslt_tflops)},
              {"ratio_cublaslt", optional_number(e.ratio_cublaslt)},
              {"l2", std::string(to_string(e.l2))},
              {"source", e.source},
              {"command", e.command}};
}

json to_json(const ExportTable& t) {
  json entries = json::array();
  for (const auto& e : t.entries) entries.push_back(to_json(e));
  return json{{"format", kExportFormat},
              {"version", kExportVersion},
              {"generated_by", t.generated_by},
              {"database", t.database},
              {"entries", std::move(entries)}};
}

ExportEntry export_entry_from_json(const json& j, const std::string& where) {
  ExportEntry e;
  e.device = text(j, "device", where);
  e.device_arch = text(j, "device_arch", where);
  e.arch = text(j, "arch", where);
  if (j.contains("problem")) {  // absent: the default kind (every version-1 entry)
    std::string why;
    const auto kind = ProblemKind::parse(text(j, "problem", where), &why);
    if (!kind) throw ExportError(fmt::format("{}/problem: {}", where, text_excerpt(why, 200)));
    e.problem = *kind;
  }
  const std::string shape_at = where + "/shape";
  const json& shape = field(j, "shape", where);
  e.shape = Shape{positive(shape, "M", shape_at), positive(shape, "N", shape_at), positive(shape, "K", shape_at)};
  e.family = text(j, "family", where);
  e.config = text(j, "config", where);
  try {
    e.params = params_from_json(field(j, "params", where));
  } catch (const ExportError&) {
    throw;
  } catch (const Error& err) {
    throw ExportError(fmt::format("{}/params: {}", where, err.what()));
  }
  e.tflops = number(j, "tflops", where);
  e.cublas_tflops = number_or_null(j, "cublas_tflops", where);
  e.ratio_cublas = number_or_null(j, "ratio_cublas", where);
  e.cublaslt_tflops = number_or_null(j, "cublaslt_tflops", where);
  e.ratio_cublaslt = number_or_null(j, "ratio_cublaslt", where);
  const auto l2 = l2_mode_from_string(text(j, "l2", where));
  if (!l2) throw ExportError(fmt::format("{}/l2: expected \"warm\" or \"cold\"", where));
  e.l2 = *l2;
  e.source = text(j, "source", where);
  if (e.source != "rerank" && e.source != "tune")
    throw ExportError(fmt::format("{}/source: expected \"rerank\" or \"tune\"", where));
  e.command = text(j, "command", where);
  return e;
}

ExportTable export_table_from_json(const json& j) {
  if (!j.is_object() || !j.contains("format") || j["format"] != kExportFormat)
    throw ExportError(fmt::format("not an {} file (no \"format\": \"{}\")", kExportFormat, kExportFormat));
  const json& version = field(j, "version", "");
  if (!version.is_number_integer()) throw ExportError("/version: expected an integer");
  if (version.get<int>() > kExportVersion)
    throw ExportError(fmt::format("export format version {} is newer than this mpgemm reads ({}); upgrade mpgemm",
                                  version.get<int>(), kExportVersion));
  ExportTable t;
  t.generated_by = text(j, "generated_by", "");
  t.database = text(j, "database", "");
  const json& entries = field(j, "entries", "");
  if (!entries.is_array()) throw ExportError("/entries: expected an array");
  for (std::size_t i = 0; i < entries.size(); ++i)
    t.entries.push_back(export_entry_from_json(entries[i], fmt::format("/entries/{}", i)));
  return t;
}

ExportTable read_export_file(const std::filesystem::path& path) {
  std::string text;
  try {
    text = read_bounded_file(path, "exported file");
  } catch (const InputFileError& e) {
    throw ExportError(e.what());  // missing, a folder, unreadable, or endless (/dev/zero)
  }
  json j;
  try {
    j = parse_json_bounded(text);  // nesting bounded: reading the parameters dumps values into messages
  } catch (const json::exception& e) {
    throw ExportError(fmt::format("{}: not valid JSON ({})", path.string(), text_excerpt(e.what(), 200)));
  }
  try {
    return export_table_from_json(j);
  } catch (const ExportError& e) {
    throw ExportError(fmt::format("{}: {}", path.string(), e.what()));
  }
}

void sort_entries(std::vector<ExportEntry>& entries) {
  std::stable_sort(entries.begin(), entries.end(), [](const ExportEntry& a, const ExportEntry& b) {
    // The default kind (all 0 enumerators) sorts first.
    return std::tie(a.device, a.problem, a.shape.m, a.shape.n, a.shape.k) <
           std::tie(b.device, b.problem, b.shape.m, b.shape.n, b.shape.k);
  });
}

}  // namespace mpgemm
