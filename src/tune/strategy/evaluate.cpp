#include "tune/strategy/evaluate.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sqlite3.h>
#include <nlohmann/json.hpp>

#include "common/bounded_input.hpp"
#include "common/error.hpp"
#include "common/readable.hpp"
#include "space/enumerate.hpp"
#include "store/store.hpp"

namespace mpgemm {

namespace {

std::optional<std::int64_t> int_cell(const report::Cell& c) {
  if (const auto* i = std::get_if<std::int64_t>(&c)) return *i;
  return std::nullopt;
}

std::optional<double> double_cell(const report::Cell& c) {
  if (const auto* d = std::get_if<double>(&c)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&c)) return static_cast<double>(*i);
  return std::nullopt;
}

std::string text_cell(const report::Cell& c) {
  if (const auto* s = std::get_if<std::string>(&c)) return *s;
  return {};
}

int resource(const report::Cell& c) {
  return static_cast<int>(int_cell(c).value_or(-1));
}

}  // namespace

std::vector<Recording> load_recordings(const std::filesystem::path& db, const std::string& family,
                                       const ProblemKind& kind) {
  require_readable_file(db, "database");
  // Read-only; a file of an older schema is migrated in memory and left as it was (Store::open).
  const Store store = Store::open(db, Store::Mode::read_only);
  return load_recordings(store, family, kind);
}

std::vector<Recording> load_recordings(const Store& store, const std::string& family, const ProblemKind& kind) {
  std::vector<Recording> out;
  {
    // A fixed query; the family is compared in C++ so no value is pasted into SQL.
    report::Table t = store.query_sql(
        "SELECT c.family, c.params, m.M, m.N, m.K, m.status, m.median_ms, comp.registers, comp.shared_bytes, "
        "comp.dynamic_shared_bytes, comp.spill_store_bytes, comp.spill_load_bytes, m.device_name, c.name, m.problem "
        "FROM measurements m "
        "JOIN configs c ON c.id = m.config_id LEFT JOIN compilations comp ON comp.id = m.compilation_id "
        "ORDER BY m.id");
    for (const auto& r : t.rows) {
      if (text_cell(r[0]) != family || text_cell(r[14]) != kind.name()) continue;  // one kind's recordings only
      Recording rec;
      rec.device_name = text_cell(r[12]);
      rec.shape = Shape{int_cell(r[2]).value_or(0), int_cell(r[3]).value_or(0), int_cell(r[4]).value_or(0)};
      Observation& o = rec.observation;
      // A database is untrusted input: params nested 100,000 deep (or otherwise malformed) escaped as nlohmann's
      // exception, printed as an internal error. One line naming the file and the config (issue 57, item 12).
      try {
        o.params = params_from_json(parse_json_bounded(text_cell(r[1])));
      } catch (const nlohmann::json::exception& e) {
        throw StoreError(store.path().string(), SQLITE_CORRUPT,
                         fmt::format("unexpected content: config {} has malformed params: {}",
                                     printable_text(text_cell(r[13])), e.what()));
      }
      auto status = status_from_string(text_cell(r[5]));
      if (!status) throw Error(fmt::format("unknown measurement status '{}'", text_cell(r[5])));
      o.status = *status;
      if (o.status == Status::ok) o.ms = double_cell(r[6]);
      o.registers = resource(r[7]);
      if (int_cell(r[8])) o.shared_bytes = resource(r[8]) + std::max(0, resource(r[9]));
      if (int_cell(r[10]) || int_cell(r[11]))
        o.spill_bytes = std::max(0, resource(r[10])) + std::max(0, resource(r[11]));
      out.push_back(std::move(rec));
    }
  }
  return out;
}

