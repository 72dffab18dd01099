#include "cli/tune_args.hpp"

#include "cli/measure_options.hpp"
#include "cli/shape_options.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/bounded_input.hpp"
#include "common/error.hpp"
#include "common/writable.hpp"
#include "report/table.hpp"
#include "space/shape_list.hpp"
#include "tune/strategy/strategy.hpp"

namespace mpgemm::cli {

namespace {

// Upper bounds of counts that become an int or a clock's deadline: far past any real use.
constexpr std::int64_t kMaxRerankRounds = 1'000'000;
constexpr std::int64_t kMaxTimeBudgetS = 366 * 24 * 3600;
constexpr std::int64_t kMaxThreads = 4096;
constexpr std::int64_t kMaxTop = 1'000'000;

// "exhaustive (every config ...); random (...; options: a=1 ...)", from the strategies' own declarations.
std::string strategy_help() {
  std::string out;
  for (const auto& s : strategies()) {
    out += fmt::format("{}{}: {}", out.empty() ? "" : "; ", s.name, s.summary);
    std::string opts;
    for (const auto& o : s.options)
      opts += fmt::format("{}{}={} ({})", opts.empty() ? "" : ", ", o.name, o.default_value, o.description);
    if (!opts.empty()) out += " [options: " + opts + "]";
  }
  return out;
}

}  // namespace

void add_tune_options(ArgParser& p) {
  p.positional("SPACE.json", "the search space, e.g. configs/sm86.json (format in docs/spaces.md)")
      .option("--db", "PATH", "results database; created if missing, resumed if present", "results/results.db")
      .option("--arch", "sm_XX", "compile target (sm_86, sm_90, sm_90a); with a GPU it must match the device",
              "the device's, else the space's \"arch\"")
      .flag("--compile-only", "compile every config and record resources; no GPU needed")
      .flag("--dry-run",
            "check the space and every option, print how many configs and (config, shape) pairs the run would "
            "take (of this shard with --shard), and stop: nothing is compiled, no database opened (but "
            "--leaders-from's, to read), no GPU looked for")
      .option(
          "--shapes", "FILE|MxNxK,...",
          "the shapes to tune instead of the space's: a JSON file (a list of {\"M\", \"N\", \"K\"} objects, or "
          "{\"description\", \"shapes\"} as in configs/shapes/; the file or a shape may name its \"problem\" kind, and "
          "each kind is tuned as a run of its own, in the order the file first lists it) or an inline list like "
          "4096x4096x4096,128x8192x8192",
          "the space's shapes")
      .option("--shape-order", "costliest|file",
              "the order the shapes are measured in: costliest (most FLOPs first: on a cold run the largest "
              "shape's long measurements hide the compilations) or file (as listed)",
              "costliest");
  add_shape_options(p, {", replacing the space's shapes", "the space's shapes"});
  add_problem_option(p,
                     ": every config is built for it and measured on it (the family must support it); the kind of "
                     "the --shapes entries that name none (a shape's or its file's \"problem\" wins)");
  p.option("--only", "NAMES",
           "comma-separated: tune only configs whose name or point name contains one of them; an entry "
           "=NAME takes only the config (or point) of that whole name")
      .option("--leaders-from", "DB",
              "tune only configs that led at the shapes another results database holds: within "
              "--leaders-within of a shape's fastest first-pass median, or placed up to --leaders-places in one "
              "of its re-ranks (e.g. a new model's shapes over the suite's leaders; with --only, both must take "
              "a config)")
      .option("--leaders-kind", "KIND",
              "the problem kind whose leaders --leaders-from takes (e.g. mk_kn_fp16_fp32 for the default kind's "
              "when the database led no config of the run's kind); the run's first line names it",
              "the run's kind")
      .option("--leaders-within", "X", "how close to a shape's fastest counts as leading there, as a fraction", "0.03")
      .option("--leaders-places", "INT", "re-rank places that count as leading (0: none)", "8")
      .option("--threads", "INT", "NVRTC compile threads",
              "one per hardware thread; measuring on GPUs, one fewer per GPU and one for the coordinator (each worker "
              "and the "
              "coordinator keep a core)")
      .option("--cubin-cache", "DIR",
              "compilations kept between runs, keyed by source, headers, options, NVRTC version and arch; any "
              "number of databases and processes may share one",
              "DB.cubins beside the database");
  p.option("--strategy", "NAME", "which configs each shape measures: " + strategy_help(), "exhaustive")
      .option("--strategy-options", "K=V,...", "options of the strategy (listed with --strategy)")
      .option("--budget", "INT", "the most configs each shape measures", "no limit")
      .option("--time-budget", "SECONDS",
              "stop proposing configs after this long; shared out between the shapes in turn", "no limit")
      .option("--seed", "INT", "seed of every random choice a strategy makes", "0")
      .flag("--keep-spills", "time configs whose registers spill (they are pruned before timing by default)")
      .option("--rerank", "K",
              "at the end, re-time each shape's K fastest side by side with cuBLAS in balanced rounds, store every "
              "sample and name the winner (ties within --tie-band go to the smallest registers x threads, then "
              "shared memory, then name); 0 turns it off",
              std::to_string(RerankOptions{}.top_k))
      .option("--rerank-rounds", "INT", "rounds of the re-rank (one batch of --iters launches per kernel each)",
              std::to_string(kProtocolDefaults.rerank_rounds))
      .flag("--rerank-graphs",
            "enqueue each re-rank batch as one replay of a CUDA graph of its --iters launches (captured once per "
            "config, cuBLAS and cuBLASLt), so microsecond kernels are timed at the GPU's pace, not at the pace the "
            "host issues calls (cublasGemmEx's host cost can exceed a 512^3 kernel's time); --graphs does it for "
            "every batch, the first pass's too")
      .option("--tie-band", "X", "re-rank medians within (1 + X) x the fastest tie",
              fmt::format("{:g}", RerankOptions{}.tie_band))
      .option("--rerank-within", "X",
              "re-rank also every config whose first-pass median is within (1 + X) x the fastest (up to 64): what "
              "one pass cannot tell apart (e.g. 0.04 on the H200, where a config's time moves +-3.5% between runs)",
              "the K fastest only");
  add_rerank_settle_option(p);
  add_rerank_choice_options(p);
  p.option("--gpus", "all|0,1,...",
           "the GPUs of this host to measure on: one worker and one measuring thread each, fed by one compile "
           "service; every measurement records its GPU's UUID and ordinal. GPUs of different models are refused "
           "(tune each model in its own run). Named, a host without a usable GPU is an error (exit 3; a GPU number "
           "the host lacks: exit 2); not named, such a host runs the compile-only pass",
           "0")
      .option("--shard", "I/N",
              "take only shard I of N of the (config, shape) pairs: a fixed, balanced slice (every N-th config of "
              "each shape), the same on every machine, so N jobs cover the space once; merge their databases with "
              "mpgemm-query merge and re-rank the result (a shard does not re-rank). Exhaustive strategy only",
              "all pairs");
  add_measure_options(p);
  p.option("--max-spread", "X",
           "re-measure (twice at most) a timing whose (max - min) / median exceeds X; "
           "one still noisy is flagged in its message",
           fmt::format("{:.2f}", TuneOptions{}.max_spread))
      .option("--replay", "OLD.db", "take each candidate's outcome from an earlier database instead of a GPU")
      .option("--replay-delay-ms", "INT",
              "testing aid for kill and concurrency tests: with --replay, wait this long per candidate, as a GPU "
              "measurement would (ms)",
              "0")
      .option("--top", "INT", "how many of the fastest configs to print at the end", "10")
      .option("--format", "FMT", "format of the final table: table | csv | json | markdown", "table")
      .option("--worker", "PATH", "the mpgemm-worker executable", "next to mpgemm-tune")
      .example("mpgemm-tune configs/sm86.json", "tune the writeup's space at 2048^3 into results/results.db")
      .example("mpgemm-tune configs/sm86.json --compile-only --arch sm_86 --db t.db",
               "compile every config for sm_86 without a GPU and record registers and shared memory")
      .example("mpgemm-tune configs/sm90.json --M 4096 --N 4096 --K 4096 --only cp_async",
               "tune the cp.async configs of the H200 space at 4096^3")
      .example("mpgemm-tune configs/sm90a.json --strategy model --budget 300 --seed 1",
               "let the surrogate model pick 300 configs per shape of the Hopper space")
      .example("mpgemm-tune configs/sm90a.json --gpus all", "measure on every GPU of the host")
      .example("mpgemm-tune configs/sm90a.json --shapes configs/shapes/suite10.json",
               "tune the ten-shape comparison suite instead of the space's shapes")
      .example("mpgemm-tune configs/sm90a_suite.json --shapes configs/shapes/transformer.json --leaders-from suite.db",
               "tune a model's shapes over the configs that led at the shapes of suite.db (a fraction of the space)")
      .example("mpgemm-tune configs/sm90a.json --shapes configs/shapes/suite10.json --dry-run",
               "how many configs and (config, shape) pairs that run would measure, without running it")
      .example("mpgemm-tune configs/sm90a.json --shard 3/8 --db shard3.db",
               "one job of eight (tools/slurm/submit.sh runs them as a Slurm job array)");
}

namespace {

// The options, and --shapes' entries in `listed` (each with the kind it names, if any).
TuneOptions options_from(const ParsedArgs& args, int argc, const char* const* argv, std::vector<ListedShape>& listed) {
  TuneOptions o;
  o.space_path = args.positionals().at(0);
  if (auto db = args.get("--db")) o.db_path = *db;
  if (auto a = args.get("--arch")) {
    o.arch = Arch::parse(*a);
    if (!o.arch) throw UsageError(fmt::format("--arch expects sm_XX or sm_XXa (e.g. sm_86, sm_90a), got '{}'", *a));
  }
  o.compile_only = args.has("--compile-only");
  if (auto s = args.get("--shapes")) {
    listed = load_shapes(*s);
    o.shapes = without_repeats(extents_of(listed));
  }
  if (auto s = args.get("--shape-order")) {
    const auto order = shape_order_from_string(*s);
    if (!order) throw UsageError(fmt::format("--shape-order expects costliest or file, got '{}'", *s));
    o.shape_order = *order;
  }
  const ShapeOptions extents = shape_options_from(args);
  o.m = extents.m;
  o.n = extents.n;
  o.k = extents.k;
  if (args.has("--only")) {
    o.only = args.get_list("--only");
    if (o.only.empty()) throw UsageError("--only needs at least one name or substring");
  }
  if (auto l = args.get("--leaders-from")) o.leaders_from = *l;
  if (auto w = args.get_double("--leaders-within")) {
    if (!(*w >= 0 && *w <= 1)) throw UsageError("--leaders-within must be between 0 and 1 (0.03: 3%)");
    o.leader_rule.within = *w;
  }
  if (auto n = args.get_int("--leaders-places")) {
    if (*n < 0 || *n > 64) throw UsageError("--leaders-places must be between 0 and 64");
    o.leader_rule.places = static_cast<int>(*n);
  }
  if (auto k = args.get("--leaders-kind")) {
    std::string why;
    o.leaders_kind = ProblemKind::parse(*k, &why);
    if (!o.leaders_kind) throw UsageError(fmt::format("--leaders-kind: {}", printable_text(why)));
  }
  if (!o.leaders_from && (args.has("--leaders-within") || args.has("--leaders-places") || args.has("--leaders-kind")))
    throw UsageError("--leaders-within, --leaders-places and --leaders-kind need --leaders-from");
  o.strategy = args.get_or("--strategy", o.strategy);
  for (const auto& kv : args.get_list("--strategy-options")) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError(fmt::format("--strategy-options expects name=value pairs, got '{}'", kv));
    o.strategy_options[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  if (auto b = args.get_positive_int("--budget")) o.budget = static_cast<std::size_t>(*b);
  if (auto t = args.get_positive_int("--time-budget")) {
    // A deadline is now + the budget in the clock's nanoseconds: past a year that sum may overflow.
    if (*t > kMaxTimeBudgetS)
      throw UsageError(fmt::format("--time-budget must be at most {} seconds", kMaxTimeBudgetS));
    o.time_budget = std::chrono::seconds(*t);
  }
  if (auto seed = args.get_int("--seed")) {
    if (*seed < 0) throw UsageError("--seed must be a non-negative integer");
    o.seed = static_cast<std::uint64_t>(*seed);
  }
  o.prune.spills = !args.has("--keep-spills");
  if (auto g = args.get("--gpus")) {
    o.gpus = GpuSelection::parse(*g);
    o.gpus_named = true;
  }
  if (auto s = args.get("--shard")) o.shard = Shard::parse(*s);
  if (auto k = args.get_int("--rerank")) {
    if (*k < 0 || *k > 64) throw UsageError("--rerank must be between 0 and 64");
    o.rerank.top_k = static_cast<int>(*k);
  }
  if (auto r = args.get_positive_int("--rerank-rounds")) {
    if (*r > kMaxRerankRounds) throw UsageError(fmt::format("--rerank-rounds must be at most {}", kMaxRerankRounds));
    o.rerank.protocol.rounds = static_cast<int>(*r);
  }
  o.settings = measure_settings_from(args);
  if (auto kind = problem_option_from(args)) o.settings.kind = *kind;
  o.rerank.protocol.warmup = o.settings.warmup;
  o.rerank.protocol.iters = o.settings.iters;
  o.rerank.protocol.graphs = args.has("--rerank-graphs") || o.settings.batches == BatchEnqueue::graph;
  o.rerank.within = rerank_within_from(args);
  o.rerank.protocol.settle_ms = rerank_settle_ms_from(args);
  rerank_choices_from(args, o.rerank);
  if (auto t = args.get_double("--tie-band")) {
    if (!(*t >= 0 && *t <= 0.5)) throw UsageError("--tie-band must be between 0 and 0.5");
    o.rerank.tie_band = *t;
  }
  if (auto t = args.get_positive_int("--threads")) {
    if (*t > kMaxThreads) throw UsageError(fmt::format("--threads must be at most {}", kMaxThreads));
    o.compile_threads = static_cast<int>(*t);
  }
  if (auto c = args.get("--cubin-cache")) o.cubin_cache = *c;
  o.max_spread = args.get_double("--max-spread").value_or(o.max_spread);
  if (!(o.max_spread > 0)) throw UsageError("--max-spread must be positive");
  if (auto r = args.get("--replay")) o.replay_db = *r;
  if (auto d = args.get_int("--replay-delay-ms")) {
    if (*d < 0 || *d > 60'000) throw UsageError("--replay-delay-ms must be between 0 and 60000");
    if (!o.replay_db) throw UsageError("--replay-delay-ms needs --replay");
    o.replay_delay_ms = static_cast<int>(*d);
  }
  if (auto w = args.get("--worker")) o.worker_path = *w;
  if (!report::format_from_string(args.get_or("--format", "table")))
    throw UsageError(fmt::format("--format must be one of {}", report::format_names()));
  // Read at the end of a run, like --format: checked here so that a bad value is refused before any work (a dry run
  // included), not after hours of measuring.
  if (auto top = args.get_positive_int("--top"); top && *top > kMaxTop)
    throw UsageError(fmt::format("--top must be at most {}", kMaxTop));
  if (o.replay_db && o.compile_only) throw UsageError("--replay and --compile-only exclude each other");
  // A replay times nothing, so it holds no clock and its keys leave the hold out.
  if (o.replay_db) {
    if (args.has("--keep-warm-ms") || args.has("--idle-settle-ms"))
      throw UsageError("--keep-warm-ms and --idle-settle-ms hold a GPU's clock; --replay times nothing");
    o.settings.hold = ClockHold{};
  }
  // The database is written into: never one of the files the run reads (a symlink or ../ path to one included).
  require_not_an_input(o.db_path, {{"the space", o.space_path}});
  if (auto s = args.get("--shapes")) require_not_an_input(o.db_path, {{"the shape file", *s}});
  if (o.replay_db) require_not_an_input(o.db_path, {{"the recording (--replay)", *o.replay_db}});
  for (int i = 0; i < argc; ++i) o.argv.emplace_back(argv[i]);
  return o;
}

}  // namespace

TuneOptions tune_options_from(const ParsedArgs& args, int argc, const char* const* argv) {
  std::vector<ListedShape> listed;
  return options_from(args, argc, argv, listed);
}

std::vector<TuneOptions> tune_runs_from(const ParsedArgs& args, int argc, const char* const* argv) {
  std::vector<ListedShape> listed;
  const TuneOptions base = options_from(args, argc, argv, listed);
  std::vector<TuneOptions> runs;
  for (const ListedShape& l : listed) {
    const ProblemKind kind = l.kind.value_or(base.settings.kind);
    auto run = std::find_if(runs.begin(), runs.end(), [&](const TuneOptions& r) { return r.settings.kind == kind; });
    if (run == runs.end()) {
      run = runs.insert(runs.end(), base);
      run->settings.kind = kind;
      run->shapes.clear();
    }
    run->shapes.push_back(l.shape);
  }
  if (runs.empty()) runs.push_back(base);  // the space's shapes, or an inline list: the run's kind
  return runs;
}

}  // namespace mpgemm::cli
