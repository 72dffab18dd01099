#include "lib/export_file.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.hpp"

namespace mpgemm::lib {

namespace {

constexpr int kExportVersion = 1;

std::optional<double> optional_number(const nlohmann::json& entry, const char* key) {
  const auto it = entry.find(key);
  if (it == entry.end() || it->is_null()) return std::nullopt;
  return it->get<double>();
}

ShapeWinner entry_to_winner(const nlohmann::json& e) {
  ShapeWinner w;
  w.device_name = e.at("device").get<std::string>();
  w.device_cc = e.at("device_arch").get<std::string>();
  const std::string arch = e.at("arch").get<std::string>();
  const auto parsed = Arch::parse(arch);
  if (!parsed) throw Error(fmt::format("unreadable arch '{}'", arch));
  w.arch = *parsed;
  const auto& shape = e.at("shape");
  w.shape = {shape.at("M").get<std::int64_t>(), shape.at("N").get<std::int64_t>(), shape.at("K").get<std::int64_t>()};
  if (w.shape.m < 1 || w.shape.n < 1 || w.shape.k < 1) throw Error(fmt::format("shape {} is empty", w.shape.str()));
  w.family = e.at("family").get<std::string>();
  w.config_name = e.at("config").get<std::string>();
  w.params = params_from_json(e.at("params"));
  const double tflops = e.at("tflops").get<double>();
  if (!(tflops > 0)) throw Error(fmt::format("tflops {} is not positive", tflops));
  w.median_ms = w.shape.flops() / tflops / 1e9;
  if (auto t = optional_number(e, "cublas_tflops"); t && *t > 0) w.cublas_ms = w.shape.flops() / *t / 1e9;
  w.ratio_to_cublas = optional_number(e, "ratio_cublas");
  if (auto t = optional_number(e, "cublaslt_tflops"); t && *t > 0) w.cublaslt_ms = w.shape.flops() / *t / 1e9;
  w.ratio_to_cublaslt = optional_number(e, "ratio_cublaslt");
  w.from_rerank = e.value("source", std::string()) == "rerank";
  return w;
}

}  // namespace

std::vector<ShapeWinner> read_export(std::string_view json_text, const std::filesystem::path& source) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: not JSON: {}", source.string(), e.what()));
  }
  if (!doc.is_object() || doc.value("format", std::string()) != "mpgemm-export")
    throw Error(fmt::format("{}: not an mpgemm export (its \"format\" is not \"mpgemm-export\")", source.string()));
  if (doc.value("version", 0) != kExportVersion)
    throw Error(fmt::format("{}: export version {} is not the one this library reads ({})", source.string(),
                            doc.value("version", 0), kExportVersion));
  std::vector<ShapeWinner> out;
  const auto& entries = doc.at("entries");
  for (std::size_t i = 0; i < entries.size(); ++i) {
    try {
      out.push_back(entry_to_winner(entries.at(i)));
    } catch (const nlohmann::json::exception& e) {
      throw Error(fmt::format("{}: at /entries/{}: {}", source.string(), i, e.what()));
    } catch (const Error& e) {
      throw Error(fmt::format("{}: at /entries/{}: {}", source.string(), i, e.what()));
    }
  }
  return out;
}

}  // namespace mpgemm::lib
