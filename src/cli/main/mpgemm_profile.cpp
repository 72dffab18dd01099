// mpgemm-profile: import Nsight Compute counters (ncu --csv) into the results database.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/guarded_main.hpp"
#include "cli/ncu_csv.hpp"
#include "cli/shape_options.hpp"
#include "common/bounded_input.hpp"
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
      .option("--label", "LABEL", "what was profiled: a point name, a config name or 'cublas'");
  cli::add_shape_options(parser, {", the shape the kernel was profiled at (required: ncu's CSV does not say)", ""});
  parser
      .option("--device", "NAME",
              "the profiled GPU's name, e.g. 'NVIDIA H200' (ncu's CSV names it only when the metric "
              "device__attribute_display_name was collected)",
              "from the CSV, else not recorded")
      .option("--kernel", "TEXT",
              "import only the kernels whose name contains TEXT, when the CSV holds several (ncu on mpgemm-run "
              "profiles cuBLAS's reference GEMM too); one label is one kernel",
              "the CSV's one kernel")
      .example(
          "mpgemm-profile results/results.db results/profiles/wmma_naive.csv --label wmma_naive --M 2048 "
          "--N 2048 --K 2048",
          "record the naive kernel's counters at 2048^3")
      .example("mpgemm-profile results/results.db all.csv --label cublas --kernel nvjet --M 4096 --N 4096 --K 4096",
               "record only cuBLAS's kernel of a CSV that holds ours too, at 4096^3");
  return cli::guarded_main(parser, argc, argv, [&](const cli::ParsedArgs& args) {
    auto label = args.get("--label");
    if (!label || label->empty()) throw UsageError("--label is required");
    // The counters are filed under the shape and compared by it (mpgemm-query --compare): a default would file a
    // 4096^3 profile imported without the options at that default, silently.
    const cli::ShapeOptions extents = cli::shape_options_from(args);
    if (!extents.all())
      throw UsageError("--M, --N and --K are required: the shape the kernel was profiled at (ncu's CSV does not say)");
    const Shape shape{*extents.m, *extents.n, *extents.k};
    const std::string path = args.positionals().at(1);
    // The CSV is an input file: unreadable, too large or not ncu's CSV is bad input (exit 2), in one line.
    const std::string text = read_bounded_file(path, "ncu CSV");
    std::vector<ProfileRecord> kernels;
    try {
      kernels = cli::parse_ncu_csv(text);
    } catch (const Error& e) {
      throw InputFileError(path, e.what());
    }
    if (kernels.empty()) throw InputFileError(path, "the ncu CSV has no profiled kernel");
    if (auto only = args.get("--kernel")) {
      std::erase_if(kernels, [&](const ProfileRecord& k) { return k.kernel.find(*only) == std::string::npos; });
      if (kernels.empty())
        throw UsageError(fmt::format("--kernel {}: no kernel of {} has that in its name", *only, path));
    }
    // Several launches of one kernel are one kernel's counters; two kernels under one label would be read back as
    // one of them (the newest value of each counter wins), so the other would be hidden.
    std::set<std::string> names;
    for (const ProfileRecord& k : kernels) names.insert(k.kernel);
    if (names.size() > 1) {
      std::vector<std::string> shown;
      for (const std::string& n : names) shown.push_back(n.size() > 60 ? n.substr(0, 57) + "..." : n);
      throw UsageError(fmt::format("{} holds {} kernels ({}), and one label is one kernel: choose with --kernel TEXT",
                                   path, names.size(), fmt::join(shown, "; ")));
    }
    const std::filesystem::path db = args.positionals().at(0);
    std::error_code ec;  // an unreadable folder is Store::open's refusal, in its words
    const bool existed = std::filesystem::exists(db, ec) || ec;
    Store store = Store::open(db, Store::Mode::read_write);
    if (!existed)
      std::cerr << fmt::format(
          "mpgemm-profile: {} did not exist: created it (counters are usually added to the "
          "database mpgemm-tune wrote)\n",
          db.string());
    std::size_t rows = 0, counters = 0;
    for (auto& k : kernels) {
      if (auto device = args.get("--device")) k.device_name = *device;
      k.label = *label;
      k.shape = shape;
      k.config_id = store.find_config_id(*label);
      k.source_file = path;
      rows += store.record_profile(k);
      counters += k.metrics.size();
    }
    std::cout << fmt::format("{}: {} launch(es) of {}, {} counters recorded as '{}' at {}{}\n", path, kernels.size(),
                             kernels.front().kernel, rows, *label, kernels.front().shape.str(),
                             rows < counters ? fmt::format(" ({} recorded before)", counters - rows) : "");
    return 0;
  });
}
