// mpgemm-query: read-only views of a results database, in the format you need.
#include <iostream>

#include <fmt/format.h>

#include "cli/guarded_main.hpp"
#include "common/error.hpp"
#include "report/table.hpp"
#include "store/schema.hpp"
#include "store/store.hpp"

using namespace mpgemm;

int main(int argc, char** argv) {
  cli::ArgParser parser(
      "mpgemm-query", "read an mpgemm results database",
      "Prints one view of DB: runs (every tuning run with its device and versions), configs (every config with its "
      "parameters), compilations (registers, shared memory, spills, ptxas performance warnings per arch), warnings "
      "(compilations that ptxas says lose speed: wgmma serialized, setmaxnreg ignored, injected warpgroup waits, "
      "spills), failures (every compilation or measurement that did not end ok, with why), best (the fastest "
      "verified config per device, arch and shape, with cuBLAS's and cuBLASLt's TFLOP/s and the ratios to both), "
      "best_per_shape (the same per device and shape, every family and arch competing: what mpgemm-run --config "
      "best takes), references (every cuBLAS and cuBLASLt timing), measurements (every measurement), profiles "
      "(Nsight Compute counters imported by mpgemm-profile), winners (per device and shape, the winner of the latest "
      "top-K re-rank: what mpgemm-run --config best takes first), reranks (every config of every re-rank in place "
      "order, with its samples' median, ratio to cuBLAS and tie-break facts). --sql runs your own SELECT instead. The "
      "database is "
      "opened read-only; nothing is ever written. The schema is in the README and printed by --schema.");
  parser.positional("DB", "the results database (mpgemm-tune writes results/results.db by default)", false)
      .positional("VIEW",
                  "runs | configs | compilations | warnings | failures | best | best_per_shape | references | "
                  "measurements | profiles | winners | reranks (default: best)",
                  false)
      .option("--format", "FMT", "table | csv | json | markdown", "table")
      .option("--sql", "QUERY", "run one read-only SELECT on the database instead of a view")
      .option("--compare", "A,B", "the Nsight Compute counters of two profiled labels side by side, with B/A "
              "(which counter moved); labels are what mpgemm-profile recorded")
      .flag("--schema", "print the database schema (SQL with a comment per column) and exit")
      .example("mpgemm-query results/results.db best", "the fastest verified config per device, arch and shape")
      .example("mpgemm-query t.db configs --format csv", "every config as CSV")
      .example("mpgemm-query t.db warnings", "configs whose compilation ptxas flagged as losing speed")
      .example("mpgemm-query results/h200/sm90a.db best_per_shape --format markdown",
               "per shape: the fastest config of any family and arch, cuBLAS's and cuBLASLt's TFLOP/s, "
               "both ratios")
      .example("mpgemm-query results/results.db --compare wmma_naive,wmma_shared",
               "which hardware counters moved from the naive to the shared-memory kernel")
      .example("mpgemm-query t.db --sql \"SELECT name, registers FROM compilations JOIN configs ON "
               "configs.id = config_id ORDER BY registers DESC LIMIT 5\"",
               "your own query");
  return cli::guarded_main(parser, argc, argv, [&](const cli::ParsedArgs& args) {
    if (args.has("--schema")) {
      std::cout << schema_sql();
      return 0;
    }
    auto format = report::format_from_string(args.get_or("--format", "table"));
    if (!format) throw UsageError(fmt::format("--format must be one of {}", report::format_names()));
    if (args.positionals().empty()) throw UsageError("missing DB");
    const std::string db = args.positionals().at(0);
    if (!std::filesystem::exists(db)) throw Error(fmt::format("no database at {}", db));
    Store store = Store::open(db, Store::Mode::read_only);
    report::Table table;
    if (auto cmp = args.get("--compare")) {
      auto comma = cmp->find(',');
      if (comma == std::string::npos) throw UsageError("--compare expects two labels: A,B");
      table = store.compare_profiles(cmp->substr(0, comma), cmp->substr(comma + 1));
    } else if (auto sql = args.get("--sql")) {
      if (args.positionals().size() > 1) throw UsageError("give either a VIEW or --sql, not both");
      table = store.query_sql(*sql);
    } else {
      table = store.query_named(args.positionals().size() > 1 ? args.positionals()[1] : "best");
    }
    report::print(table, *format, std::cout);
    return 0;
  });
}
