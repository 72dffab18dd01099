#include "cli/run_table.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "codegen/family.hpp"
#include "common/bounded_input.hpp"
#include "common/error.hpp"
#include "common/readable.hpp"
#include "compile/compile_pool.hpp"
#include "compile/cubin_cache.hpp"
#include "space/space.hpp"
#include "store/shape_winners.hpp"
#include "store/store.hpp"
#include "store/winner_checks.hpp"
#include "tune/candidates.hpp"
#include "tune/gpu_backend.hpp"

namespace mpgemm::cli {

namespace {

std::string text(const report::Cell& c) {
  if (const auto* s = std::get_if<std::string>(&c)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&c)) return std::to_string(*i);
  return {};
}

// A configs row as `--config NAME` takes it, checked as a winner's config is (store/winner_checks.hpp): its params
// read and give its name. A row that fails refuses the database (StoreError, exit 1), as shape_winners() does for
// `--config best`: never a kernel compiled from other params than its name says.
Candidate candidate_from_row(const Store& store, const std::vector<report::Cell>& r) {
  // columns: id, family, name, alias, params
  Candidate c;
  c.family = text(r[1]);
  c.name = text(r[2]);
  if (auto a = text(r[3]); !a.empty()) c.alias = a;
  std::optional<std::string> why;
  try {
    c.params = params_from_json(parse_json_bounded(text(r[4])));
    why = why_config_unsound(c.family, c.name, c.params);
  } catch (const nlohmann::json::exception& e) {
    why = fmt::format("its params do not read as JSON ({})", text_excerpt(e.what(), 120));
  } catch (const Error& e) {
    why = text_excerpt(e.what(), 160);
  }
  if (why)
    refuse_damaged_database(
        store.path(), fmt::format("the configs row {} (config {}): {}", text_excerpt(c.name, 80), text(r[0]), *why));
  return c;
}

// None when there is no file; a file that is there but cannot be read is refused (common/readable.hpp).
std::optional<Store> open_if_present(const std::filesystem::path& p) {
  if (const auto o = read_obstacle(p); o && o->kind == ReadObstacle::Kind::missing) return std::nullopt;
  require_readable_file(p, "database");
  return Store::open(p, Store::Mode::read_only);
}

}  // namespace

RowPlan plan_rows(const RunOptions& opt) {
  std::optional<Store> store = open_if_present(opt.db_path);
  report::Table configs;
  if (store) configs = store->query_sql("SELECT id, family, name, alias, params FROM configs ORDER BY id DESC");

  RowPlan plan;
  if (opt.selector != "best") {
    for (const auto& r : configs.rows) {
      if (text(r[0]) == opt.selector || text(r[2]) == opt.selector || text(r[3]) == opt.selector) {
        Candidate c = candidate_from_row(*store, r);
        plan.rows.push_back({c.alias.value_or(c.name), c, std::nullopt});
        return plan;
      }
    }
  }
  // Named points come from the space file, so the table has them even before any tuning; for a problem kind the
  // space's family cannot compute, "best" leaves them out and a name of one is refused saying why.
  Space space = load_space(opt.space_path);
  const Family& fam = family(space.family);
  const ProblemKind& kind = opt.settings.kind;
  const std::optional<std::string> cannot = fam.check_kind(kind);
  for (const auto& p : space.points) {
    if (cannot && opt.selector == "best") break;
    Candidate c{space.family, p.params, fam.config_name(p.params), p.name};
    if (opt.selector == "best" || opt.selector == p.name || opt.selector == c.name)
      plan.rows.push_back({p.name, c, std::nullopt});
  }
  if (opt.selector != "best") {
    if (!plan.rows.empty() && cannot)
      throw UsageError(fmt::format("--config {} --problem {}: {}", opt.selector, kind.name(), *cannot));
    if (plan.rows.empty())
      throw Error(fmt::format("no config named '{}' in {} or among the points of {}; try mpgemm-query {} configs",
                              opt.selector, opt.db_path.string(), opt.space_path.string(), opt.db_path.string()));
    return plan;
  }
  plan.wants_best = true;
  // The winner of the shape's latest re-rank when there is one, else the fastest of the tuning
  // (store/shape_winners.hpp): one per device and shape, every family and arch competing. shape_winners() checks
  // every winner of the database, this shape's or not, and refuses the whole database for one that disagrees with
  // itself (as the library does): a damaged database is not run from.
  if (store)
    for (ShapeWinner& w : shape_winners(*store, kind))
      if (w.shape == opt.shape) plan.winners.push_back(std::move(w));
  return plan;
}

