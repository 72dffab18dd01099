#pragma once
// A tune's input, checked and resolved once: the space, its family, the shapes, which configs --only and
// --leaders-from select and how many the run takes, found before anything is written (run_tune) or instead of
// running (dry_run_tune). Every mistake in the space or the options is an error here; the later stages read the
// TuneInput, not the options again.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "codegen/family.hpp"
#include "space/space.hpp"
#include "tune/tuner.hpp"

namespace mpgemm {

struct TuneInput {
  Space space;
  const Family* family = nullptr;
  std::vector<Shape> shapes;      // the space's or --shapes / --M --N --K's, each once
  std::vector<std::string> only;  // --only's entries (tune/only.hpp); empty: no restriction by name
  // --leaders-from: the names of the configs that led in that database (a listable space only); nullopt without
  // it.
  std::optional<std::set<std::string>> leaders;
  // Which configs of the space --only and --leaders-from take, by their place in the exhaustive search's order
  // (all without either); empty when the space is too large to enumerate.
  std::vector<bool> selected;
  // Every admissible config's SpaceIndex number, in the exhaustive search's order (build_candidates' walk, kept so
  // the strategies need not walk the space again); empty when the space is too large to enumerate.
  std::vector<std::uint64_t> admissible;
  std::string of_space;  // "" or " (--only: N of the space's M)", " (--leaders-from: ...)"
  // How many configs one shape's search will take at most; 0 when unknown before it runs (a space too large to
  // enumerate, or a strategy choosing in its own order under --budget and --only; check_tune_input refuses that
  // with --leaders-from).
  std::size_t configs_per_shape = 0;
  // How many (config, shape) pairs a run takes (a shard's share with --shard); 0: unknown. `pairs` over every
  // shape, as a measuring run takes them; `compile_pairs` over one, as a compile-only run compiles each config once.
  std::size_t pairs = 0;
  std::size_t compile_pairs = 0;

  // Whether --only or --leaders-from restricts the configs at all.
  bool restricted() const { return !only.empty() || leaders.has_value(); }
  // Whether --only and --leaders-from (those given) both take the config named `name` (point name `alias`).
  bool selects(const std::string& name, const std::optional<std::string>& alias) const;
};

// Throws SpaceError, UsageError or mpgemm::Error for the first mistake found.
TuneInput check_tune_input(const TuneOptions& opt);

// What mpgemm-tune --dry-run reports: the run's size as far as it is known without a device or a database.
struct DryRun {
  std::size_t configs_per_shape = 0;  // 0: unknown before the run (see TuneInput)
  std::string of_space;               // TuneInput::of_space: what --only and --leaders-from took
  std::size_t pairs = 0;              // (config, shape) pairs, of the shard with --shard; compile-only: configs
  std::size_t shapes = 0;
  std::optional<Arch> arch;  // --arch's, else the space's; a GPU's own arch decides when there is neither
  bool arch_from_space = false;
};

// Checks the input as run_tune does, and the files the run would need (--replay's database, --worker, the
// database's folder), without opening a database, compiling or looking for a GPU. Throws as check_tune_input,
// and mpgemm::Error for a missing or unwritable file.
DryRun dry_run_tune(const TuneOptions& opt);

}  // namespace mpgemm