std::vector<Recording> recordings_of_device(std::vector<Recording> recordings,
                                            const std::optional<std::string>& device) {
  std::set<std::string> names;
  for (const Recording& r : recordings) names.insert(r.device_name);
  if (!device) {
    if (names.size() > 1)
      throw UsageError(fmt::format("the database holds recordings of {} devices ({}): say which with --device",
                                   names.size(), fmt::join(names, ", ")));
    return recordings;
  }
  if (!names.contains(*device))
    throw UsageError(fmt::format("--device '{}': the database has no recording of it (it has {})", *device,
                                 names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "))));
  std::erase_if(recordings, [&](const Recording& r) { return r.device_name != *device; });
  return recordings;
}

namespace {

// Options only for strategies that exist and are replayed.
void check_strategy_options(const EvaluationSettings& settings) {
  for (const auto& [name, options] : settings.options) {
    if (std::none_of(strategies().begin(), strategies().end(), [&](const StrategyInfo& s) { return s.name == name; }))
      throw UsageError(fmt::format("options given for '{}', which is no strategy", name));
    if (!settings.strategies.empty() &&
        std::find(settings.strategies.begin(), settings.strategies.end(), name) == settings.strategies.end())
      throw UsageError(fmt::format("options given for '{}', which is not among the strategies replayed ({})", name,
                                   fmt::join(settings.strategies, ",")));
  }
}

// The configs every strategy can propose: the domains' configs that pass the constraints. Named points outside
// the domains (only exhaustive proposes them) are kept apart.
struct Proposable {
  std::set<Params> configs;
  std::vector<const NamedPoint*> outside;
};

Proposable proposable_configs(const Space& space) {
  Proposable out;
  for (Params& p : enumerate(space).configs) out.configs.insert(std::move(p));
  for (const NamedPoint& p : space.points)
    if (!out.configs.contains(p.params)) out.outside.push_back(&p);
  return out;
}

// The shapes asked for, each of which must have recordings; none asked for: the space's shapes that have some.
std::vector<Shape> shapes_to_replay(const Space& space, const std::vector<Recording>& recordings,
                                    const EvaluationSettings& settings) {
  auto recorded = [&](const Shape& s) {
    return std::any_of(recordings.begin(), recordings.end(), [&](const Recording& r) { return r.shape == s; });
  };
  std::vector<Shape> shapes = settings.shapes;
  for (const Shape& s : shapes) {
    if (recorded(s)) continue;
    std::vector<std::string> known;
    for (const Shape& t : space.shapes)
      if (recorded(t)) known.push_back(t.str());
    throw UsageError(
        fmt::format("the database has no measurement of the {} family at {}, so there is nothing to replay "
                    "there; of the shapes of {} it has {}",
                    space.family, s.str(), space.file,
                    known.empty() ? std::string("none") : fmt::format("{}", fmt::join(known, ", "))));
  }
  if (shapes.empty()) {
    for (const Shape& s : space.shapes)
      if (recorded(s)) shapes.push_back(s);
    if (shapes.empty())
      throw Error(fmt::format("the database has no measurement of the {} family at the shapes of {}", space.family,
                              space.file));
  }
  return shapes;
}

// One shape's recordings: the oracle (a config's latest recording there) and, with settings.prior, the other
// shapes' recordings as the strategies' prior.
struct ShapeRecordings {
  std::map<Params, Observation> oracle;
  std::vector<PriorObservation> prior;
};

ShapeRecordings recordings_at(const Shape& shape, const std::vector<Recording>& recordings, bool with_prior) {
  ShapeRecordings out;
  for (const Recording& r : recordings) {
    if (r.shape == shape)
      out.oracle[r.observation.params] = r.observation;  // the latest recording wins
    else if (with_prior)
      out.prior.push_back({r.shape, r.observation});
  }
  return out;
}

// What every strategy's evaluation of `shape` starts from: the counts, the optimum, the fastest outside point
// that beats it, and the budget.
StrategyEvaluation shape_baseline(const Space& space, const Shape& shape, const Proposable& proposable,
                                  const std::map<Params, Observation>& oracle, std::optional<std::size_t> budget) {
  StrategyEvaluation base;
  base.shape = shape;
  base.configs = proposable.configs.size();
  for (const Params& p : proposable.configs) {
    auto it = oracle.find(p);
    if (it == oracle.end()) {
      ++base.unrecorded;
    } else if (it->second.status != Status::ok || !it->second.ms) {
      ++base.failed;
    } else if (!base.optimum_ms || *it->second.ms < *base.optimum_ms) {
      base.optimum_ms = it->second.ms;
      base.optimum = describe_config(space, p);
    }
  }
  base.points_outside = proposable.outside.size();
  for (const NamedPoint* p : proposable.outside) {
    auto it = oracle.find(p->params);
    if (it == oracle.end() || it->second.status != Status::ok || !it->second.ms) continue;
    if ((!base.optimum_ms || *it->second.ms < *base.optimum_ms) &&
        (!base.faster_point_ms || *it->second.ms < *base.faster_point_ms)) {
      base.faster_point_ms = it->second.ms;
      base.faster_point = p->name;
    }
  }
  // Exhaustive proposes the outside points too: a budget beyond everything there is to propose means all of it.
  const std::size_t all = proposable.configs.size() + proposable.outside.size();
  base.budget = std::min(budget.value_or(all), all);
  return base;
}

// One replay of strategy `name` with `seed` against the oracle: per tolerance, the number of proposals measured
// when one first came within it of e.optimum_ms (nullopt: none did within the budget). Throws mpgemm::Error for a
// proposal made twice, beyond the budget or outside the constraints.
std::vector<std::optional<std::size_t>> replay_seed(const Space& space, const std::string& name, std::size_t seed,
                                                    const StrategyEvaluation& e, const ShapeRecordings& recorded,
                                                    const EvaluationSettings& settings) {
  StrategyContext context;
  context.space = &space;
  context.shape = e.shape;
  context.seed = seed;
  context.budget = e.budget;
  if (auto it = settings.options.find(name); it != settings.options.end()) context.options = it->second;
  context.prior = recorded.prior;
  auto strategy = make_strategy(name, std::move(context));
  std::vector<std::optional<std::size_t>> hit(settings.tolerances.size());
  std::set<Params> seen;
  std::size_t evaluations = 0;
  double best = INFINITY;
  auto all_hit = [&] { return std::all_of(hit.begin(), hit.end(), [](const auto& h) { return h.has_value(); }); };
  while (e.optimum_ms && !all_hit()) {
    std::vector<Params> batch = strategy->propose(1);
    if (batch.empty()) break;  // done, or waiting with nothing in flight: either way nothing more comes
    for (Params& p : batch) {
      if (!seen.insert(p).second)
        throw Error(fmt::format("strategy {} proposed {} twice (seed {})", name, describe_config(space, p), seed));
      if (++evaluations > e.budget)
        throw Error(fmt::format("strategy {} proposed more than its budget of {} (seed {})", name, e.budget, seed));
      if (auto failed = failing_constraint(space, p))
        throw Error(fmt::format("strategy {} proposed {}, which fails the constraint \"{}\" (seed {})", name,
                                describe_config(space, p), *failed, seed));
      Observation o;
      if (auto it = recorded.oracle.find(p); it != recorded.oracle.end()) {
        o = it->second;
      } else {
        o.params = p;
        o.status = Status::launch_failed;  // no recording: replayed as a failure
      }
      if (o.status == Status::ok && o.ms) best = std::min(best, *o.ms);
      for (std::size_t t = 0; t < hit.size(); ++t)
        if (!hit[t] && best <= *e.optimum_ms * (1 + settings.tolerances[t])) hit[t] = evaluations;
      strategy->observe(o);
    }
  }
  return hit;
}

}  // namespace

std::vector<StrategyEvaluation> evaluate_strategies(const Space& space, const std::vector<Recording>& recordings,
                                                    const EvaluationSettings& settings) {
  check_strategy_options(settings);
  const Proposable proposable = proposable_configs(space);
  const std::vector<Shape> shapes = shapes_to_replay(space, recordings, settings);
  std::vector<std::string> names = settings.strategies;
  if (names.empty())
    for (const StrategyInfo& s : strategies()) names.push_back(s.name);

  std::vector<StrategyEvaluation> out;
  for (const Shape& shape : shapes) {
    const ShapeRecordings recorded = recordings_at(shape, recordings, settings.prior);
    const StrategyEvaluation base = shape_baseline(space, shape, proposable, recorded.oracle, settings.budget);
    for (const std::string& name : names) {
      StrategyEvaluation e = base;
      e.strategy = name;
      e.evaluations.assign(settings.tolerances.size(), {});
      for (std::size_t seed = 1; seed <= settings.seeds; ++seed) {
        const auto hit = replay_seed(space, name, seed, e, recorded, settings);
        for (std::size_t t = 0; t < hit.size(); ++t) e.evaluations[t].push_back(hit[t]);
      }
      out.push_back(std::move(e));
    }
  }
  return out;
}

namespace {

// The q-quantile (lower) of the seeds' counts, a miss counting as infinite: nullopt when it lands on a miss.
std::optional<std::size_t> quantile(std::vector<std::optional<std::size_t>> v, double q) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    if (!a) return false;
    if (!b) return true;
    return *a < *b;
  });
  const std::size_t i = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size()))) - 1;
  return v[std::min(i, v.size() - 1)];
}

