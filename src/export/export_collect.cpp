#include "export/export_collect.hpp"

#include <set>

#include <fmt/format.h>

#include "common/bounded_input.hpp"
#include "common/version.hpp"

namespace mpgemm {

namespace {

// Single-quotes a word for a POSIX shell when it holds anything but the characters that never need quoting.
std::string shell_word(const std::string& word) {
  const bool plain = !word.empty() && word.find_first_not_of(
                                          "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                          "0123456789_./-=+:,@%") == std::string::npos;
  if (plain) return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::optional<double> tflops_at(const Shape& shape, const std::optional<double>& median_ms) {
  if (!median_ms || *median_ms <= 0) return std::nullopt;
  return shape.flops() / *median_ms / 1e9;
}

ExportEntry entry_of(const ShapeWinner& w, const std::filesystem::path& database) {
  ExportEntry e;
  e.device = w.device_name;
  e.device_arch = w.device_cc;
  e.arch = w.arch.str();
  e.problem = w.kind;
  e.shape = w.shape;
  e.family = w.family;
  e.config = w.config_name;
  e.params = w.params;
  e.tflops = tflops_at(w.shape, w.median_ms).value_or(0);
  e.cublas_tflops = tflops_at(w.shape, w.cublas_ms);
  e.ratio_cublas = w.ratio_to_cublas;
  e.cublaslt_tflops = tflops_at(w.shape, w.cublaslt_ms);
  e.ratio_cublaslt = w.ratio_to_cublaslt;
  e.l2 = w.l2;
  e.source = w.from_rerank ? "rerank" : "tune";
  e.command = reproduce_command(w, database);
  return e;
}

}  // namespace

std::string reproduce_command(const ShapeWinner& w, const std::filesystem::path& database) {
  std::string c = fmt::format("mpgemm-run --db {} --config {} --M {} --N {} --K {}", shell_word(database.string()),
                              shell_word(w.config_name), w.shape.m, w.shape.n, w.shape.k);
  // A kind other than the default is named: a reader that does not take it fails rather than time another problem.
  if (!w.kind.is_default()) c += " --problem " + w.kind.name();
  if (w.from_rerank) c += " --paired";
  if (w.warmup > 0 || w.runs > 0 || w.iters > 0)
    c += fmt::format(" --warmup {} --runs {} --iters {}", w.warmup, w.runs, w.iters);
  if (w.l2 == L2Mode::cold) c += " --l2 cold";
  // Graph replays time microsecond kernels without the host's per-call cost: timed call by call instead, the
  // same winner (and cuBLAS) would measure slower than the table says.
  if (w.batches == BatchEnqueue::graph) c += " --graphs";
  return c;
}

ExportTable collect_export(const Store& store, const ExportOptions& options,
                           std::map<std::string, std::int64_t>* sm_counts) {
  // Every kind's winners: each entry names its kind (format version 2).
  const std::vector<ShapeWinner> winners = all_shape_winners(store);
  if (winners.empty())
    throw ExportError(fmt::format("{} has no verified config to export: tune first (mpgemm-tune SPACE --db {})",
                                  options.database.string(), options.database.string()));
  ExportTable t;
  t.generated_by = fmt::format("mpgemm {}", tool_version());
  t.database = options.database.string();
  std::set<std::string> devices;
  for (const ShapeWinner& w : winners) {
    devices.insert(text_excerpt(w.device_name));  // a message quotes them: no stored newline splits it
    if (options.device && w.device_name != *options.device) continue;
    t.entries.push_back(entry_of(w, options.database));
    if (sm_counts && w.sm_count) (*sm_counts)[w.device_name] = *w.sm_count;
  }
  if (t.entries.empty())
    throw ExportError(fmt::format("{} has no verified config on device '{}'; its devices: \"{}\"",
                                  options.database.string(), text_excerpt(options.device.value_or("")),
                                  fmt::join(devices, "\", \"")));
  sort_entries(t.entries);
  return t;
}

}  // namespace mpgemm