std::vector<RunRow> rows_for_device(const RowPlan& plan, const RunOptions& opt, const std::string& device_name,
                                    std::string* note) {
  std::vector<RunRow> rows = plan.rows;
  if (!plan.wants_best) return rows;
  for (const ShapeWinner& w : plan.winners) {
    if (w.device_name != device_name) continue;
    rows.push_back({"best tuned", Candidate{w.family, w.params, w.config_name, w.alias}, w.arch});
    return rows;
  }
  *note = fmt::format(
      "{} has no verified config{} for {} at {}: run mpgemm-tune first for the 'best tuned' row", opt.db_path.string(),
      opt.settings.kind.is_default() ? std::string() : " of " + opt.settings.kind.name(), device_name, opt.shape.str());
  return rows;
}

std::vector<RunRow> resolve_rows(const RunOptions& opt, const DeviceDescription& device, std::string* note) {
  return rows_for_device(plan_rows(opt), opt, device.name, note);
}

namespace {

// A row's speed as a percentage of a reference's (100 x reference ms / row ms), or null without the reference.
report::Cell percent_of(const std::optional<double>& reference_ms, double ms) {
  if (!reference_ms) return {};
  return 100.0 * *reference_ms / ms;
}

// The value, or null. (Not `has ? Cell(v) : Cell{}`: GCC 12 warns falsely of a maybe-uninitialized string there.)
report::Cell or_empty(const std::optional<double>& v) {
  if (!v) return {};
  return *v;
}

}  // namespace

report::Table run_table(const std::vector<RunOutcome>& outcomes, const ShapeReference& ref, const Shape& shape,
                        std::vector<std::string>* notes) {
  const TimingStats& cublas = ref.timing;
  std::optional<double> cublaslt_ms;
  if (ref.cublaslt && ref.cublaslt->timing) cublaslt_ms = ref.cublaslt->timing->median_ms;

  report::Table t;
  t.columns = {"kernel",       "config", "status",      "ms",          "GFLOPS",   "pct_cublas",
               "pct_cublaslt", "gain",   "max_abs_err", "max_rel_err", "cublas_ms"};
  const double flops = shape.flops();
  std::optional<double> previous_ms;
  for (const auto& [row, m] : outcomes) {
    std::vector<report::Cell> cells{row.label, row.candidate.name, std::string(to_string(m.status))};
    // The row's own cuBLAS timing when it was paired with it (mpgemm-run --paired), else the shape's.
    const double cublas_ms = m.paired_cublas ? m.paired_cublas->median_ms : cublas.median_ms;
    if (m.status == Status::ok && m.timing) {
      const double ms = m.timing->median_ms;
      cells.insert(cells.end(), {ms, flops / ms / 1e6, percent_of(cublas_ms, ms), percent_of(cublaslt_ms, ms),
                                 or_empty(previous_ms ? std::optional<double>(*previous_ms / ms) : std::nullopt)});
      previous_ms = ms;
    } else {
      cells.insert(cells.end(), {{}, {}, {}, {}, {}});
      notes->push_back(fmt::format("{}: {} {}", row.label, to_string(m.status), m.message));
    }
    cells.push_back(or_empty(m.error ? std::optional<double>(m.error->max_abs) : std::nullopt));
    cells.push_back(or_empty(m.error ? std::optional<double>(m.error->max_rel) : std::nullopt));
    cells.push_back(or_empty(m.status == Status::ok && m.timing ? std::optional<double>(cublas_ms) : std::nullopt));
    t.rows.push_back(std::move(cells));
  }
  t.rows.push_back({std::string("cuBLAS"),
                    std::string("cublasGemmEx COMPUTE_32F"),
                    std::string("reference"),
                    cublas.median_ms,
                    flops / cublas.median_ms / 1e6,
                    100.0,
                    percent_of(cublaslt_ms, cublas.median_ms),
                    previous_ms ? report::Cell(*previous_ms / cublas.median_ms) : report::Cell{},
                    {},
                    {},
                    cublas.median_ms});
  if (!ref.cublaslt) return t;
  const CublasLtReference& lt = *ref.cublaslt;
  if (!cublaslt_ms) {
    notes->push_back(fmt::format("cuBLASLt: no timing: {}", lt.message));
    return t;
  }
  t.rows.push_back({std::string("cuBLASLt"), "cublasLtMatmul " + (lt.algo ? describe(*lt.algo) : std::string("?")),
                    std::string("reference"), *cublaslt_ms, flops / *cublaslt_ms / 1e6,
                    percent_of(cublas.median_ms, *cublaslt_ms), 100.0, cublas.median_ms / *cublaslt_ms,
                    lt.error ? report::Cell(lt.error->max_abs) : report::Cell{},
                    lt.error ? report::Cell(lt.error->max_rel) : report::Cell{}, cublas.median_ms});
  notes->push_back(fmt::format("cuBLASLt: the fastest of {} verified of {} heuristic algorithms{}", lt.heuristics_valid,
                               lt.heuristics_returned, lt.message.empty() ? "" : "; " + lt.message));
  return t;
}

