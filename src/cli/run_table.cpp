#include "cli/run_table.hpp"

#include <fmt/format.h>

#include "codegen/family.hpp"
#include "common/error.hpp"
#include "compile/nvrtc_compile.hpp"
#include "space/space.hpp"
#include "store/store.hpp"
#include "tune/candidates.hpp"
#include "tune/gpu_backend.hpp"

namespace mpgemm::cli {

namespace {

std::string text(const report::Cell& c) {
  if (const auto* s = std::get_if<std::string>(&c)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&c)) return std::to_string(*i);
  return {};
}

Candidate candidate_from_row(const std::vector<report::Cell>& r) {
  // columns: id, family, name, alias, params
  Candidate c;
  c.family = text(r[1]);
  c.name = text(r[2]);
  if (auto a = text(r[3]); !a.empty()) c.alias = a;
  c.params = params_from_json(nlohmann::json::parse(text(r[4])));
  return c;
}

std::optional<Store> open_if_present(const std::filesystem::path& p) {
  if (!std::filesystem::exists(p)) return std::nullopt;
  return Store::open(p, Store::Mode::read_only);
}

}  // namespace

std::vector<RunRow> resolve_rows(const RunOptions& opt, const std::string& device_cc, std::string* note) {
  std::optional<Store> store = open_if_present(opt.db_path);
  report::Table configs;
  if (store) configs = store->query_sql("SELECT id, family, name, alias, params FROM configs ORDER BY id DESC");

  std::vector<RunRow> rows;
  if (opt.selector != "best") {
    for (const auto& r : configs.rows) {
      if (text(r[0]) == opt.selector || text(r[2]) == opt.selector || text(r[3]) == opt.selector) {
        Candidate c = candidate_from_row(r);
        rows.push_back({c.alias.value_or(c.name), c});
        return rows;
      }
    }
  }
  // Named points come from the space file, so the table has them even before any tuning.
  Space space = load_space(opt.space_path);
  const Family& fam = family(space.family);
  for (const auto& p : space.points) {
    Candidate c{space.family, p.params, fam.config_name(p.params), p.name};
    if (opt.selector == "best" || opt.selector == p.name || opt.selector == c.name) rows.push_back({p.name, c});
  }
  if (opt.selector != "best") {
    if (rows.empty())
      throw Error(fmt::format("no config named '{}' in {} or among the points of {}; try mpgemm-query {} configs",
                              opt.selector, opt.db_path.string(), opt.space_path.string(), opt.db_path.string()));
    return rows;
  }
  if (store) {
    auto best = store->query_sql(
        "SELECT device_cc, M, N, K, family, config_name, alias, params, ratio_to_cublas FROM best "
        "ORDER BY median_ms");
    for (const auto& r : best.rows) {
      if (text(r[0]) != device_cc || std::get<std::int64_t>(r[1]) != opt.shape.m ||
          std::get<std::int64_t>(r[2]) != opt.shape.n || std::get<std::int64_t>(r[3]) != opt.shape.k)
        continue;
      Candidate c;
      c.family = text(r[4]);
      c.name = text(r[5]);
      if (auto a = text(r[6]); !a.empty()) c.alias = a;
      c.params = params_from_json(nlohmann::json::parse(text(r[7])));
      rows.push_back({"best tuned", c});
      break;
    }
  }
  if (rows.empty() || rows.back().label != "best tuned")
    *note = fmt::format("{} has no verified config for {} at {}: run mpgemm-tune first for the 'best tuned' row",
                        opt.db_path.string(), device_cc, opt.shape.str());
  return rows;
}

report::Table run_rows(const RunOptions& opt, std::vector<std::string>* notes) {
  std::string why;
  auto backend = make_gpu_backend(opt.worker_path, opt.settings, &why);
  if (!backend) throw NoDeviceError(fmt::format("mpgemm-run measures on a GPU and there is none: {}", why));
  const DeviceDescription& dev = backend->device();
  std::string note;
  std::vector<RunRow> rows = resolve_rows(opt, dev.arch.str(), &note);
  if (!note.empty()) notes->push_back(note);

  const TimingStats cublas = backend->prepare_shape(opt.shape).timing;
  report::Table t;
  t.columns = {"kernel", "config", "status", "ms", "GFLOPS", "pct_cublas", "gain", "max_abs_err", "max_rel_err"};
  const double flops = opt.shape.flops();
  std::optional<double> previous_ms;
  for (const auto& row : rows) {
    const Family& fam = family(row.candidate.family);
    std::vector<report::Cell> cells{row.label, row.candidate.name};
    std::optional<std::string> reason = fam.check_device(row.candidate.params, dev);
    if (!reason) reason = fam.check_shape(row.candidate.params, opt.shape);
    if (reason) {
      cells.insert(cells.end(), {std::string("constraint_rejected"), {}, {}, {}, {}, {}, {}});
      notes->push_back(fmt::format("{}: {}", row.label, *reason));
      t.rows.push_back(cells);
      continue;
    }
    CompileResult compiled = compile(fam.kernel_spec(row.candidate.params, dev.arch));
    Measurement m;
    if (compiled.status != Status::ok) {
      m.status = Status::compile_failed;
      m.message = compiled.log;
    } else {
      m = backend->measure(row.candidate, compiled, opt.shape).value();
    }
    cells.push_back(std::string(to_string(m.status)));
    if (m.status == Status::ok && m.timing) {
      double ms = m.timing->median_ms;
      cells.insert(cells.end(), {ms, flops / ms / 1e6, 100.0 * cublas.median_ms / ms,
                                 previous_ms ? report::Cell(*previous_ms / ms) : report::Cell{}});
      previous_ms = ms;
    } else {
      cells.insert(cells.end(), {{}, {}, {}, {}});
      notes->push_back(fmt::format("{}: {} {}", row.label, to_string(m.status), m.message));
    }
    if (m.error) {
      cells.push_back(m.error->max_abs);
      cells.push_back(m.error->max_rel);
    } else {
      cells.insert(cells.end(), {{}, {}});
    }
    t.rows.push_back(cells);
  }
  t.rows.push_back({std::string("cuBLAS"), std::string("cublasGemmEx COMPUTE_32F"), std::string("reference"),
                    cublas.median_ms, flops / cublas.median_ms / 1e6, 100.0,
                    previous_ms ? report::Cell(*previous_ms / cublas.median_ms) : report::Cell{}, {}, {}});
  notes->push_back(fmt::format("{} ({}, {} SMs, driver {}, cuBLAS {}), {}; median of {} runs x {} iterations after "
                               "{} warm-up launches",
                               dev.name, dev.arch.str(), dev.sm_count, dev.driver_version, dev.cublas_version,
                               opt.shape.str(), opt.settings.runs, opt.settings.iters, opt.settings.warmup));
  return t;
}

}  // namespace mpgemm::cli
