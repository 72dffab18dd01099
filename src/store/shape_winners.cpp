#include "store/shape_winners.hpp"

#include <algorithm>
#include <set>
#include <string_view>
#include <tuple>
#include <variant>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/bounded_input.hpp"
#include "common/error.hpp"
#include "store/winner_checks.hpp"

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

// A name from the file, cut short for a message (which quotes it with {:?}: escaped, one line).
std::string_view cut(std::string_view s) {
  return s.substr(0, 80);
}

// Whether `s` is well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
bool is_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    std::uint32_t cp = n == 1 ? c : c & (0x7fu >> n);
    for (std::size_t k = 1; k < n; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc >> 6) != 0x2) return false;
      cp = (cp << 6) | (cc & 0x3fu);
    }
    constexpr std::uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += n;
  }
  return true;
}

// A column the views never leave NULL, damaged into another type or into bytes that are not UTF-8 (what no tool
// writes, and what the export's JSON cannot hold): the row does not read.
std::string required_text(const report::Cell& c, const char* column) {
  const auto* s = std::get_if<std::string>(&c);
  if (!s) throw Error(fmt::format("column {} is not text", column));
  if (!is_utf8(*s)) throw Error(fmt::format("column {} is not UTF-8 text", column));
  return *s;
}

std::int64_t integer(const report::Cell& c, const char* column) {
  if (const auto* i = std::get_if<std::int64_t>(&c)) return *i;
  throw Error(fmt::format("column {} is not an integer", column));
}

// Both queries give the same leading columns, then the references: cuBLAS (ms), cuBLASLt (ms), the ratios; then how
// it was timed: warm-up, runs, iterations, L2 mode, the SM count of its run, and how its batches were enqueued; then
// the row's ids (its re-rank or measurement, config, run), its run's device and GPUs, and its problem kind.
constexpr const char* kColumns = "device_name, device_cc, arch, M, N, K, family, config_name, alias, params, median_ms";

// A re-rank winner's own fastest tuning measurement of the shape with a cuBLASLt: `what` of it. One with a timed
// cuBLASLt always has a ratio to it and one without has none (tune/recorder.cpp); a measurement that keeps its
// ratio while its cuBLASLt row no longer reads is taken too, so that the ratio comes without the time it was
// derived from, which the checks refuse, rather than both vanishing without a word.
#define MPGEMM_OWN_CUBLASLT(what)                                                                               \
  "(SELECT " what                                                                                               \
  " FROM measurements AS m2 LEFT JOIN cublaslt_timings AS lt ON lt.id = m2.cublaslt_id "                        \
  "WHERE m2.config_id = winners.config_id AND m2.device_name = winners.device_name AND m2.arch = winners.arch " \
  "AND m2.M = winners.M AND m2.N = winners.N AND m2.K = winners.K AND m2.problem = winners.problem "            \
  "AND m2.status = 'ok' "                                                                                       \
  "AND (lt.median_ms IS NOT NULL OR m2.ratio_to_cublaslt IS NOT NULL) ORDER BY m2.median_ms, m2.id LIMIT 1)"

// clang-format off
constexpr const char* kRerankProtocol =
    "(SELECT warmup FROM reranks WHERE id = rerank_id), (SELECT rounds FROM reranks WHERE id = rerank_id), "
    "(SELECT iters FROM reranks WHERE id = rerank_id), 'warm', (SELECT sm_count FROM runs WHERE id = run_id), "
    "coalesce((SELECT batches FROM reranks WHERE id = rerank_id), 'stream')";
constexpr const char* kTuningProtocol =
    "(SELECT warmup FROM measurements WHERE id = measurement_id), "
    "(SELECT runs FROM measurements WHERE id = measurement_id), "
    "(SELECT iters FROM measurements WHERE id = measurement_id), "
    "coalesce((SELECT l2 FROM measurements WHERE id = measurement_id), 'warm'), "
    "(SELECT sm_count FROM runs WHERE id = run_id), "
    "coalesce((SELECT batches FROM measurements WHERE id = measurement_id), 'stream')";
// The re-rank's own cuBLASLt (same rounds, schema 9) where it has one (its time or its ratio: one without the
// other is refused by the checks), else the winner's own tuning measurement's.
#define MPGEMM_RERANK_HAS_CUBLASLT "cublaslt_median_ms IS NOT NULL OR ratio_to_cublaslt IS NOT NULL"
constexpr const char* kOwnCublasLt =
    "CASE WHEN " MPGEMM_RERANK_HAS_CUBLASLT " THEN cublaslt_median_ms ELSE " MPGEMM_OWN_CUBLASLT("lt.median_ms") " END, "
    "CASE WHEN " MPGEMM_RERANK_HAS_CUBLASLT " THEN ratio_to_cublaslt ELSE " MPGEMM_OWN_CUBLASLT("m2.ratio_to_cublaslt") " END";
