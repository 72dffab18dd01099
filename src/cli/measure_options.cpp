#include "cli/measure_options.hpp"

#include "common/error.hpp"

namespace mpgemm::cli {

void add_measure_options(ArgParser& p) {
  p.option("--atol", "X", "absolute tolerance against cuBLAS", "0.5")
      .option("--rtol", "X", "relative tolerance against cuBLAS", "1e-3")
      .option("--warmup", "INT", "untimed launches before timing", "3")
      .option("--runs", "INT", "timed batches; median, min and max are over batches", "5")
      .option("--iters", "INT", "launches per timed batch", "20")
      .flag("--no-cublaslt",
            "skip the second reference: cuBLASLt's best of its top 8 heuristic algorithms, "
            "verified against cuBLAS and timed like the candidates on every shape");
}

MeasureSettings measure_settings_from(const ParsedArgs& args) {
  MeasureSettings s;
  s.atol = args.get_double("--atol").value_or(s.atol);
  s.rtol = args.get_double("--rtol").value_or(s.rtol);
  if (s.atol < 0 || s.rtol < 0) throw UsageError("--atol and --rtol must not be negative");
  if (auto w = args.get_int("--warmup")) {
    if (*w < 0) throw UsageError("--warmup must not be negative");
    s.warmup = static_cast<int>(*w);
  }
  s.runs = static_cast<int>(args.get_positive_int("--runs").value_or(s.runs));
  s.iters = static_cast<int>(args.get_positive_int("--iters").value_or(s.iters));
  s.cublaslt = !args.has("--no-cublaslt");
  return s;
}

}  // namespace mpgemm::cli
