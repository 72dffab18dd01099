#include "lib/export_file.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/bounded_input.hpp"
#include "common/error.hpp"
#include "export/export_table.hpp"
#include "lib/winner_checks.hpp"

namespace mpgemm::lib {

namespace {

// Milliseconds per launch of the shape at `tflops`; none when the rate is unknown. A rate that is not positive
// gives a time that is not either, which check_winners refuses.
std::optional<double> ms_at(const Shape& shape, const std::optional<double>& tflops) {
  if (!tflops) return std::nullopt;
  return shape.flops() / *tflops / 1e9;
}

ShapeWinner to_winner(const ExportEntry& e, std::size_t index) {
  const auto arch = Arch::parse(e.arch);
  if (!arch) throw Error(fmt::format("at /entries/{}/arch: unreadable arch '{}'", index, e.arch));
  ShapeWinner w;
  w.device_name = e.device;
  w.device_cc = e.device_arch;
  w.arch = *arch;
  w.kind = e.problem;
  w.shape = e.shape;
  w.family = e.family;
  w.config_name = e.config;
  w.params = e.params;
  w.median_ms = *ms_at(e.shape, e.tflops);
  w.cublas_ms = ms_at(e.shape, e.cublas_tflops);
  w.ratio_to_cublas = e.ratio_cublas;
  w.cublaslt_ms = ms_at(e.shape, e.cublaslt_tflops);
  w.ratio_to_cublaslt = e.ratio_cublaslt;
  w.from_rerank = e.source == "rerank";
  w.l2 = e.l2;
  return w;
}

}  // namespace

std::vector<ShapeWinner> read_export(std::string_view json_text, const std::filesystem::path& source) {
  ExportTable table;
  try {
    table = export_table_from_json(parse_json_bounded(json_text));  // the format's one reader
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: neither a results database (not SQLite) nor an mpgemm-export JSON file ({})",
                            source.string(), e.what()));
  } catch (const ExportError& e) {
    throw Error(fmt::format("{}: {}", source.string(), e.what()));
  }
  std::vector<ShapeWinner> out;
  for (std::size_t i = 0; i < table.entries.size(); ++i) {
    try {
      out.push_back(to_winner(table.entries[i], i));
    } catch (const Error& e) {
      throw Error(fmt::format("{}: {}", source.string(), e.what()));
    }
  }
  check_winners(out, WinnerSource::exported, source);
  return out;
}

}  // namespace mpgemm::lib
