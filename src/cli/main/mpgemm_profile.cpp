// mpgemm-profile: import Nsight Compute counters (ncu --csv) into the results database.
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "cli/guarded_main.hpp"
#include "cli/ncu_csv.hpp"
#include "common/error.hpp"
#include "store/store.hpp"

using namespace mpgemm;

int main(int argc, char** argv) {
  cli::ArgParser parser(
      "mpgemm-profile", "import Nsight Compute counters into the results database",
      "Reads CSV written by `ncu --csv --metrics ...` (tools/profile_layer2.sh writes one per kernel under "
      "results/profiles/) and records every counter of every profiled kernel in the table profile_metrics under "
      "LABEL (a point name, a config name, or cublas), linked to the config of that name when the database has "
      "it. Compare two labels with: mpgemm-query DB --compare A,B");
  parser.positional("DB", "the results database")
      .positional("CSV", "ncu --csv output")
      .option("--label", "LABEL", "what was profiled: a point name, a config name or 'cublas'")
      .option("--M", "INT", "problem rows", "2048")
      .option("--N", "INT", "problem columns", "2048")
      .option("--K", "INT", "reduction dimension", "2048")
      .option("--device", "NAME",
              "the profiled GPU's name, e.g. 'NVIDIA H200' (ncu's CSV names it only when the metric "
              "device__attribute_display_name was collected)",
              "from the CSV, else not recorded")
      .example("mpgemm-profile results/results.db results/profiles/wmma_naive.csv --label wmma_naive",
               "record the naive kernel's counters");
  return cli::guarded_main(parser, argc, argv, [&](const cli::ParsedArgs& args) {
    auto label = args.get("--label");
    if (!label || label->empty()) throw UsageError("--label is required");
    const std::string path = args.positionals().at(1);
    std::ifstream in(path);
    if (!in) throw Error(fmt::format("cannot read {}", path));
    std::stringstream text;
    text << in.rdbuf();
    auto kernels = cli::parse_ncu_csv(text.str());
    if (kernels.empty()) throw Error(fmt::format("{} has no profiled kernel", path));
    Store store = Store::open(args.positionals().at(0), Store::Mode::read_write);
    std::size_t rows = 0, counters = 0;
    for (auto& k : kernels) {
      if (auto device = args.get("--device")) k.device_name = *device;
      k.label = *label;
      k.shape = {args.get_positive_int("--M").value_or(2048), args.get_positive_int("--N").value_or(2048),
                 args.get_positive_int("--K").value_or(2048)};
      k.config_id = store.find_config_id(*label);
      k.source_file = path;
      rows += store.record_profile(k);
      counters += k.metrics.size();
    }
    std::cout << fmt::format("{}: {} kernel(s), {} counters recorded as '{}'{}\n", path, kernels.size(), rows, *label,
                             rows < counters ? fmt::format(" ({} recorded before)", counters - rows) : "");
    return 0;
  });
}