std::string percent(double t) {
  return fmt::format("{:g}pct", t * 100);
}

report::Cell real(std::optional<double> v) {
  report::Cell c;
  if (v) c = *v;
  return c;
}

}  // namespace

report::Table evaluation_table(const std::vector<StrategyEvaluation>& results, const std::vector<double>& tolerances) {
  report::Table t;
  t.columns = {"strategy", "shape", "configs", "failed", "unrecorded", "budget", "seeds", "optimum_ms"};
  for (double tol : tolerances) {
    t.columns.push_back("p50_evals_" + percent(tol));
    t.columns.push_back("p50_share_" + percent(tol));
    t.columns.push_back("p90_evals_" + percent(tol));
    t.columns.push_back("reached_" + percent(tol));
  }
  t.columns.push_back("optimum");
  t.columns.push_back("points_outside");  // named points outside the domains, left out of the optimum
  t.columns.push_back("faster_outside");  // the one of them faster than the optimum: "name (ms)"
  auto cell = [](std::optional<std::size_t> v) -> report::Cell {
    if (!v) return std::monostate{};
    return static_cast<std::int64_t>(*v);
  };
  for (const StrategyEvaluation& e : results) {
    std::vector<report::Cell> row = {e.strategy,
                                     e.shape.str(),
                                     static_cast<std::int64_t>(e.configs),
                                     static_cast<std::int64_t>(e.failed),
                                     static_cast<std::int64_t>(e.unrecorded),
                                     static_cast<std::int64_t>(e.budget),
                                     static_cast<std::int64_t>(e.evaluations.empty() ? 0 : e.evaluations[0].size())};
    row.push_back(real(e.optimum_ms));
    for (std::size_t i = 0; i < tolerances.size(); ++i) {
      const auto& seeds = i < e.evaluations.size() ? e.evaluations[i] : std::vector<std::optional<std::size_t>>{};
      auto p50 = quantile(seeds, 0.5);
      row.push_back(cell(p50));
      std::optional<double> share;
      if (p50 && e.configs) share = static_cast<double>(*p50) / static_cast<double>(e.configs);
      row.push_back(real(share));
      row.push_back(cell(quantile(seeds, 0.9)));
      const auto reached = std::count_if(seeds.begin(), seeds.end(), [](const auto& s) { return s.has_value(); });
      std::optional<double> reached_share;
      if (!seeds.empty()) reached_share = static_cast<double>(reached) / static_cast<double>(seeds.size());
      row.push_back(real(reached_share));
    }
    row.push_back(e.optimum);
    row.push_back(static_cast<std::int64_t>(e.points_outside));
    row.push_back(e.faster_point_ms ? report::Cell{fmt::format("{} ({:.4g} ms)", e.faster_point, *e.faster_point_ms)}
                                    : report::Cell{});
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace mpgemm
