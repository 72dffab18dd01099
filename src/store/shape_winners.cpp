#include "store/shape_winners.hpp"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "common/error.hpp"

namespace mpgemm {

namespace {

std::string text(const report::Cell& c) {
  if (const auto* s = std::get_if<std::string>(&c)) return *s;
  return {};
}

std::optional<double> real(const report::Cell& c) {
  if (const auto* d = std::get_if<double>(&c)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&c)) return static_cast<double>(*i);
  return std::nullopt;
}

std::int64_t integer(const report::Cell& c) {
  if (const auto* i = std::get_if<std::int64_t>(&c)) return *i;
  throw Error("shape_winners: a shape column is not an integer");
}

// Both queries give the same leading columns, then the references: cuBLAS (ms), cuBLASLt (ms), the ratios.
constexpr const char* kColumns = "device_name, device_cc, arch, M, N, K, family, config_name, alias, params, median_ms";

ShapeWinner winner_from_row(const std::vector<report::Cell>& r, bool from_rerank) {
  ShapeWinner w;
  w.device_name = text(r[0]);
  w.device_cc = text(r[1]);
  const auto arch = Arch::parse(text(r[2]));
  if (!arch) throw Error(fmt::format("the winner row of {} has an unreadable arch '{}'", text(r[7]), text(r[2])));
  w.arch = *arch;
  w.shape = {integer(r[3]), integer(r[4]), integer(r[5])};
  w.family = text(r[6]);
  w.config_name = text(r[7]);
  if (auto a = text(r[8]); !a.empty()) w.alias = a;
  w.params = params_from_json(nlohmann::json::parse(text(r[9])));
  w.median_ms = real(r[10]).value_or(0);
  w.cublas_ms = real(r[11]);
  w.ratio_to_cublas = real(r[12]);
  w.cublaslt_ms = real(r[13]);
  w.ratio_to_cublaslt = real(r[14]);
  w.from_rerank = from_rerank;
  return w;
}

}  // namespace

std::vector<ShapeWinner> shape_winners(const Store& store) {
  // winners: the re-rank's own cuBLAS median and ratio (same rounds); no cuBLASLt in a re-rank.
  const report::Table reranked =
      store.query_sql(fmt::format("SELECT {}, cublas_median_ms, ratio_to_cublas, NULL, NULL FROM winners", kColumns));
  // best_per_shape: the tuning run's references, as throughput; turned back into ms below.
  const report::Table tuned = store.query_sql(fmt::format(
      "SELECT {}, 2.0 * M * N * K / cublas_tflops / 1e9, ratio_to_cublas, 2.0 * M * N * K / cublaslt_tflops / 1e9, "
      "ratio_to_cublaslt FROM best_per_shape",
      kColumns));
  std::vector<ShapeWinner> out;
  for (const auto& r : reranked.rows) out.push_back(winner_from_row(r, true));
  const auto key = [](const ShapeWinner& w) { return std::tie(w.device_name, w.shape.m, w.shape.n, w.shape.k); };
  for (const auto& r : tuned.rows) {
    ShapeWinner w = winner_from_row(r, false);
    const bool has_rerank =
        std::any_of(out.begin(), out.end(), [&](const ShapeWinner& o) { return o.from_rerank && key(o) == key(w); });
    if (!has_rerank) out.push_back(std::move(w));
  }
  std::sort(out.begin(), out.end(), [&](const ShapeWinner& a, const ShapeWinner& b) { return key(a) < key(b); });
  return out;
}

}  // namespace mpgemm
