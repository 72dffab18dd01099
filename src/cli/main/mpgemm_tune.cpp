// mpgemm-tune: compile, verify and time every config of a search space and record everything in SQLite.
#include <csignal>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/guarded_main.hpp"
#include "cli/progress.hpp"
#include "cli/tune_args.hpp"
#include "common/error.hpp"
#include "report/table.hpp"
#include "tune/tune_input.hpp"
#include "tune/tuner.hpp"

using namespace mpgemm;

namespace {
// The first SIGINT or SIGTERM asks the run to stop after the measurement (or re-rank) in flight, so nothing is
// lost; a second one ends the process at once (the handler gives the signal its default action back).
void on_signal(int sig) {
  g_stop_requested = true;
  std::signal(sig, SIG_DFL);
}
}  // namespace

namespace {

void print_dry_run(const DryRun& d, const TuneOptions& opt) {
  const std::string per_shape = d.configs_per_shape
                                    ? fmt::format("{} configs per shape{}", d.configs_per_shape, d.of_space)
                                    : fmt::format("the configs {} picks as it measures", opt.strategy);
  const std::string pairs = !d.pairs           ? std::string("a number of (config, shape) pairs known only as it runs")
                            : opt.compile_only ? fmt::format("{} configs to compile, none timed", d.pairs)
                                               : fmt::format("{} (config, shape) pairs{}", d.pairs,
                                                             opt.shard ? " of shard " + opt.shard->str() : "");
  const std::string arch = !d.arch ? std::string("the GPU's arch")
                           : d.arch_from_space
                               ? fmt::format("{} (the space's arch; with a GPU, the GPU decides)", d.arch->str())
                               : d.arch->str();
  std::cout << fmt::format(
      "dry run: {} and the options check out. The run would take {} ({}) at {} shape(s): {}, for {}, into {}. "
      "Nothing was compiled, no database opened{}, no GPU looked for.\n",
      opt.space_path.string(), per_shape, opt.strategy, d.shapes, pairs, arch, opt.db_path.string(),
      opt.leaders_from ? " (but --leaders-from's, to read)" : "");
}

cli::ArgParser tune_parser() {
  cli::ArgParser parser(
      "mpgemm-tune", "autotune mixed-precision GEMM kernels over a search space",
      "Loads SPACE.json (a kernel family, its parameters, constraints, problem shapes and named points), compiles "
      "every config with NVRTC on a pool of threads, then on a GPU verifies each one against cuBLAS (cublasGemmEx, "
      "FP32 compute; output poisoned before the verification launch, |c-ref| <= atol + rtol*|ref|) and times it with "
      "CUDA "
      "events next to cuBLAS; per shape, cuBLASLt's best of its top 8 heuristic algorithms (verified the same way) "
      "is timed too as a second reference (--no-cublaslt skips it). GPU work runs in a separate worker process, so a "
      "kernel that faults or hangs is recorded (runtime_fault, timeout) and the run goes on. Every outcome, failures "
      "included, goes into the SQLite database as soon as it is known; re-running the same command resumes and "
      "measures only what is missing. Without a GPU it runs the compile-only pass (unless --gpus names GPUs: then it "
      "stops): every config compiled for --arch (or the space's arch), registers, shared memory and spills recorded. "
      "Problem: C (MxN, FP32, row-major) = A "
      "(MxK, FP16, row-major) * B (KxN, FP16, row-major), FP32 accumulate.");
  cli::add_tune_options(parser);
  return parser;
}

// The run's phases as progress bars (`bar` holds the current one), its notes as lines on stderr.
TuneObserver terminal_observer(std::unique_ptr<cli::Progress>& bar) {
  TuneObserver obs;
  obs.phase_started = [&bar](const std::string& phase, std::size_t total) {
    bar = std::make_unique<cli::Progress>(phase, total);
  };
  obs.progress = [&bar](std::size_t done, const std::string& name) {
    if (bar) bar->update(done, name);
  };
  obs.phase_finished = [&bar] {
    if (bar) bar->finish();
    bar.reset();
  };
  obs.note = [](const std::string& line) { std::cerr << "mpgemm-tune: " << line << "\n"; };
  return obs;
}

// What the run did: compiled, measured, pruned, left to other shards, how busy the GPUs were, the re-ranks and
// what the device or ptxas refused.
void print_summary(const TuneSummary& s, const TuneOptions& opt) {
  std::cout << fmt::format(
      "run {} ({}, {}{}): {} candidates; compiled now {}, from the cubin cache {} "
      "(ok {}, failed {} in total; {} with ptxas performance warnings)",
      s.run_id, s.mode, s.arch.str(),
      opt.settings.kind.is_default() ? std::string() : ", problem " + opt.settings.kind.name(), s.candidates,
      s.compiled_now, s.cubins_cached, s.compiled_ok, s.compile_failed, s.perf_warned);
  if (s.mode != "compile-only") {
    std::cout << fmt::format("; measured now {}, already in the database {}", s.measured_now, s.measured_before);
    for (auto& [st, n] : s.statuses) std::cout << fmt::format(", {} {}", to_string(st), n);
  }
  std::cout << "\n";
  for (auto& [why, n] : s.pruned)
    std::cout << fmt::format("pruned before timing ({}): {} (e.g. {})\n", to_string(why), n, s.first_prune_message);
  if (s.not_in_recording > 0)
    std::cout << fmt::format("not in the recording: {} (config, shape) pair(s)\n", s.not_in_recording);
  if (s.other_shards > 0)
    std::cout << fmt::format("shard {}: {} (config, shape) pairs left to the other shards\n",
                             opt.shard ? opt.shard->str() : "?", s.other_shards);
  if (!s.device_busy_s.empty())
    std::cout << fmt::format(
        "{}: {} (config, shape) pairs of {} configs in {:.1f} s on {} device{}; idle {:.0f}% "
        "of it{}\n",
        s.strategy, s.proposed, s.candidates, s.wall_s, s.device_busy_s.size(), s.device_busy_s.size() == 1 ? "" : "s",
        100 * s.device_idle_share(), s.device_busy_s.size() == 1 ? "" : " on average");
  if (!s.lanes.empty()) {  // where the time went, beside the worker's own account (its last line on stderr)
    std::cout << s.coordinator.summary() << "\n";
    for (const auto& lane : s.lanes) std::cout << lane.summary() << "\n";
  }
  if (auto hint = s.idle_hint()) std::cout << "hint: " << *hint << "\n";
  for (const auto& line : s.reranks) std::cout << "re-rank " << line << "\n";
  if (s.device_rejected > 0)
    std::cout << fmt::format("not for {}: {} config(s), not compiled ({})\n", s.arch.str(), s.device_rejected,
                             s.device_rejected_reason);
  if (s.kind_rejected > 0)
    std::cout << fmt::format("not for this kind: {} config(s), not compiled ({})\n", s.kind_rejected,
                             s.kind_rejected_reason);
  if (s.perf_warned > 0)
    std::cout << fmt::format(
        "ptxas says {} compilation(s) lose speed (wgmma serialized, setmaxnreg ignored, ...): "
        "mpgemm-query {} warnings\n",
        s.perf_warned, opt.db_path.string());
}

// After a compile-only pass: what it compiled and where to look.
void print_compile_only_end(const TuneSummary& s, const TuneOptions& opt) {
  if (s.compiled_ok + s.compile_failed == 0)
    std::cout << fmt::format("nothing compiled for {}; timing needs a GPU\n", s.arch.str());
  else
    std::cout << fmt::format("timing needs a GPU; see the compiled configs with: mpgemm-query {} compilations\n",
                             opt.db_path.string());
}

// After a measuring run: the database's fastest verified configs on the device, in --format.
void print_fastest(const TuneSummary& s, const TuneOptions& opt, const cli::ParsedArgs& args) {
  auto format = report::format_from_string(args.get_or("--format", "table")).value();
  Arch device_cc = s.arch;  // measurements record the device's cc, also when compiled for sm_90a
  device_cc.arch_specific = false;
  report::Table top = top_configs(opt.db_path, device_cc.str(),
                                  static_cast<int>(args.get_positive_int("--top").value_or(10)), opt.settings.kind);
  std::cout << fmt::format(
      "\nFastest verified configs{} (ratio = reference time / config time; > 1 beats the "
      "reference):\n",
      opt.settings.kind.is_default() ? "" : " of " + opt.settings.kind.name());
  report::print(top, format, std::cout);
}

// One kind's run: its summary, then the fastest configs or what the compile-only pass left. 130 when interrupted.
int tune_kind(const TuneOptions& opt, const cli::ParsedArgs& args) {
  std::unique_ptr<cli::Progress> bar;
  const TuneSummary s = run_tune(opt, terminal_observer(bar));
  print_summary(s, opt);
  if (s.interrupted) {
    std::cout << "interrupted: re-run the same command to resume\n";
    return 130;
  }
  if (s.mode == "compile-only")
    print_compile_only_end(s, opt);
  else
    print_fastest(s, opt, args);
  return 0;
}

// A shape file may name several problem kinds: one run per kind, in the order the file first lists them, each
// kind's options checked before the first is run (a kind the family cannot compute is refused before anything is
// written).
int tune(const cli::ParsedArgs& args, int argc, char** argv) {
  const std::vector<TuneOptions> runs = cli::tune_runs_from(args, argc, argv);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::vector<DryRun> checked;
  if (runs.size() > 1 || args.has("--dry-run"))
    for (const TuneOptions& opt : runs) checked.push_back(dry_run_tune(opt));
  const auto announce = [&](std::size_t i) {
    if (runs.size() > 1)
      std::cout << fmt::format("problem kind {} ({} of {}): {} shape(s)\n", runs[i].settings.kind.name(), i + 1,
                               runs.size(), runs[i].shapes.size());
  };
  if (args.has("--dry-run")) {
    for (std::size_t i = 0; i < runs.size(); ++i) {
      announce(i);
      print_dry_run(checked[i], runs[i]);
    }
    return 0;
  }
  for (std::size_t i = 0; i < runs.size(); ++i) {
    announce(i);
    if (const int rc = tune_kind(runs[i], args); rc != 0) return rc;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const cli::ArgParser parser = tune_parser();
  return cli::guarded_main(parser, argc, argv, [&](const cli::ParsedArgs& args) { return tune(args, argc, argv); });
}
