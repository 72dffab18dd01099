// mpgemm-run: reproduce the results table from the database's configs, verified and timed next to cuBLAS.
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "cli/guarded_main.hpp"
#include "cli/measure_options.hpp"
#include "cli/run_rerank.hpp"
#include "cli/run_table.hpp"
#include "cli/shape_options.hpp"
#include "common/bounded_input.hpp"
#include "common/error.hpp"
#include "common/writable.hpp"

using namespace mpgemm;

namespace {

// M, N and K when not given: the writeup's table is at 2048^3.
constexpr std::int64_t kDefaultSide = 2048;

cli::ArgParser run_parser() {
  cli::ArgParser parser(
      "mpgemm-run", "re-run chosen configs next to cuBLAS and print the results table",
      "Rebuilds the chosen kernels from their parameters (NVRTC, for the GPU at hand), verifies each against cuBLAS "
      "(output poisoned before the verification launch, |c-ref| <= atol + rtol*|ref|) and times it with the writeup's "
      "protocol, "
      "in a worker process. --config best prints the writeup's table: the space's named points (wmma_naive, "
      "wmma_shared, wmma_cp_async), the fastest verified config in the database for this device and shape (any "
      "family, any arch: sm_90 and sm_90a configs compete; the winner of the shape's latest re-rank when there is "
      "one, see --rerank), cuBLAS, and cuBLASLt's best of its top 8 heuristic "
      "algorithms (each verified against cuBLAS, timed the same way; --no-cublaslt skips it); columns ms, GFLOPS, % "
      "of cuBLAS, % of cuBLASLt and the gain over the previous row. --config NAME runs one config (a point name, a "
      "procedural config name or a config id) plus the references. --rerank K re-times the K fastest verified "
      "configs of the shape side by side with cuBLAS in balanced rounds, stores every sample and names the "
      "winner (fastest median; configs within --tie-band of it are tied and the smallest registers x threads, "
      "then shared memory, then name wins), then prints the re-rank. Needs a GPU.");
  const cli::RunOptions defaults;
  parser.option("--config", "WHICH", "best | a point name | a config name | a config id", defaults.selector)
      .option("--db", "PATH", "results database to take configs from", defaults.db_path.string())
      .option("--space", "PATH", "space whose named points make the table's first rows", defaults.space_path.string());
  cli::add_shape_options(parser, {"", std::to_string(kDefaultSide)});
  cli::add_problem_option(parser,
                          ": the GEMM the rows compute, verified and timed against cuBLAS and cuBLASLt computing the "
                          "same; --config best takes that kind's winner, --rerank re-ranks that kind's configs");
  cli::add_measure_options(parser);
  parser.flag("--paired",
              "time cuBLAS alternately with each kernel, batch by batch (a b, b a, ...), and take each row's "
              "ratio against that pairing (column cublas_ms): the ratio stays honest when the clock drifts under "
              "the power cap. Use more --runs (e.g. 10) for a tighter median");
  parser
      .option("--rerank", "K",
              "re-rank the K fastest verified configs of the shape and record the winner "
              "instead of printing the table (0: off)")
      .option("--rounds", "INT", "re-rank rounds: timed batches of each config and of cuBLAS",
              std::to_string(kProtocolDefaults.rerank_rounds))
      .option("--tie-band", "X", "re-rank: medians within (1 + X) x the fastest tie, broken by the fixed rule",
              fmt::format("{:g}", RerankOptions{}.tie_band))
      .option("--rerank-within", "X",
              "re-rank also every config whose stored median is within (1 + X) x the fastest (up to 64)",
              "the K fastest only")
      .option("--rerank-also", "NAME,...",
              "re-rank these configs too (each needs a verified measurement of the shape in the database), e.g. "
              "another run's pick beside this database's K fastest, so both are judged in the same rounds");
  cli::add_rerank_settle_option(parser);
  cli::add_rerank_choice_options(parser);
  parser.option("--format", "FMT", "table | csv | json | markdown", "table")
      .option("--output", "FILE",
              "also write the table to FILE in --format (through a temporary file renamed into place; never the "
              "database or space read, nor any other SQLite file)")
      .option("--worker", "PATH", "the mpgemm-worker executable", "next to mpgemm-run")
      .option("--cubin-cache", "DIR", "compilations kept by mpgemm-tune, reused instead of compiling again",
              "DB.cubins beside the database")
      .example("mpgemm-run --config best", "the writeup's table at 2048^3, with the best tuned config")
      .example("mpgemm-run --config wmma_cp_async --M 4096 --N 4096 --K 4096", "one kernel next to cuBLAS")
      .example("mpgemm-run --config best --problem mk_nk_bf16_bf16 --space configs/sm90a_suite.json --M 4096",
               "a linear layer's forward GEMM: that kind's winner next to cuBLAS computing the same")
      .example("mpgemm-run --config best --format markdown --output h200_2048.md", "keep the table")
      .example("mpgemm-run --config best --paired --runs 10 --M 4096 --N 4096 --K 4096",
               "the best config's ratio to cuBLAS timed side by side with it")
      .example("mpgemm-run --rerank 5 --M 4096 --N 4096 --K 4096 --db results/results.db",
               "re-time the top 5 of a shape interleaved and record the winner (mpgemm-query DB winners)")
      .example(
          "mpgemm-run --rerank 5 --rerank-also wgmma_bm128_bn256_bk64_s3_c2_coop_cl1x1_m8_tma4_bal --M 4096 "
          "--N 4096 --K 4096 --db exhaustive.db",
          "is another run's pick as fast as the exhaustive run's best? both timed in the same rounds");
  return parser;
}

// Which configs at which shape from which files, measured how.
cli::RunOptions run_options_from(const cli::ParsedArgs& args) {
  cli::RunOptions o;
  o.selector = args.get_or("--config", o.selector);
  o.db_path = args.get_or("--db", o.db_path.string());
  o.space_path = args.get_or("--space", o.space_path.string());
  o.shape = cli::shape_options_from(args).or_side(kDefaultSide);
  o.settings = cli::measure_settings_from(args);
  o.settings.paired = args.has("--paired");
  if (auto kind = cli::problem_option_from(args)) {
    if (auto gap = kind->reference_gap()) throw UsageError(fmt::format("--problem {}: {}", kind->name(), *gap));
    o.settings.kind = *kind;
  }
  if (auto w = args.get("--worker")) o.worker_path = *w;
  if (auto c = args.get("--cubin-cache")) o.cubin_cache = *c;
  return o;
}

// --rerank K and the options that shape it; the re-rank's warm-up, launches per batch and batches are the
// measurement's (--warmup, --iters, --graphs).
RerankOptions rerank_options_from(const cli::ParsedArgs& args, int top_k, const MeasureSettings& settings) {
  RerankOptions r;
  r.top_k = top_k;
  r.protocol = {settings.warmup,
                static_cast<int>(args.get_positive_int("--rounds").value_or(kProtocolDefaults.rerank_rounds)),
                settings.iters, settings.batches == BatchEnqueue::graph, cli::rerank_settle_ms_from(args)};
  cli::rerank_choices_from(args, r);
  r.tie_band = args.get_double("--tie-band").value_or(r.tie_band);
  if (r.tie_band < 0) throw UsageError("--tie-band must not be negative");
  r.within = cli::rerank_within_from(args);
  r.also = args.get_list("--rerank-also");
  return r;
}

// The table and its notes as printed, into `path` in one piece (a temporary file renamed into place).
void write_output(const std::string& path, const report::Table& t, report::Format format,
                  const std::vector<std::string>& notes) {
  std::ostringstream output;
  report::print(t, format, output);
  for (const auto& n : notes) output << (format == report::Format::markdown ? "\n" : "") << "note: " << n << "\n";
  write_file_atomically(path, output.str());
}

// Whether every row of the results table is ok (or a reference): the exit status of a table run.
bool all_rows_ok(const report::Table& t) {
  for (const auto& r : t.rows)
    if (auto* s = std::get_if<std::string>(&r[2]); s && *s != "ok" && *s != "reference") return false;
  return true;
}

int run(const cli::ParsedArgs& args, int argc, char** argv) {
  const cli::RunOptions o = run_options_from(args);
  auto format = report::format_from_string(args.get_or("--format", "table"));
  if (!format) throw UsageError(fmt::format("--format must be one of {}", report::format_names()));
  // A path that cannot be written fails before any GPU time is spent; the file itself is only (re)written once
  // the table is complete, so a failed run leaves an earlier table as it was.
  const std::optional<std::string> output_path = args.get("--output");
  if (output_path) require_safe_output(*output_path, {{"the database", o.db_path}, {"the space", o.space_path}});
  std::vector<std::string> notes;
  report::Table t;
  const auto top_k = args.get_int("--rerank");
  const bool reranking = top_k && *top_k > 0;
  if (reranking) {
    const RerankOptions r = rerank_options_from(args, static_cast<int>(*top_k), o.settings);
    t = cli::run_rerank(o, r, std::vector<std::string>(argv, argv + argc), &notes);
  } else {
    if (top_k && *top_k < 0) throw UsageError("--rerank must not be negative");
    if (args.has("--rerank-also")) throw UsageError("--rerank-also needs --rerank K (K >= 1)");
    t = cli::run_rows(o, &notes);
  }
  report::print(t, *format, std::cout);
  for (const auto& n : notes) std::cout << "note: " << printable_text(n) << "\n";  // they may quote stored names
  if (output_path) write_output(*output_path, t, *format, notes);
  if (reranking) return 0;  // a config dropped from a re-rank is a result, not a failure of the command
  return all_rows_ok(t) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const cli::ArgParser parser = run_parser();
  return cli::guarded_main(parser, argc, argv, [&](const cli::ParsedArgs& args) { return run(args, argc, argv); });
}
