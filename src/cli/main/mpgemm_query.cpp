// mpgemm-query: read-only views of a results database, in the format you need; `mpgemm-query merge OUT IN...`
// merges databases.
#include <chrono>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "cli/guarded_main.hpp"
#include "cli/shape_options.hpp"
#include "cli/sql_rows.hpp"
#include "common/bounded_input.hpp"
#include "common/error.hpp"
#include "common/readable.hpp"
#include "compile/cubin_cache.hpp"
#include "report/table.hpp"
#include "store/dump.hpp"
#include "store/merge.hpp"
#include "store/schema.hpp"
#include "store/shape_winners.hpp"
#include "store/store.hpp"

using namespace mpgemm;

namespace {

// A --sql query's default time limit: far more than any question about a results database takes, and an endless
// recursive CTE ends with a message instead of running until killed.
constexpr std::chrono::milliseconds kDefaultSqlTimeLimit{60'000};
constexpr double kMaxSqlTimeLimitS = 7 * 24 * 3600;

int merge_main(int argc, char** argv) {
  cli::ArgParser parser(
      "mpgemm-query merge", "merge mpgemm results databases into one",
      "Merges every IN into OUT (created when missing) by content: runs by their uid, configs by family, name and "
      "source hash, compilations by config, arch and compile key, measurements by result key, cuBLAS/cuBLASLt "
      "timings, profiles and re-ranks by their content. Runs keep their provenance (host, argv, shard, GPUs). "
      "Merging is idempotent and order-independent: when two inputs hold one key with different content, the "
      "earliest created_at wins, then the smaller run uid. The inputs are never modified (an older schema is "
      "migrated in a temporary copy); an input of a newer schema or not an mpgemm database is refused and nothing "
      "is merged; an input that is OUT itself is skipped. OUT changes in one transaction (a new OUT is built "
      "under a temporary name and renamed): killed at any moment, OUT is as it was or complete. A database a "
      "tuner is recording into is refused. Compiled kernels cached beside the inputs (IN.cubins) are copied to "
      "OUT.cubins when missing there.");
  parser.positional("OUT", "the database to merge into (created when missing)")
      .positional("IN...", "the databases to merge (one or more)")
      .flag("--no-cubins", "leave the cubin caches beside the databases alone")
      .option("--format", "FMT", "table | csv | json | markdown, for the counts", "table")
      .example("mpgemm-query merge all.db shard-*.db", "the shards of a job array into one database")
      .example("mpgemm-query merge results/results.db other-host.db", "another machine's results into yours");
  return cli::guarded_main(parser, argc, argv, [&](const cli::ParsedArgs& args) {
    auto format = report::format_from_string(args.get_or("--format", "table"));
    if (!format) throw UsageError(fmt::format("--format must be one of {}", report::format_names()));
    const std::filesystem::path out = args.positionals().at(0);
    std::vector<std::filesystem::path> inputs;
    for (std::size_t i = 1; i < args.positionals().size(); ++i) inputs.emplace_back(args.positionals()[i]);
    const MergeReport report = merge_databases(out, inputs);
    // Notes and warnings quote the inputs' hostnames and paths: one line each, whatever a database holds.
    for (const auto& note : report.notes) std::cout << printable_text(note) << "\n";
    for (const auto& warning : report.warnings) std::cerr << "warning: " << printable_text(warning) << "\n";
    std::cout << fmt::format("{} {} from {} input(s)\n", report.created ? "created" : "merged into", out.string(),
                             inputs.size());
    report::print(merge_table(report), *format, std::cout);
    if (args.has("--no-cubins")) return 0;
    const CubinCache cache(CubinCache::beside(out));
    std::size_t copied = 0;
    for (const auto& in : inputs) copied += cache.copy_missing_from(CubinCache(CubinCache::beside(in)));
    if (copied) std::cout << fmt::format("{} cached cubins copied to {}\n", copied, cache.dir().string());
    return 0;
  });
}

}  // namespace

namespace {

cli::ArgParser query_parser() {
  cli::ArgParser parser(
      "mpgemm-query", "read an mpgemm results database",
      "Prints one view of DB: runs (every tuning run with its device and versions), configs (every config with its "
      "parameters), compilations (registers, shared memory, spills, ptxas performance warnings per arch), warnings "
      "(compilations that ptxas says lose speed: wgmma serialized, setmaxnreg ignored, injected warpgroup waits, "
      "spills), failures (every compilation or measurement that did not end ok, with why), best (the default: each "
      "device's and shape's winner, what mpgemm-run --config best, mpgemm-export and the library take: the latest "
      "re-rank's winner, else the first pass's fastest; chosen_by says which), fastest (the first pass's fastest "
      "verified config per device, arch and shape, with cuBLAS's and cuBLASLt's TFLOP/s and the ratios to both), "
      "best_per_shape (the first pass's fastest per device and shape, every family and arch competing), references "
      "(every cuBLAS and cuBLASLt timing), measurements (every "
      "measurement), profiles "
      "(Nsight Compute counters imported by mpgemm-profile), winners (per device and shape, the winner of the latest "
      "top-K re-rank: what mpgemm-run --config best takes first), reranks (every config of every re-rank in place "
      "order, with its samples' median, ratio to cuBLAS and tie-break facts). A winner of best, winners or "
      "best_per_shape that mpgemm-run, mpgemm-export and the library refuse (its name against its params, a ratio "
      "against its times) is named on stderr after the view, exit status 1. --sql runs your own SELECT instead. "
      "The database is opened read-only; nothing is ever written. The schema is in docs/schema.md and printed by "
      "--schema.");
  parser.positional("DB", "the results database (mpgemm-tune writes results/results.db by default)", false)
      .positional(
          "VIEW",
          "runs | configs | compilations | warnings | failures | best | fastest | best_per_shape | references | "
          "measurements | profiles | winners | reranks (default: best)",
          false)
      .option("--format", "FMT", "table | csv | json | markdown", "table")
      .option("--sql", "QUERY",
              fmt::format("run one read-only SELECT on the database instead of a view; its rows are printed as "
                          "they come (with --format csv or json in bounded memory, however many; table and "
                          "markdown align the columns over every row and take at most {} rows)",
                          cli::kMaxAlignedRows))
      .option("--timeout", "SECONDS",
              "stop a --sql query once SQLite has worked on it this long (the time spent printing does not "
              "count); 0: no limit",
              fmt::format("{}", std::chrono::duration_cast<std::chrono::seconds>(kDefaultSqlTimeLimit).count()))
      .option("--compare", "A,B",
              "the Nsight Compute counters of two profiled labels side by side, with B/A "
              "(which counter moved); labels are what mpgemm-profile recorded, each label's newest kernel and "
              "shape")
      .flag("--schema", "print the database schema (SQL with a comment per column) and exit")
      .flag("--problem-kinds",
            "print the name of every problem kind there is, one a line, the default first, and exit (what "
            "mpgemm-report checks a database's problem column and its --problem against)")
      .flag("--dump",
            "print every row as content, one line each, ids replaced by the natural keys of the rows "
            "they name, sorted: equal dumps mean equal results (compare two databases with diff). Any schema "
            "version is read (an older one migrated in memory; the file is never written). A damaged row (one "
            "its table's constraints refuse, e.g. a NULL in a NOT NULL column) is left out and named on stderr "
            "(table and rowid); the other rows are printed and the exit status is 1")
      .example("mpgemm-query results/results.db best", "the fastest verified config per device, arch and shape")
      .example("mpgemm-query t.db configs --format csv", "every config as CSV")
      .example("mpgemm-query results/results.db best --problem mk_nk_bf16_bf16",
               "each shape's winner of a linear layer's forward GEMM only")
      .example("mpgemm-query t.db warnings", "configs whose compilation ptxas flagged as losing speed")
      .example("mpgemm-query results/results.db best_per_shape --format markdown",
               "per shape: the fastest config of any family and arch, cuBLAS's and cuBLASLt's TFLOP/s, "
               "both ratios")
      .example("mpgemm-query results/results.db --compare wmma_naive,wmma_shared",
               "which hardware counters moved from the naive to the shared-memory kernel")
      .example("mpgemm-query merge all.db shard-1.db shard-2.db",
               "merge databases (mpgemm-query merge --help says how)")
      .example(
          "mpgemm-query t.db --sql \"SELECT name, registers FROM compilations JOIN configs ON "
          "configs.id = config_id ORDER BY registers DESC LIMIT 5\"",
          "your own query");
  cli::add_problem_option(parser,
                          ": only the rows of this kind, in a view whose rows are of a GEMM (failures, best, fastest, "
                          "best_per_shape, references, measurements, winners, reranks)",
                          "every kind");
  return parser;
}

// --timeout: how long a --sql query may run (0: no limit); refused without --sql.
std::chrono::milliseconds sql_time_limit(const cli::ParsedArgs& args) {
  std::chrono::milliseconds limit = kDefaultSqlTimeLimit;
  if (auto t = args.get_double("--timeout")) {
    if (!args.has("--sql")) throw UsageError("--timeout goes with --sql");
    if (!(*t >= 0 && *t <= kMaxSqlTimeLimitS))
      throw UsageError(fmt::format("--timeout must be between 0 and {:g} seconds", kMaxSqlTimeLimitS));
    limit = std::chrono::milliseconds(static_cast<std::int64_t>(*t * 1000));
    if (*t > 0 && limit.count() == 0) limit = std::chrono::milliseconds(1);
  }
  return limit;
}

// --problem filters a view's rows: with --schema, --dump, --sql or --compare it would filter nothing.
void require_problem_with_a_view(const cli::ParsedArgs& args) {
  if (!args.has("--problem")) return;
  for (const char* other : {"--schema", "--problem-kinds", "--dump", "--sql", "--compare"})
    if (args.has(other)) throw UsageError(fmt::format("--problem chooses the rows of a view, not of {}", other));
}

// --problem: the kind a view is filtered to, refused for a view whose rows are of no GEMM.
std::optional<ProblemKind> view_problem(const cli::ParsedArgs& args, std::string_view view) {
  const std::optional<ProblemKind> kind = cli::problem_option_from(args);
  if (!kind) return std::nullopt;
  if (!Store::query_has_problem(view))
    throw UsageError(
        fmt::format("--problem: the {} view's rows are of no problem kind (it filters failures, best, "
                    "fastest, best_per_shape, references, measurements, winners and reranks)",
                    view));
  return kind;
}

// --dump: every row that can be read; a damaged one is named on stderr, and the exit status says the dump is not
// the whole database.
int print_dump(const std::string& db) {
  const Dump dump = read_dump(db);
  for (const auto& line : dump.lines) std::cout << line << "\n";
  for (const auto& row : dump.damaged)
    std::cerr << fmt::format("mpgemm-query: warning: {}: damaged row left out of the dump: {}\n", db,
                             printable_text(describe(row)));
  if (dump.damaged.empty()) return 0;
  std::cout.flush();
  throw Error(fmt::format("{}: {} damaged row(s) left out of the dump (named above); the other rows were printed", db,
                          dump.damaged.size()));
}

// --sql: the rows as they come.
int print_sql(const Store& store, const std::string& sql, report::Format format, std::chrono::milliseconds limit,
              const std::string& db) {
  cli::SqlRowPrinter printer(format, std::cout);
  try {
    store.query_sql_rows(
        sql, [&](const std::vector<std::string>& names) { printer.columns(names); },
        [&](std::vector<report::Cell>&& row) { printer.row(std::move(row)); }, limit);
  } catch (const QueryTimeLimit& e) {
    throw Error(fmt::format("{}: {} (--timeout SECONDS changes it; 0: no limit)", db, e.what()));
  }
  printer.finish();
  return 0;
}

// Why a view that names winners names one that mpgemm-run, mpgemm-export and the library refuse (its name against
// its params, a ratio against its times: store/winner_checks.hpp); nullopt when they take them all. Every kind's
// winners are checked, or `kind`'s only.
std::optional<std::string> damaged_winner(const Store& store, const std::optional<ProblemKind>& kind) {
  try {
    if (kind)
      shape_winners(store, *kind);
    else
      all_shape_winners(store);
  } catch (const StoreError& e) {
    return e.what();
  }
  return std::nullopt;
}

// An empty answer says why on stderr (the printed table stays what the format promises).
void explain_empty(std::string_view view, const std::string& db, const std::optional<ProblemKind>& kind) {
  const std::string of = kind ? " of " + kind->name() : "";
  if (view == "best" || view == "fastest" || view == "best_per_shape")
    std::cerr << fmt::format(
        "mpgemm-query: {} has no verified measurement{} yet (a compile-only run measures "
        "nothing; see mpgemm-query {} runs)\n",
        db, of, db);
  if (view == "winners")
    std::cerr << fmt::format(
        "mpgemm-query: {} has no re-rank winner{} yet (mpgemm-tune --rerank K and "
        "mpgemm-run --rerank K record them)\n",
        db, of);
}

// A named view (VIEW, default best), filtered to --problem's kind. A winner the tools refuse is named after the
// table, as --dump names a damaged row: the rows are printed and the exit status is 1.
int print_view(const Store& store, const cli::ParsedArgs& args, report::Format format, const std::string& db) {
  const std::string view = args.positionals().size() > 1 ? args.positionals()[1] : "best";
  const std::optional<ProblemKind> kind = view_problem(args, view);
  const report::Table table = store.query_named(view, kind);
  std::optional<std::string> damaged;
  if (view == "best" || view == "winners" || view == "best_per_shape") damaged = damaged_winner(store, kind);
  if (table.rows.empty()) explain_empty(view, db, kind);
  report::print(table, format, std::cout);
  if (!damaged) return 0;
  std::cout.flush();
  throw Error(fmt::format("{} (the {} rows above are printed as the database holds them)", *damaged, view));
}

int query(const cli::ParsedArgs& args) {
  require_problem_with_a_view(args);
  if (args.has("--schema")) {
    std::cout << schema_sql();
    return 0;
  }
  if (args.has("--problem-kinds")) {
    for (const ProblemKind& kind : ProblemKind::all()) std::cout << kind.name() << "\n";
    return 0;
  }
  auto format = report::format_from_string(args.get_or("--format", "table"));
  if (!format) throw UsageError(fmt::format("--format must be one of {}", report::format_names()));
  if (args.positionals().empty())
    throw UsageError("missing DB: name the results database (mpgemm-tune writes results/results.db by default)");
  const std::string db = args.positionals().at(0);
  const std::chrono::milliseconds limit = sql_time_limit(args);
  require_readable_file(db, "database");
  if (args.has("--dump")) return print_dump(db);
  Store store = Store::open(db, Store::Mode::read_only);
  if (auto cmp = args.get("--compare")) {
    auto comma = cmp->find(',');
    if (comma == std::string::npos) throw UsageError("--compare expects two labels: A,B");
    report::print(store.compare_profiles(cmp->substr(0, comma), cmp->substr(comma + 1)), *format, std::cout);
    return 0;
  }
  if (auto sql = args.get("--sql")) {
    if (args.positionals().size() > 1) throw UsageError("give either a VIEW or --sql, not both");
    return print_sql(store, *sql, *format, limit, db);
  }
  return print_view(store, args, *format, db);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "merge") return merge_main(argc - 1, argv + 1);
  const cli::ArgParser parser = query_parser();
  return cli::guarded_main(parser, argc, argv, [&](const cli::ParsedArgs& args) { return query(args); });
}
