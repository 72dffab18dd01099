#include "lib/plan.hpp"

#include <fmt/format.h>

#include "lib/cublas_path.hpp"

namespace mpgemm::lib {

namespace {

Path path_of(Route route) {
  switch (route) {
    case Route::tuned:
      return Path::tuned;
    case Route::nearest:
      return Path::nearest;
    case Route::cublas:
      return Path::cublas;
  }
  return Path::cublas;
}

}  // namespace

Planned plan_call(const WinnerTable& table, const DeviceDescription& device, const GemmProblem& problem,
                  const PolicyOptions& options) {
  std::vector<std::size_t> indices;
  const std::vector<TunedShape> rows = table.policy_rows(device, problem, &indices);
  const Decision d = decide(problem.shape, rows, options);
  Planned out;
  out.dispatch.problem = problem.kind.name();
  out.dispatch.path = path_of(d.route);
  out.dispatch.reason = fmt::format("{}: {}", problem.kind.name(), d.reason);
  if (d.chosen) {
    const ShapeWinner& w = table.winners()[indices[*d.chosen]];
    out.dispatch.tuned_m = w.shape.m;
    out.dispatch.tuned_n = w.shape.n;
    out.dispatch.tuned_k = w.shape.k;
    out.dispatch.ratio_cublas = w.ratio_to_cublas.value_or(0);
    if (d.route != Route::cublas) {
      out.winner = &w;
      out.dispatch.family = w.family;
      out.dispatch.config = w.config_name;
      out.dispatch.arch = w.arch.str();
    }
  }
  if (d.route == Route::cublas) {
    out.dispatch.config = kVendorConfig;
    out.no_vendor = vendor_gap(problem.kind);
    if (out.no_vendor) out.dispatch.reason += fmt::format("; but {}", *out.no_vendor);
  }
  return out;
}

}  // namespace mpgemm::lib
