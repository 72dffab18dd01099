// mpgemm-export: the database's winners as a JSON table (for libmpgemm and scripts) or as a C++ header that
// instantiates them from kernels/*.cuh for nvcc.
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "cli/guarded_main.hpp"
#include "common/error.hpp"
#include "common/readable.hpp"
#include "common/writable.hpp"
#include "export/export_collect.hpp"
#include "export/export_cpp.hpp"
#include "store/store.hpp"

using namespace mpgemm;

int main(int argc, char** argv) {
  cli::ArgParser parser(
      "mpgemm-export", "export the tuned winners as a JSON table or a C++ header",
      "For every device, problem kind and shape of the database, the config mpgemm-run --config best takes: the "
      "winner of the shape's latest re-rank, else the fastest verified measurement of any family and arch "
      "(mpgemm-query DB winners / best_per_shape). --format json writes the table libmpgemm reads (format version "
      "2): device, arch, problem kind, shape, family, "
      "config name and parameters, TFLOP/s, cuBLAS's and cuBLASLt's TFLOP/s and the ratios to them, the L2 mode, "
      "where the winner came from (rerank or tune) and the mpgemm-run command that measures it again (docs/export.md "
      "lists the fields). --format cpp writes one C++ header that instantiates each winner's kernel template "
      "from kernels/*.cuh for its problem kind, guarded by the arch it was tuned for, with a table (kind, shape) -> "
      "kernel and launch geometry and a launch_problem() that builds the Hopper kernels' TMA tensor maps itself; "
      "compile it with nvcc -I "
      "<mpgemm>/kernels and a -gencode per arch named at its top. Reads the database only.");
  parser.positional("DB", "results database (mpgemm-tune --db)")
      .option("--format", "FMT", "json | cpp", "json")
      .option("--device", "NAME", "only this device's winners, e.g. \"NVIDIA H200\"", "every device")
      .option("-o", "FILE",
              "write to FILE (through a temporary file renamed into place; never the database read, nor any "
              "other SQLite file)",
              "standard output")
      .example("mpgemm-export results/results.db --format json -o winners.json", "the table libmpgemm loads")
      .example("mpgemm-export results/results.db --format cpp --device \"NVIDIA H200\" -o mpgemm_winners.hpp",
               "a header for nvcc -std=c++17 -I kernels -gencode arch=compute_90a,code=sm_90a");
  return cli::guarded_main(parser, argc, argv, [&](const cli::ParsedArgs& args) {
    const std::string format = args.get_or("--format", "json");
    if (format != "json" && format != "cpp") throw UsageError("--format must be json or cpp");
    ExportOptions options;
    options.database = args.positionals().at(0);
    options.device = args.get("--device");
    const std::optional<std::string> out = args.get("-o");
    // Never over the database it reads (through a symlink too) nor over any other database.
    if (out) require_safe_output(*out, {{"the database", options.database}});
    require_readable_file(options.database, "database");
    const Store store = Store::open(options.database, Store::Mode::read_only);
    std::map<std::string, std::int64_t> sm_counts;
    const ExportTable table = collect_export(store, options, &sm_counts);
    const std::string text = format == "json" ? to_json(table).dump(2) + "\n" : export_cpp_header(table, sm_counts);
    if (out) {
      write_file_atomically(*out, text);  // a failed write leaves an earlier export whole
      std::cerr << fmt::format("mpgemm-export: {} entries ({}) written to {}\n", table.entries.size(), format, *out);
    } else {
      std::cout << text;
    }
    return cli::kExitOk;
  });
}
