#include "tune/tune_input.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/readable.hpp"
#include "compile/cubin_cache.hpp"
#include "space/enumerate.hpp"
#include "space/shape_list.hpp"
#include "space/space_index.hpp"
#include "store/store.hpp"
#include "tune/candidates.hpp"
#include "tune/only.hpp"
#include "tune/strategy/strategy.hpp"

namespace mpgemm {

namespace {

std::vector<Shape> shapes_of(const Space& space, const TuneOptions& opt) {
  std::vector<Shape> shapes = opt.shapes.empty() ? space.shapes : opt.shapes;
  for (auto& s : shapes) {
    if (opt.m) s.m = *opt.m;
    if (opt.n) s.n = *opt.n;
    if (opt.k) s.k = *opt.k;
  }
  return without_repeats(std::move(shapes));  // --m/--n/--k can make two listed shapes one
}

// The kind whose leaders --leaders-from takes: --leaders-kind's, else the run's own.
const ProblemKind& leaders_kind(const TuneOptions& opt) {
  return opt.leaders_kind ? *opt.leaders_kind : opt.settings.kind;
}

// --leaders-from: the configs of `family` that led in that database at shapes of leaders_kind(), by name. A kind
// that led nowhere there is refused, saying when the default kind did (--leaders-kind takes another kind's).
Store::Leaders leaders_of(const TuneOptions& opt, const std::string& family) {
  const std::string db = opt.leaders_from->string();
  const ProblemKind& kind = leaders_kind(opt);
  Store::Leaders found;
  std::size_t default_leaders = 0;
  try {  // Store::open refuses a missing file or a folder itself; the option's name is the context it lacks
    const Store store = Store::open(*opt.leaders_from, Store::Mode::read_only);
    found = store.leaders(family, opt.leader_rule, kind);
    if (found.names.empty() && !kind.is_default())
      default_leaders = store.leaders(family, opt.leader_rule, ProblemKind{}).names.size();
  } catch (const Error& e) {
    throw Error(fmt::format("--leaders-from {}: {}", db, e.what()));
  }
  if (found.names.empty() && default_leaders > 0)
    throw UsageError(
        fmt::format("--leaders-from {}: no config of family {} was measured there for {}; {} led there for {} "
                    "(--leaders-kind {} takes them)",
                    db, family, kind.name(), default_leaders, ProblemKind{}.name(), ProblemKind{}.name()));
  if (found.names.empty())
    throw UsageError(fmt::format("--leaders-from {}: no config of family {} was measured there{}", db, family,
                                 kind.is_default() ? std::string() : " for " + kind.name()));
  return found;
}

// What --only and --leaders-from took, for the run's first line and the dry run.
std::string selection_note(const TuneOptions& opt, const Store::Leaders* leaders, std::size_t taken, std::size_t of) {
  const std::string by = !opt.only.empty() && leaders ? "--only and --leaders-from"
                         : leaders                    ? "--leaders-from"
                                                      : "--only";
  std::string note = fmt::format(" ({}: {} of the space's {}", by, taken, of);
  if (leaders)
    note += fmt::format("; {} led at {} shape(s){} of {}", leaders->names.size(), leaders->shapes,
                        leaders_kind(opt).is_default() && opt.settings.kind.is_default()
                            ? std::string()
                            : " of kind " + leaders_kind(opt).name(),
                        opt.leaders_from->string());
  return note + ")";
}

// How many configs one shape's search proposes, before --only filters them: the budget counts proposals.
std::size_t proposals_per_shape(const std::vector<bool>& selected, const TuneOptions& opt) {
  return opt.budget ? std::min(*opt.budget, selected.size()) : selected.size();
}

// In exhaustive order, the proposals are the first `budget` configs.
std::size_t configs_per_shape(const std::vector<bool>& selected, const TuneOptions& opt) {
  if (selected.empty()) return opt.budget.value_or(0);
  const std::size_t proposed = proposals_per_shape(selected, opt);
  if (opt.budget && !opt.only.empty() && opt.strategy != "exhaustive") return 0;  // their own order: unknown
  return static_cast<std::size_t>(std::count(selected.begin(), selected.begin() + static_cast<long>(proposed), true));
}

// How many (config, shape) pairs a run over `shape_count` shapes takes. A shard (exhaustive only) takes pairs by
// their place in the search order, before --only filters.
std::size_t pairs_of(const std::vector<bool>& selected, const TuneOptions& opt, std::size_t shape_count) {
  const std::size_t per_shape = configs_per_shape(selected, opt);
  if (!opt.shard) return per_shape * shape_count;
  if (selected.empty()) return opt.shard->pairs(per_shape, shape_count);
  const std::size_t proposed = proposals_per_shape(selected, opt);
  std::size_t n = 0;
  for (std::size_t s = 0; s < shape_count; ++s)
    for (std::size_t k = 0; k < proposed; ++k) n += selected[k] && opt.shard->takes(k, s) ? 1 : 0;
  return n;
}

}  // namespace

bool TuneInput::selects(const std::string& name, const std::optional<std::string>& alias) const {
  if (!only.empty() && !only_selects(name, alias, only)) return false;
  return !leaders || leaders->count(name) > 0;
}

TuneInput check_tune_input(const TuneOptions& opt) {
  TuneInput in;
  in.space = load_space(opt.space_path);
  // Before anything is written: a cache others can write is refused (its cubins are run).
  CubinCache::require_trusted(opt.cubin_cache.value_or(CubinCache::beside(opt.db_path)));
  try {
    in.family = &family(in.space.family);
  } catch (const Error& e) {
    throw in.space.error_at("/family", e.what());
  }
  if (auto why = in.family->check_kind(opt.settings.kind))
    throw UsageError(fmt::format("--problem {}: {}", opt.settings.kind.name(), *why));
  if (auto why = in.space.refuses(opt.settings.kind))
    throw UsageError(fmt::format("--problem {}: {}", opt.settings.kind.name(), *why));
  if (auto gap = opt.settings.kind.reference_gap(); gap && !opt.compile_only)
    throw UsageError(
        fmt::format("--problem {}: {}; --compile-only still builds its kernels", opt.settings.kind.name(), *gap));
  in.shapes = shapes_of(in.space, opt);
  in.only = opt.only;
  const bool listable = product_size(in.space) <= kMaxSpaceProduct;
  if (opt.leaders_from && !listable)
    throw UsageError(
        fmt::format("--leaders-from needs a space whose product is at most {} configs, so that the "
                    "leaders can be found in it; this one is only sampled",
                    kMaxSpaceProduct));
  if (opt.leaders_from && opt.budget && opt.strategy != "exhaustive")
    throw UsageError(
        fmt::format("--leaders-from with --budget and --strategy {}: the budget counts that strategy's "
                    "proposals over the whole space, most of which --leaders-from refuses; use the "
                    "exhaustive strategy (the leaders are few) or drop the budget",
                    opt.strategy));
  // Every config the family cannot build is an error at its place in the file, before anything is written;
  // a space too large to enumerate is checked config by config as the strategy proposes.
  if (listable) {
    const std::vector<Candidate> all = build_candidates(in.space, *in.family);
    // --only's own mistakes first, before the leaders are looked at.
    if (!opt.only.empty() &&
        std::none_of(all.begin(), all.end(), [&](auto& c) { return only_selects(c.name, c.alias, opt.only); }))
      throw UsageError("--only matches no config of the space");
    // A whole name that is no config's is a typo, even when the other entries select something.
    for (const std::string& entry : opt.only)
      if (entry.starts_with('=') &&
          std::none_of(all.begin(), all.end(), [&](auto& c) { return only_selects(c.name, c.alias, {entry}); }))
        throw UsageError(fmt::format("--only {}: no config or point of the space has that name", entry));
    std::optional<Store::Leaders> found;
    if (opt.leaders_from) {
      found = leaders_of(opt, in.space.family);
      in.leaders.emplace(found->names.begin(), found->names.end());
    }
    for (const Candidate& c : all) in.selected.push_back(in.selects(c.name, c.alias));
    // The strategies' walk of the space, done here once: SpaceIndex's number of each admissible config. The
    // enumeration walks the product in that numbering's order; the named points come first in `all`, and one
    // lying inside the domains counts where it lies there when it satisfies the constraints.
    const SpaceIndex index(in.space);
    in.admissible.reserve(all.size());
    for (const Candidate& c : all)
      if (const auto i = index.index_of(c.params); i && (!c.alias || index.admissible(*i))) in.admissible.push_back(*i);
    std::sort(in.admissible.begin(), in.admissible.end());
    const auto taken = static_cast<std::size_t>(std::count(in.selected.begin(), in.selected.end(), true));
    if (taken == 0 && found)
      throw UsageError(
          fmt::format("--leaders-from {}: none of the {} configs that led there (at {} shape(s)) is a "
                      "config of this space{}",
                      opt.leaders_from->string(), found->names.size(), found->shapes,
                      opt.only.empty() ? "" : " that --only takes"));
    if (!opt.only.empty() || found) in.of_space = selection_note(opt, found ? &*found : nullptr, taken, all.size());
  }
  make_strategy(opt.strategy,
                StrategyContext{&in.space, in.shapes.front(), opt.seed, opt.budget, opt.strategy_options, {}, nullptr});
  if (opt.shard && opt.strategy != "exhaustive")
    throw UsageError(
        fmt::format("--shard takes a fixed slice of the exhaustive search; --strategy {} chooses its "
                    "configs from what it measures, so its shards would not add up to one search",
                    opt.strategy));
  in.configs_per_shape = configs_per_shape(in.selected, opt);
  in.pairs = pairs_of(in.selected, opt, in.shapes.size());
  in.compile_pairs = pairs_of(in.selected, opt, 1);
  return in;
}

DryRun dry_run_tune(const TuneOptions& opt) {
  const TuneInput in = check_tune_input(opt);
  if (opt.replay_db) require_readable_file(*opt.replay_db, "database");
  if (opt.worker_path && access(opt.worker_path->c_str(), X_OK) != 0)
    throw Error(fmt::format("--worker {}: {}", opt.worker_path->string(), std::strerror(errno)));
  // The database is created (with its folders) or resumed, as Store::open would.
  Store::require_writable(opt.db_path);
  DryRun d;
  d.configs_per_shape = in.configs_per_shape;
  d.of_space = in.of_space;
  d.shapes = in.shapes.size();
  d.pairs = opt.compile_only ? in.compile_pairs : in.pairs;
  if (opt.arch) {
    d.arch = opt.arch;
  } else if (in.space.arch) {
    d.arch = Arch::parse(*in.space.arch);
    d.arch_from_space = true;
  }
  return d;
}

}  // namespace mpgemm
