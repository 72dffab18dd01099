#include "cli/measure_options.hpp"

#include <string>

#include <fmt/format.h>

#include "common/error.hpp"
#include "worker/protocol.hpp"

namespace mpgemm::cli {

namespace {
// On an H200 the clock after an idle gap ran ~10% fast for 20-50 ms, dipped at 50-100 ms and was within 0.3% of
// its sustained pace from 100-200 ms on (results/h200/settle/, archived: results/archived.tsv names the commit that
// holds it): 200 ms of cuBLAS settles it.
constexpr int kDefaultIdleSettleMs = 200;
// Longer than most compile waits of one config (a wgmma kernel takes NVRTC a few seconds).
constexpr int kDefaultKeepWarmMs = 5000;
}  // namespace

void add_measure_options(ArgParser& p) {
  // The defaults shown are the ones measure_settings_from starts from: MeasureSettings's, NoiseStop's and
  // ScreenRule's (measure/protocol_defaults.hpp, measure/sampling.hpp).
  const MeasureSettings settings;
  const NoiseStop noise;
  const ScreenRule screen;
  p.option("--atol", "X", "absolute tolerance against cuBLAS", fmt::format("{:g}", settings.atol))
      .option("--rtol", "X", "relative tolerance against cuBLAS", fmt::format("{:g}", settings.rtol))
      .option("--warmup", "INT", "untimed launches before timing", std::to_string(settings.warmup))
      .option("--runs", "INT", "timed batches; median, min and max are over batches", std::to_string(settings.runs))
      .option("--iters", "INT", "launches per timed batch", std::to_string(settings.iters))
      .flag("--no-cublaslt",
            "skip the second reference: cuBLASLt's best of its top 8 heuristic algorithms, "
            "verified against cuBLAS and timed like the candidates on every shape")
      .option("--l2", "warm|cold",
              "L2 at each timed launch: warm (launches back to back) or cold (a buffer of twice the L2 size "
              "written before every launch, outside its timing); cuBLAS is timed the same way",
              "warm")
      .flag("--graphs",
            "enqueue every warm batch (the candidates', the screen's, cuBLAS's, cuBLASLt's and the re-rank's) as "
            "one replay of a CUDA graph of its --iters launches, captured once, so microsecond kernels are timed "
            "at the GPU's pace, not at the pace the host issues calls (cublasGemmEx costs the host more than a "
            "512^3 kernel takes); recorded per timing, and part of the result key. Warm L2 only")
      .option("--noise-target", "PCT",
              "take timed batches until their relative noise (stdev / mean) is under PCT percent, instead of "
              "--runs (nvbench's rule; see --min-samples, --max-time)")
      .option("--min-samples", "INT", "with --noise-target: batches before the target may stop sampling",
              std::to_string(noise.min_samples))
      .option("--max-time", "SECONDS", "with --noise-target: stop sampling after this long anyway",
              fmt::format("{:g}", noise.max_time_s))
      .option("--screen-threshold", "X",
              "screen out (status screened_out, not timed further) a config whose screening launches are more "
              "than X times slower than the fastest screen so far on its shape (like with like; the best median "
              "before any screen)",
              fmt::format("{:g}", screen.threshold))
      .option("--screen-launches", "INT",
              "launches the screen times: with warm L2 one batch of them after as many untimed, with cold L2 one "
              "by one",
              std::to_string(screen.launches))
      .flag("--no-screen", "time every config through the full protocol")
      .option("--settle-ms", "MS",
              "when a shape is prepared, run cuBLAS on it untimed for this long before its references and "
              "candidates are timed (at least --idle-settle-ms: after the host-side input fill the card is idle); "
              "part of the result key when set",
              std::to_string(settings.settle_ms))
      .option("--keep-warm-ms", "MS",
              "between measurements (a compile wait), keep running cuBLAS on the shape untimed until the next "
              "request, for at most this long after the last one, so the next config meets the clock sustained "
              "load holds, not a burst after idle; 0: let the card idle; part of the result key unless 0 (as "
              "--idle-settle-ms): a database measured without the hold is measured again unless both are 0",
              std::to_string(kDefaultKeepWarmMs))
      .option("--idle-settle-ms", "MS",
              "a measurement that finds the card idle (over 10 ms, e.g. after a wait longer than --keep-warm-ms), "
              "and a shape's preparation (its inputs are filled on the host), first run cuBLAS untimed for this "
              "long: after an idle gap an H200 ran the first 20-50 ms of load ~10% fast and was within 0.3% of "
              "its sustained pace by 100-200 ms (apart from 15 MHz clock steps, ~0.9%); 0: none; part of the "
              "result key unless 0 (as --keep-warm-ms)",
              std::to_string(kDefaultIdleSettleMs));
}

namespace {
// Each re-ranked kernel timed for at least 50 ms, in batches of at most 5 ms (why: RerankOptions::min_kernel_ms).
constexpr double kDefaultRerankMinKernelMs = 50;
constexpr double kDefaultRerankMaxBatchMs = 5;
constexpr double kMaxRerankSizingMs = 60'000;

// About a second: on the H200 the power cap has brought the SM clock down within ~0.1-0.3 s of GEMM batches.
constexpr int kDefaultRerankSettleMs = 1000;

int settle_ms_from(const ParsedArgs& args, const std::string& option, int by_default) {
  const auto ms = args.get_int(option);
  if (!ms) return by_default;
  if (*ms < 0 || *ms > kMaxSettleMs) throw UsageError(fmt::format("{} must be between 0 and {}", option, kMaxSettleMs));
  return static_cast<int>(*ms);
}
}  // namespace

namespace {
// Counts of launches and batches: far beyond any useful protocol, and well inside an int, so a value past 2^31
// is refused instead of wrapping round to a small or negative count.
constexpr std::int64_t kMaxCount = 1'000'000;
// --max-time: an hour of sampling for one measurement is more than any noise target needs.
constexpr double kMaxSamplingSeconds = 3600;

int count_from(const ParsedArgs& args, const std::string& option, int by_default, std::int64_t least) {
  const auto v = args.get_int(option);
  if (!v) return by_default;
  if (*v < least || *v > kMaxCount)
    throw UsageError(fmt::format("{} must be between {} and {}, got {}", option, least, kMaxCount, *v));
  return static_cast<int>(*v);
}

// A tolerance: finite (ParsedArgs::get_double refuses nan and inf) and not negative.
double tolerance_from(const ParsedArgs& args, const std::string& option, double by_default) {
  const auto v = args.get_double(option);
  if (!v) return by_default;
  if (!(*v >= 0)) throw UsageError(fmt::format("{} must not be negative, got {:g}", option, *v));
  return *v;
}
}  // namespace

MeasureSettings measure_settings_from(const ParsedArgs& args) {
  MeasureSettings s;
  s.atol = tolerance_from(args, "--atol", s.atol);
  s.rtol = tolerance_from(args, "--rtol", s.rtol);
  s.warmup = count_from(args, "--warmup", s.warmup, 0);
  s.runs = count_from(args, "--runs", s.runs, 1);
  s.iters = count_from(args, "--iters", s.iters, 1);
  s.cublaslt = !args.has("--no-cublaslt");
  if (auto l2 = args.get("--l2")) {
    const auto mode = l2_mode_from_string(*l2);
    if (!mode) throw UsageError("--l2 must be warm or cold, not '" + *l2 + "'");
    s.l2 = *mode;
  }
  if (args.has("--graphs")) {
    if (s.l2 == L2Mode::cold)
      throw UsageError("--graphs needs warm L2: with --l2 cold every launch is timed alone after a flush");
    s.batches = BatchEnqueue::graph;
  }
  if (auto pct = args.get_double("--noise-target")) {
    if (!(*pct > 0)) throw UsageError("--noise-target must be a positive percentage");
    NoiseStop n;
    n.target = *pct / 100;
    n.min_samples = count_from(args, "--min-samples", n.min_samples, 1);
    n.max_time_s = args.get_double("--max-time").value_or(n.max_time_s);
    if (!(n.max_time_s > 0 && n.max_time_s <= kMaxSamplingSeconds))
      throw UsageError(fmt::format("--max-time must be positive and at most {:g} seconds", kMaxSamplingSeconds));
    s.noise_stop = n;
  } else if (args.has("--min-samples") || args.has("--max-time")) {
    throw UsageError("--min-samples and --max-time go with --noise-target");
  }
  if (args.has("--no-screen")) {
    if (args.has("--screen-threshold") || args.has("--screen-launches"))
      throw UsageError("--no-screen and --screen-threshold / --screen-launches contradict each other");
    s.screen.reset();
  } else {
    ScreenRule r;
    r.threshold = args.get_double("--screen-threshold").value_or(r.threshold);
    if (!(r.threshold >= 1)) throw UsageError("--screen-threshold must be at least 1");
    r.launches = count_from(args, "--screen-launches", r.launches, 1);
    s.screen = r;
  }
  s.settle_ms = settle_ms_from(args, "--settle-ms", s.settle_ms);
  s.hold.keep_warm_ms = settle_ms_from(args, "--keep-warm-ms", kDefaultKeepWarmMs);
  s.hold.idle_settle_ms = settle_ms_from(args, "--idle-settle-ms", kDefaultIdleSettleMs);
  return s;
}

std::optional<double> rerank_within_from(const ParsedArgs& args) {
  const auto w = args.get_double("--rerank-within");
  if (w && !(*w >= 0 && *w <= 1)) throw UsageError("--rerank-within must be between 0 and 1");
  return w;
}

void add_rerank_settle_option(ArgParser& parser) {
  parser.option("--rerank-settle-ms", "MS",
                "before the re-rank's timed rounds, run untimed rounds of the same batches for this long, so every "
                "timed round meets the clock that sustained load holds (a power-capped GPU clocks down within a "
                "fraction of a second, and the configs fastest on a cool card are not always the fastest on a "
                "capped one); 0: none",
                std::to_string(kDefaultRerankSettleMs));
}

int rerank_settle_ms_from(const ParsedArgs& args) {
  return settle_ms_from(args, "--rerank-settle-ms", kDefaultRerankSettleMs);
}

void add_rerank_choice_options(ArgParser& parser) {
  parser
      .option("--rerank-min-ms", "MS",
              "raise the re-rank's rounds (from the fastest first-pass median) until each kernel's timed launches "
              "add up to at least this, so microsecond kernels are judged over more than one of the ~100 ms steps "
              "in which a GPU whose power cap does not hold it moves its clock; 0: exactly the rounds asked for",
              fmt::format("{:g}", kDefaultRerankMinKernelMs))
      .option("--rerank-max-batch-ms", "MS",
              "lower the re-rank's launches per batch (to no fewer than 1) so one batch takes at most this, so "
              "millisecond kernels are not timed for seconds; 0: exactly the launches asked for",
              fmt::format("{:g}", kDefaultRerankMaxBatchMs))
      .flag("--rerank-cycles",
            "re-rank also the K fewest by cycles (first-pass median x the SM clock read while it was timed; "
            "with --rerank-within, those within it too): where the power cap does not hold a shape its clock "
            "drifts through a first pass (1725 -> 1935 MHz on an H200), and the configs timed in a low step fall "
            "out of a ranking by time");
}

void rerank_choices_from(const ParsedArgs& args, RerankOptions& options) {
  const auto ms = [&](const std::string& option, double by_default) {
    const auto v = args.get_double(option);
    if (!v) return by_default;
    if (!(*v >= 0 && *v <= kMaxRerankSizingMs))
      throw UsageError(fmt::format("{} must be between 0 and {:g}", option, kMaxRerankSizingMs));
    return *v;
  };
  options.min_kernel_ms = ms("--rerank-min-ms", kDefaultRerankMinKernelMs);
  options.max_batch_ms = ms("--rerank-max-batch-ms", kDefaultRerankMaxBatchMs);
  options.by_cycles_too = args.has("--rerank-cycles");
}

}  // namespace mpgemm::cli
