#include "store/winner_checks.hpp"

#include <cmath>
#include <map>
#include <string_view>
#include <tuple>

#include <fmt/format.h>
#include <sqlite3.h>

#include "codegen/family.hpp"
#include "common/error.hpp"

namespace mpgemm {

namespace {

constexpr std::string_view kDatabaseRefused =
    "the database is refused whole (run, export and the library take every winner of it or none): restore it "
    "from a copy, or tune into a new database";

// A name or a device from the file, as a message quotes it: escaped (one line whatever it holds) and cut short.
std::string quoted_text(std::string_view text) {
  constexpr std::size_t kMaxChars = 80;
  if (text.size() <= kMaxChars) return fmt::format("{:?}", text);
  return fmt::format("{:?}...", text.substr(0, kMaxChars));
}

// One timed quantity as its source spells it: a time (ms) or the rate of the shape at that time (TFLOP/s).
struct Quantity {
  const char* name;
  bool as_tflops;
};

struct Fields {
  Quantity own, cublas, cublaslt;
  const char* ratio_cublas;
  const char* ratio_cublaslt;
};

Fields fields_of(const ShapeWinner& w, WinnerSource source) {
  if (source == WinnerSource::exported)
    return {{"tflops", true}, {"cublas_tflops", true}, {"cublaslt_tflops", true}, "ratio_cublas", "ratio_cublaslt"};
  if (w.from_rerank)  // the view winners
    return {{"median_ms", false},
            {"cublas_median_ms", false},
            {"cublaslt_median_ms", false},
            "ratio_to_cublas",
            "ratio_to_cublaslt"};
  return {{"median_ms", false},  // the view best_per_shape
          {"cublas_tflops", true},
          {"cublaslt_tflops", true},
          "ratio_to_cublas",
          "ratio_to_cublaslt"};
}

// `ms` in the quantity's unit, for the message.
std::string shown(const Quantity& q, const Shape& shape, double ms) {
  return fmt::format("{} = {:.7g}", q.name, q.as_tflops ? shape.flops() / 1e9 / ms : ms);
}

// A time (ms) the shape ran in: positive, finite, and not faster than kMaxTflops.
std::optional<std::string> why_bad_time(const Quantity& q, const Shape& shape, double ms) {
  if (std::isfinite(ms) && ms > 0 && shape.flops() / 1e9 / ms <= kMaxTflops) return std::nullopt;
  return fmt::format("{} is not a positive, finite {} (at most {:g} TFLOP/s)", shown(q, shape, ms),
                     q.as_tflops ? "rate" : "time", kMaxTflops);
}

// A ratio to a reference: in range, and (when `derived`) the reference's time over the winner's.
std::optional<std::string> why_bad_ratio(const char* name, const std::optional<double>& ratio, const Quantity& own,
                                         const Quantity& ref, const ShapeWinner& w, const std::optional<double>& ref_ms,
                                         bool derived) {
  if (!ratio) return std::nullopt;  // unknown: the policy never runs a winner on an unknown ratio by default
  const double r = *ratio;
  if (!std::isfinite(r) || !(r > 0)) return fmt::format("{} = {:.7g} is not a positive, finite ratio", name, r);
  if (r > kMaxRatio || r < 1 / kMaxRatio)
    return fmt::format("{} = {:.7g} is outside [{:g}, {:g}]: no measurement gives that", name, r, 1 / kMaxRatio,
                       kMaxRatio);
  if (!ref_ms)
    return fmt::format("{} = {:.7g} is given without {}, the reference it is derived from", name, r, ref.name);
  if (!derived) return std::nullopt;
  const double expected = *ref_ms / w.median_ms;
  if (std::fabs(r / expected - 1) <= kRatioTolerance) return std::nullopt;
  return fmt::format("{} = {:.7g} disagrees with the times it is derived from ({}, {}: {:.7g})", name, r,
                     shown(ref, w.shape, *ref_ms), shown(own, w.shape, w.median_ms), expected);
}

bool is_built(std::string_view family_name) {
  for (std::string_view name : family_names())
    if (name == family_name) return true;
  return false;
}

// A family this build lacks: the name of a family it has that derives exactly `config_name` from `params`, if one
// does (then the stored family's name is what is damaged: names are procedural, and each family's begin with its
// own name, so no two families derive one name).
std::optional<std::string_view> family_deriving(std::string_view config_name, const Params& params) {
  for (std::string_view name : family_names()) {
    try {
      const Family& fam = family(name);
      if (fam.check_config(params).empty() && fam.config_name(params) == config_name) return name;
    } catch (const std::exception&) {  // params of another family: not this one's
    }
  }
  return std::nullopt;
}

std::string where(const ShapeWinner& w, WinnerSource source, std::size_t index) {
  const std::string what =
      fmt::format("{} for {} at {}", quoted_text(w.config_name), quoted_text(w.device_name), w.problem().str());
  if (source == WinnerSource::exported) return fmt::format("/entries/{} ({})", index, what);
  std::string ids;
  if (w.row)
    ids = fmt::format(" ({} {}, config {}, run {})", w.from_rerank ? "re-rank" : "measurement", w.row->id,
                      w.row->config_id, w.row->run_id);
  return fmt::format("the {} row {}{}", w.from_rerank ? "winners" : "best_per_shape", what, ids);
}

}  // namespace

std::optional<std::string> why_config_unsound(std::string_view family_name, std::string_view config_name,
                                              const Params& params) {
  if (!is_built(family_name)) {
    // Otherwise not checked here: the library gives its shapes to cuBLAS and says why, mpgemm-run says the
    // family is not built.
    if (auto other = family_deriving(config_name, params))
      return fmt::format(
          "its family {} is not one this build has, yet its name is the one family {} derives from its params: "
          "the family and the name disagree",
          quoted_text(family_name), *other);
    return std::nullopt;
  }
  const Family& fam = family(family_name);
  try {
    if (auto problems = fam.check_config(params); !problems.empty())
      return fmt::format("its params are not a config family {} builds: {}", family_name, fmt::join(problems, "; "));
    const std::string name = fam.config_name(params);
    if (name != config_name)
      return fmt::format("its name is not the one its params give ({}): the name and the params disagree", name);
  } catch (const Error& e) {
    return fmt::format("its params are not a config family {} builds: {}", family_name, e.what());
  }
  return std::nullopt;
}

std::optional<std::string> why_unsound(const ShapeWinner& w, WinnerSource source) {
  if (!(w.shape.m > 0 && w.shape.n > 0 && w.shape.k > 0))
    return fmt::format("its shape {} is not one of positive sizes", w.shape.str());
  if (auto why = why_config_unsound(w.family, w.config_name, w.params)) return why;
  const Fields f = fields_of(w, source);
  if (auto why = why_bad_time(f.own, w.shape, w.median_ms)) return why;
  for (const auto& [q, ms] : {std::pair{f.cublas, w.cublas_ms}, std::pair{f.cublaslt, w.cublaslt_ms}})
    if (ms)
      if (auto why = why_bad_time(q, w.shape, *ms)) return why;
  if (auto why = why_bad_ratio(f.ratio_cublas, w.ratio_to_cublas, f.own, f.cublas, w, w.cublas_ms, true)) return why;
  // A re-rank winner's cuBLASLt ratio may be that of its own tuning measurement (another median than w's).
  return why_bad_ratio(f.ratio_cublaslt, w.ratio_to_cublaslt, f.own, f.cublaslt, w, w.cublaslt_ms, !w.from_rerank);
}

std::optional<std::string> first_unsound(const std::vector<ShapeWinner>& winners, WinnerSource source) {
  using Key = std::tuple<std::string, ProblemKind, std::int64_t, std::int64_t, std::int64_t>;
  std::map<Key, std::size_t> seen;
  for (std::size_t i = 0; i < winners.size(); ++i) {
    const ShapeWinner& w = winners[i];
    if (auto why = why_unsound(w, source)) return fmt::format("{}: {}", where(w, source, i), *why);
    const auto [it, fresh] = seen.emplace(Key{w.device_name, w.kind, w.shape.m, w.shape.n, w.shape.k}, i);
    if (!fresh)
      return fmt::format(
          "{}: a second winner for {} at {} (the first is {}); one is taken per device, problem kind and shape",
          where(w, source, i), quoted_text(w.device_name), w.problem().str(),
          source == WinnerSource::exported ? fmt::format("/entries/{}", it->second)
                                           : where(winners[it->second], source, it->second));
  }
  return std::nullopt;
}

void check_winners(const std::vector<ShapeWinner>& winners, WinnerSource source, const std::filesystem::path& file) {
  const auto why = first_unsound(winners, source);
  if (!why) return;
  if (source == WinnerSource::exported)
    throw Error(fmt::format(
        "{}: {}; the file is refused (the library opens every entry or none): export it again with mpgemm-export, "
        "or remove that entry",
        file.string(), *why));
  throw Error(fmt::format("database {}: {}; {}", file.string(), *why, kDatabaseRefused));
}

void refuse_damaged_database(const std::filesystem::path& db, std::string_view what) {
  throw StoreError(db.string(), SQLITE_CORRUPT, fmt::format("{}; {}", what, kDatabaseRefused));
}

}  // namespace mpgemm