#undef MPGEMM_RERANK_HAS_CUBLASLT
// clang-format on

#undef MPGEMM_OWN_CUBLASLT

// Two columns of the row's run, which restates its device: the run's device name and its GPUs (runs.gpus, a JSON
// array of {"ordinal", "uuid", "name"}).
std::string run_device_columns(const char* view) {
  return fmt::format(
      "(SELECT device_name FROM runs WHERE id = {0}.run_id), (SELECT gpus FROM runs WHERE id = {0}.run_id)", view);
}

// Whether `device` is one the run measured on: its device_name, or the name of one of its GPUs. A run of no device
// (NULL, as fixtures begin runs) vouches for any; GPUs that do not read name none.
bool run_measured_on(const report::Cell& run_device, const report::Cell& run_gpus, const std::string& device) {
  if (std::holds_alternative<std::monostate>(run_device) || text(run_device) == device) return true;
  try {
    const nlohmann::json gpus = parse_json_bounded(text(run_gpus));
    if (!gpus.is_array()) return false;
    for (const auto& g : gpus)
      if (g.is_object() && g.contains("name") && g["name"].is_string() && g["name"].get<std::string>() == device)
        return true;
  } catch (const nlohmann::json::exception&) {
  }
  return false;
}

ShapeWinner winner_from_row(const std::vector<report::Cell>& r, bool from_rerank) {
  ShapeWinner w;
  w.device_name = required_text(r[0], "device_name");
  w.device_cc = required_text(r[1], "device_cc");
  const auto arch = Arch::parse(required_text(r[2], "arch"));
  if (!arch) throw Error(fmt::format("its arch '{}' does not read", text_excerpt(text(r[2]))));
  w.arch = *arch;
  w.shape = {integer(r[3], "M"), integer(r[4], "N"), integer(r[5], "K")};
  w.family = required_text(r[6], "family");
  w.config_name = required_text(r[7], "config_name");
  if (!std::holds_alternative<std::monostate>(r[8]))
    if (auto a = required_text(r[8], "alias"); !a.empty()) w.alias = a;
  w.params = params_from_json(parse_json_bounded(required_text(r[9], "params")));
  w.median_ms = real(r[10]).value_or(0);
  w.cublas_ms = real(r[11]);
  w.ratio_to_cublas = real(r[12]);
  w.cublaslt_ms = real(r[13]);
  w.ratio_to_cublaslt = real(r[14]);
  w.from_rerank = from_rerank;
  w.warmup = static_cast<int>(real(r[15]).value_or(0));
  w.runs = static_cast<int>(real(r[16]).value_or(0));
  w.iters = static_cast<int>(real(r[17]).value_or(0));
  const auto l2 = l2_mode_from_string(text(r[18]));
  if (!l2) throw Error(fmt::format("its L2 mode '{}' does not read", text_excerpt(text(r[18]))));
  w.l2 = *l2;
  if (const auto* sms = std::get_if<std::int64_t>(&r[19])) w.sm_count = *sms;
  const auto batches = batch_enqueue_from_string(text(r[20]));
  if (!batches) throw Error(fmt::format("its batch mode '{}' does not read", text_excerpt(text(r[20]))));
  w.batches = *batches;
  w.row = WinnerRow{integer(r[21], "id"), integer(r[22], "config_id"), integer(r[23], "run_id")};
  // A device name damaged into another makes a device of its own, with this measurement its winner.
  if (!run_measured_on(r[24], r[25], w.device_name))
    throw Error(fmt::format("its device is not one its run {} measured on ({:?})", w.row->run_id, cut(text(r[24]))));
  std::string why;
  const auto kind = ProblemKind::parse(required_text(r[26], "problem"), &why);
  if (!kind) throw Error(fmt::format("its problem {}", text_excerpt(why, 160)));
  w.kind = *kind;
  return w;
}

// A row that does not read, as a message names it: from what of it does (its cells, not yet checked).
std::string row_label(const std::vector<report::Cell>& r, bool from_rerank) {
  const auto id = [&](std::size_t i) {
    const auto* v = std::get_if<std::int64_t>(&r[i]);
    return v ? std::to_string(*v) : std::string("?");
  };
  // The shape's kind as the file holds it, escaped and cut (it may be the damage); nothing for the default kind.
  const std::string problem = text(r[26]) == ProblemKind{}.name() ? "" : " " + text_excerpt(text(r[26]), 40);
  return fmt::format("the {} row {:?} for {:?} at {}x{}x{}{} ({} {}, config {}, run {})",
                     from_rerank ? "winners" : "best_per_shape", cut(text(r[7])), cut(text(r[0])), id(3), id(4), id(5),
                     problem, from_rerank ? "re-rank" : "measurement", id(21), id(22), id(23));
}