report::Table run_rows(const RunOptions& opt, std::vector<std::string>* notes) {
  // What the selector names is settled before the GPU: a misspelt name or a broken space fails the same way
  // on a machine without one.
  const RowPlan plan = plan_rows(opt);
  std::string why;
  auto backend = make_gpu_backend(opt.worker_path, opt.settings, &why);
  if (!backend) throw NoDeviceError(fmt::format("mpgemm-run measures on a GPU and there is none: {}", why));
  const DeviceDescription& dev = backend->device();
  std::string note;
  std::vector<RunRow> rows = rows_for_device(plan, opt, dev.name, &note);
  if (!note.empty()) notes->push_back(note);

  const ShapeReference ref = backend->prepare_shape(opt.shape);
  // The tuner's cubins: a config it compiled is not compiled again.
  const CubinCache cache(opt.cubin_cache.value_or(CubinCache::beside(opt.db_path)));
  CompilePoolOptions compiling;
  compiling.cache = &cache;
  std::vector<RunOutcome> outcomes;
  for (auto& row : rows) {
    const Family& fam = family(row.candidate.family);
    Measurement m;
    std::optional<std::string> reason = fam.check_device(row.candidate.params, dev);
    if (!reason) reason = fam.check_problem(row.candidate.params, GemmProblem{opt.shape, opt.settings.kind});
    if (reason) {
      m.status = Status::constraint_rejected;
      m.message = *reason;
    } else if (CompileResult compiled =
                   compile_cached(fam.kernel_spec(row.candidate.params, row.arch.value_or(dev.arch), opt.settings.kind),
                                  compiling)
                       .result;
               compiled.status != Status::ok) {
      m.status = Status::compile_failed;
      m.message = compiled.log;
    } else {
      m = backend->measure(row.candidate, compiled, opt.shape).value();
    }
    outcomes.push_back({std::move(row), std::move(m)});
  }
  report::Table t = run_table(outcomes, ref, opt.shape, notes);
  notes->push_back(fmt::format(
      "{} ({}, {} SMs, driver {}, cuBLAS {}), {}; median of {} runs x {} iterations after "
      "{} warm-up launches",
      dev.name, dev.arch.str(), dev.sm_count, dev.driver_version, dev.cublas_version,
      GemmProblem{opt.shape, opt.settings.kind}.str(), opt.settings.runs, opt.settings.iters, opt.settings.warmup));
  if (opt.settings.paired)
    notes->push_back(
        "paired: each kernel's pct_cublas is against its own cublas_ms, cuBLAS timed batch by batch alternately "
        "with it (a b, b a, ...); the cuBLAS and cuBLASLt rows are the shape's references, timed first");
  return t;
}

}  // namespace mpgemm::cli
