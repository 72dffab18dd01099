// mpgemm-strategies: the search strategies, and how well each finds the best config of an exhaustive recording.
#include <cstdlib>
#include <iostream>

#include <fmt/format.h>

#include "cli/guarded_main.hpp"
#include "common/error.hpp"
#include "report/table.hpp"
#include "space/shape_list.hpp"
#include "space/space.hpp"
#include "tune/strategy/evaluate.hpp"
#include "tune/strategy/strategy.hpp"

using namespace mpgemm;

namespace {

report::Table strategy_list() {
  report::Table t;
  t.columns = {"strategy", "option", "default", "description"};
  for (const StrategyInfo& s : strategies()) {
    t.rows.push_back({s.name, std::monostate{}, std::monostate{}, s.summary});
    for (const StrategyOption& o : s.options) t.rows.push_back({s.name, o.name, o.default_value, o.description});
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  cli::ArgParser parser(
      "mpgemm-strategies", "list the search strategies, and replay them against an exhaustive recording",
      "`list` prints every search strategy with its options and their defaults (what mpgemm-tune's "
      "--strategy-options accepts). `evaluate DB SPACE` replays each strategy over many seeds with the database "
      "as the oracle: a proposed config's outcome on a shape is the latest measurement recorded for it there, and "
      "a config of the space that the database never measured counts as failed (the 'unrecorded' column says how "
      "many). For each strategy and shape it prints the optimum (the fastest recorded config of the space's "
      "domains, which every strategy can propose; a named point outside them, which only exhaustive proposes, is "
      "left out of it and named in the faster_outside column when it is faster) and, per tolerance (5%, 2%, 1%), "
      "the median (p50) and p90 over seeds of the number of measurements a strategy needed before one came "
      "within that tolerance of the optimum, p50 as a share of the space, and "
      "the share of seeds that got there within the budget. A seed that never got there counts as infinitely "
      "many, so a median or p90 is empty when more than half or a tenth of the seeds missed. The model strategy "
      "learns from the database's measurements of the same family at the other shapes (the prior; --no-prior "
      "turns it off). A database of an older schema is migrated in memory; DB itself is never written.");
  parser.positional("COMMAND", "list | evaluate")
      .positional("DB", "evaluate: an exhaustive recording (mpgemm-tune over SPACE)", false)
      .positional("SPACE", "evaluate: the space that was recorded (configs/*.json)", false)
      .option("--shape", "MxNxK", "evaluate only this shape", "every shape of SPACE with recordings")
      .option("--device", "NAME", "the device whose recordings are the oracle and the prior (e.g. 'NVIDIA H200')",
              "the database's one device; a database of several needs it")
      .option("--seeds", "N", "replays per strategy and shape (seeds 1..N)", "20")
      .option("--strategy", "A,B", "the strategies to replay", "all")
      .option("--budget", "N", "the most configs a replay may measure", "every config of the space")
      .option("--set", "S.OPT=V,...", "strategy options, e.g. model.epsilon=0.2,annealing.cooling=0.9")
      .flag("--no-prior", "do not give the strategies the recordings at the other shapes")
      .option("--format", "FMT", "table | csv | json | markdown", "table")
      .example("mpgemm-strategies list", "every strategy and its options")
      .example("mpgemm-strategies evaluate results/results.db configs/sm90a_focus.json",
               "every strategy, 20 seeds, at each of the space's three shapes")
      .example(
          "mpgemm-strategies evaluate t.db configs/sm86.json --strategy model,random --set model.initial=10 "
          "--format markdown",
          "two strategies, the model with a larger random start, as a markdown table");
  return cli::guarded_main(parser, argc, argv, [&](const cli::ParsedArgs& args) {
    auto format = report::format_from_string(args.get_or("--format", "table"));
    if (!format) throw UsageError(fmt::format("--format must be one of {}", report::format_names()));
    const auto& pos = args.positionals();
    if (pos.empty()) throw UsageError("missing COMMAND: list or evaluate");
    if (pos[0] == "list") {
      if (pos.size() > 1) throw UsageError("list takes no arguments");
      report::print(strategy_list(), *format, std::cout);
      return 0;
    }
    if (pos[0] != "evaluate") throw UsageError(fmt::format("unknown command '{}': list or evaluate", pos[0]));
    if (pos.size() != 3) throw UsageError("evaluate takes DB and SPACE");
    if (pos[1].ends_with(".json") && !pos[2].ends_with(".json"))
      throw UsageError(
          fmt::format("evaluate takes DB first, then SPACE: did you mean 'evaluate {} {}'?", pos[2], pos[1]));
    Space space = load_space(pos[2]);
    EvaluationSettings settings;
    if (auto n = args.get_positive_int("--seeds")) settings.seeds = static_cast<std::size_t>(*n);
    if (auto n = args.get_positive_int("--budget")) settings.budget = static_cast<std::size_t>(*n);
    if (auto s = args.get("--shape")) settings.shapes = {parse_shape(*s)};
    if (args.has("--strategy")) settings.strategies = args.get_list("--strategy");
    settings.prior = !args.has("--no-prior");
    if (args.has("--set")) {
      for (const std::string& item : args.get_list("--set")) {
        auto dot = item.find('.');
        auto eq = item.find('=');
        if (dot == std::string::npos || eq == std::string::npos || eq < dot)
          throw UsageError(fmt::format("--set takes STRATEGY.OPTION=VALUE, got '{}'", item));
        settings.options[item.substr(0, dot)][item.substr(dot + 1, eq - dot - 1)] = item.substr(eq + 1);
      }
    }
    auto recordings = recordings_of_device(load_recordings(pos[1], space.family), args.get("--device"));
    auto results = evaluate_strategies(space, recordings, settings);
    report::print(evaluation_table(results, settings.tolerances), *format, std::cout);
    for (const StrategyEvaluation& e : results)
      if (e.faster_point_ms && e.strategy == results.front().strategy)
        std::cerr << fmt::format(
            "mpgemm-strategies: at {} the named point {} ({:.4g} ms) is faster than the optimum above ({:.4g} ms) "
            "but lies outside the space's domains: only exhaustive proposes it, so no strategy is measured "
            "against it\n",
            e.shape.str(), e.faster_point, *e.faster_point_ms, *e.optimum_ms);
    return 0;
  });
}