// winner_from_row, refusing a row that does not read (damaged params, an unknown arch) with a StoreError naming
// it, whatever the reader under it threw (nlohmann's parse_error for params that are not UTF-8 JSON).
ShapeWinner read_row(const Store& store, const std::vector<report::Cell>& r, bool from_rerank) {
  std::string why;
  try {
    return winner_from_row(r, from_rerank);
  } catch (const nlohmann::json::exception& e) {
    why = fmt::format("its params do not read as JSON ({})", text_excerpt(e.what(), 120));
  } catch (const Error& e) {
    why = text_excerpt(e.what(), 160);
  }
  refuse_damaged_database(store.path(), fmt::format("{}: {}", row_label(r, from_rerank), why));
}

// A time the views order by that is not a number: in a STRICT table a REAL column holds none, but a table whose
// STRICT was edited away and back can, and ORDER BY median_ms sorts text after every number, so that row would
// lose without a word. The first one is refused, named.
void refuse_times_that_are_not_numbers(const Store& store) {
  const report::Table bad = store.query_sql(
      "SELECT * FROM (SELECT 'measurement ' || id, typeof(median_ms) FROM measurements "
      "WHERE status = 'ok' AND typeof(median_ms) NOT IN ('real', 'integer') LIMIT 1) "
      "UNION ALL SELECT * FROM (SELECT 'rerank_configs row of re-rank ' || rerank_id || ', config ' || config_id, "
      "typeof(median_ms) FROM rerank_configs WHERE typeof(median_ms) NOT IN ('real', 'integer', 'null') LIMIT 1)");
  if (bad.rows.empty()) return;
  const auto& r = bad.rows.front();
  refuse_damaged_database(store.path(),
                          fmt::format("{}: its median_ms is {}, not a number (ms)", text(r[0]), text(r[1])));
}

}  // namespace

std::vector<ShapeWinner> all_shape_winners(const Store& store) {
  refuse_times_that_are_not_numbers(store);
  // winners: the re-rank's own cuBLAS median and ratio (same rounds); cuBLASLt's likewise when it was in the rounds,
  // else from the winner's own tuning measurement.
  const report::Table reranked = store.query_sql(fmt::format(
      "SELECT {}, cublas_median_ms, ratio_to_cublas, {}, {}, rerank_id, config_id, run_id, {}, problem FROM winners",
      kColumns, kOwnCublasLt, kRerankProtocol, run_device_columns("winners")));
  // best_per_shape: the tuning run's references, as throughput; turned back into ms below.
  const report::Table tuned = store.query_sql(fmt::format(
      "SELECT {}, 2.0 * M * N * K / cublas_tflops / 1e9, ratio_to_cublas, 2.0 * M * N * K / cublaslt_tflops / 1e9, "
      "ratio_to_cublaslt, {}, measurement_id, config_id, run_id, {}, problem FROM best_per_shape",
      kColumns, kTuningProtocol, run_device_columns("best_per_shape")));
  std::vector<ShapeWinner> out;
  const auto key = [](const ShapeWinner& w) {
    return std::tie(w.device_name, w.kind, w.shape.m, w.shape.n, w.shape.k);
  };
  std::set<std::tuple<std::string, ProblemKind, std::int64_t, std::int64_t, std::int64_t>> reranked_keys;
  for (const auto& r : reranked.rows) {
    out.push_back(read_row(store, r, true));
    reranked_keys.insert(key(out.back()));
  }
  for (const auto& r : tuned.rows) {
    ShapeWinner w = read_row(store, r, false);
    if (!reranked_keys.count(key(w))) out.push_back(std::move(w));
  }
  std::sort(out.begin(), out.end(), [&](const ShapeWinner& a, const ShapeWinner& b) { return key(a) < key(b); });
  if (auto why = first_unsound(out, WinnerSource::database)) refuse_damaged_database(store.path(), *why);
  return out;
}

std::vector<ShapeWinner> shape_winners(const Store& store, const ProblemKind& kind) {
  std::vector<ShapeWinner> out = all_shape_winners(store);
  std::erase_if(out, [&](const ShapeWinner& w) { return w.kind != kind; });
  return out;
}

}  // namespace mpgemm
