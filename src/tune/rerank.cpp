#include "tune/rerank.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include <fmt/format.h>

#include "codegen/family.hpp"
#include "common/error.hpp"
#include "compile/compile_pool.hpp"
#include "compile/cubin_cache.hpp"
#include "measure/stats.hpp"
#include "worker/process.hpp"

namespace mpgemm {

namespace {

// Unknown resources sort after every known value.
std::int64_t or_largest(std::int64_t v) {
  return v >= 0 ? v : std::numeric_limits<std::int64_t>::max();
}

std::int64_t register_footprint(const RerankContender& c) {
  if (c.registers < 0 || c.threads < 0) return or_largest(-1);
  return std::int64_t{c.registers} * c.threads;
}

std::optional<TimingStats> stats_of(const std::vector<RoundSample>& samples, const RerankProtocol& p) {
  if (samples.empty()) return std::nullopt;
  std::vector<double> ms;
  for (const auto& s : samples) ms.push_back(s.ms);
  return summarize(std::move(ms), p.warmup, static_cast<int>(samples.size()), p.iters);
}

std::function<CompileResult(const Candidate&, const Arch&)> default_compiler(const Store& store,
                                                                             const ProblemKind& kind) {
  return [cache = CubinCache(CubinCache::beside(store.path())), kind](const Candidate& c, const Arch& arch) {
    CompilePoolOptions options;
    options.cache = &cache;
    return compile_cached(family(c.family).kernel_spec(c.params, arch, kind), options).result;
  };
}

// Whether `ranked` holds the kernel `r` is (its config name and arch).
bool holds(const std::vector<RankedConfig>& ranked, const RankedConfig& r) {
  return std::any_of(ranked.begin(), ranked.end(), [&](const RankedConfig& x) {
    return x.config.candidate.name == r.config.candidate.name && x.arch == r.arch;
  });
}

// The most configs one re-rank takes from the rankings (K may be up to 64 itself).
int rerank_limit(const RerankOptions& options) {
  return std::max(options.top_k, kRerankMaxConfigs);
}

// The K leading configs by `by` and, with options.within, every other within (1 + X) of the leader by the same
// measure (up to rerank_limit). By cycles, only configs whose clock is known join the cut, and a leader whose
// clock is unknown (so is every other's: they rank last) makes none.
std::vector<RankedConfig> leading_configs(const Store& store, std::string_view device_name, const Shape& shape,
                                          const RerankOptions& options, RankBy by) {
  std::vector<RankedConfig> ranked = store.ranked_configs(device_name, GemmProblem{shape, options.kind},
                                                          options.within ? rerank_limit(options) : options.top_k, by);
  if (static_cast<int>(ranked.size()) <= options.top_k) return ranked;
  std::size_t keep = static_cast<std::size_t>(options.top_k);
  const auto measure = [&](const RankedConfig& r) { return by == RankBy::time ? r.median_ms : r.cycles(); };
  if (options.within && measure(ranked.front()) > 0) {
    const double cut = measure(ranked.front()) * (1 + *options.within);
    while (keep < ranked.size() && measure(ranked[keep]) > 0 && measure(ranked[keep]) <= cut) ++keep;
  }
  ranked.resize(keep);
  return ranked;
}

// Appends each config named in `names` that `ranked` lacks, at its fastest verified median of the shape (every
// arch it was verified for).
void add_named(const Store& store, std::string_view device_name, const Shape& shape, const ProblemKind& kind,
               const std::vector<std::string>& names, std::vector<RankedConfig>& ranked) {
  if (names.empty()) return;
  const std::vector<RankedConfig> all =
      store.ranked_configs(device_name, GemmProblem{shape, kind}, std::numeric_limits<int>::max());
  for (const auto& name : names) {
    const auto named = [&](const RankedConfig& r) { return r.config.candidate.name == name; };
    if (std::none_of(all.begin(), all.end(), named))
      throw UsageError(fmt::format("--rerank-also {}: no verified measurement of it at {} on {} in the database", name,
                                   shape.str(), device_name));
    for (const auto& r : all)
      if (named(r) && !holds(ranked, r)) ranked.push_back(r);
  }
}

}  // namespace

RerankProtocol sized_rerank_protocol(RerankProtocol p, double fastest_ms, double min_kernel_ms, double max_batch_ms) {
  if (!(fastest_ms > 0)) return p;
  if (max_batch_ms > 0 && p.iters * fastest_ms > max_batch_ms)
    p.iters = std::max(1, static_cast<int>(std::floor(max_batch_ms / fastest_ms)));
  if (min_kernel_ms > 0) {
    const double wanted = std::ceil(min_kernel_ms / (p.iters * fastest_ms));
    p.rounds = std::max(p.rounds, static_cast<int>(std::min<double>(wanted, kRerankMaxSizedRounds)));
  }
  return p;
}

RerankPlacing apply_winner_rule(const std::vector<RerankContender>& contenders, double tie_band) {
  RerankPlacing out;
  out.tied.assign(contenders.size(), false);
  if (contenders.empty()) return out;
  double fastest = contenders.front().median_ms;
  for (const auto& c : contenders) fastest = std::min(fastest, c.median_ms);
  const double limit = fastest * (1.0 + tie_band);
  for (std::size_t i = 0; i < contenders.size(); ++i) {
    out.tied[i] = contenders[i].median_ms <= limit;
    out.order.push_back(i);
  }
  std::sort(out.order.begin(), out.order.end(), [&](std::size_t a, std::size_t b) {
    const auto& x = contenders[a];
    const auto& y = contenders[b];
    if (out.tied[a] != out.tied[b]) return static_cast<bool>(out.tied[a]);
    if (out.tied[a])
      return std::tuple(register_footprint(x), or_largest(x.smem_bytes), x.name, x.arch) <
             std::tuple(register_footprint(y), or_largest(y.smem_bytes), y.name, y.arch);
    return std::tie(x.median_ms, x.name, x.arch) < std::tie(y.median_ms, y.name, y.arch);
  });
  return out;
}

namespace {

// The configs a re-rank of `shape` takes: the K fastest by time (with --rerank-within, those within it), by cycles
// too with --rerank-cycles (up to rerank_limit), and the ones --rerank-also names.
std::vector<RankedConfig> configs_to_rerank(const Store& store, std::string_view device_name, const Shape& shape,
                                            const RerankOptions& options) {
  std::vector<RankedConfig> ranked = leading_configs(store, device_name, shape, options, RankBy::time);
  if (options.by_cycles_too)
    for (auto& r : leading_configs(store, device_name, shape, options, RankBy::cycles))
      if (static_cast<int>(ranked.size()) < rerank_limit(options) && !holds(ranked, r)) ranked.push_back(std::move(r));
  add_named(store, device_name, shape, options.kind, options.also, ranked);
  return ranked;
}

// options.protocol sized by time from the fastest stored median of `ranked` (sized_rerank_protocol).
RerankProtocol protocol_for(const std::vector<RankedConfig>& ranked, const RerankOptions& options) {
  double fastest_ms = 0;
  for (const auto& c : ranked)
    if (c.median_ms > 0 && (fastest_ms == 0 || c.median_ms < fastest_ms)) fastest_ms = c.median_ms;
  return sized_rerank_protocol(options.protocol, fastest_ms, options.min_kernel_ms, options.max_batch_ms);
}

// The re-rank's record before any timing: where, what was asked for, by which rule.
RerankRecord rerank_record(const DeviceDescription& device, const Shape& shape, const RerankOptions& options,
                           const RerankProtocol& protocol, std::size_t configs) {
  RerankRecord r;
  r.run_id = options.run_id;
  r.device_name = device.name;
  r.gpu = device.gpu;
  r.device_cc = device.arch.str();
  r.shape = shape;
  r.kind = options.kind;
  r.top_k = std::max(options.top_k, static_cast<int>(configs));  // --rerank-within may take more than K
  r.warmup = protocol.warmup;
  r.rounds = protocol.rounds;
  r.iters = protocol.iters;
  r.tie_band = options.tie_band;
  r.rule = std::string(kRerankRule);
  return r;
}

// Every ranked config as an entry, and those that compile as the kernels the backend re-times.
struct RerankEntries {
  std::vector<RerankEntryRecord> entries;
  std::vector<std::string> names;     // config name of each entry
  std::vector<RerankKernel> kernels;  // the entries that compiled, in entry order
  std::vector<std::size_t> entry_of;  // kernel index -> entry index
};

RerankEntries compile_entries(const std::vector<RankedConfig>& ranked, const Shape& shape,
                              const DeviceDescription& device,
                              const std::function<CompileResult(const Candidate&, const Arch&)>& compile) {
  RerankEntries out;
  for (const auto& c : ranked) {
    const Candidate& candidate = c.config.candidate;
    const Family& fam = family(candidate.family);
    RerankEntryRecord e;
    e.config_id = c.config.id;
    e.arch = c.arch;
    e.prior_median_ms = c.median_ms;
    const LaunchGeometry g = fam.launch_geometry(candidate.params, shape, device);
    e.threads = static_cast<int>(g.block.count());
    CompileResult compiled = compile(candidate, c.arch);
    compiled.arch = c.arch;
    // The database's facts first, so a replayed re-rank reads the same as the one recorded.
    e.registers = c.registers >= 0 ? c.registers : compiled.registers;
    const int static_smem = c.shared_bytes >= 0 ? c.shared_bytes : compiled.shared_bytes;
    if (static_smem >= 0) e.smem_bytes = static_smem + static_cast<int>(g.dynamic_smem_bytes);
    if (compiled.status != Status::ok) {
      e.status = Status::compile_failed;
      e.message = "compiling it again failed: " + compiled.log.substr(0, 200);
    } else {
      out.entry_of.push_back(out.entries.size());
      out.kernels.push_back({candidate, std::move(compiled), c.median_ms});
    }
    out.entries.push_back(std::move(e));
    out.names.push_back(candidate.name);
  }
  return out;
}

// The rounds' samples into the record: the references' and, per kernel, its entry's status, samples, timing and
// ratios to both references.
void take_rounds(InterleavedReply& reply, const RerankProtocol& protocol, RerankEntries& in, RerankRecord& r) {
  r.cublas_samples = reply.cublas;
  if (auto t = stats_of(reply.cublas, protocol)) r.cublas_median_ms = t->median_ms;
  r.cublaslt_samples = reply.cublaslt;
  if (auto t = stats_of(reply.cublaslt, protocol)) r.cublaslt_median_ms = t->median_ms;
  r.sm_clock_mhz = reply.sm_clock_mhz;
  r.batches = reply.graphs ? BatchEnqueue::graph : BatchEnqueue::stream;
  r.settled_ms = reply.settled_ms;
  for (std::size_t k = 0; k < in.kernels.size() && k < reply.kernels.size(); ++k) {
    auto& e = in.entries[in.entry_of[k]];
    auto& got = reply.kernels[k];
    e.status = got.status;
    e.message = got.message;
    e.samples = std::move(got.samples);
    e.timing = stats_of(e.samples, protocol);
    if (e.timing && e.timing->median_ms > 0) {
      if (r.cublas_median_ms) e.ratio_to_cublas = *r.cublas_median_ms / e.timing->median_ms;
      if (r.cublaslt_median_ms) e.ratio_to_cublaslt = *r.cublaslt_median_ms / e.timing->median_ms;
    }
  }
}

// How the winner rule placed the entries.
struct Placed {
  std::size_t contenders = 0;  // entries timed ok, which the rule placed
  std::size_t tied = 0;        // of those, within the tie band of the fastest
};

// The rule, over the entries timed ok; the others follow in ranked order. Moves the entries into r.entries (the
// winner first, r.winner_config_id set when there is one) and their names into `names`, in the same order.
Placed place_entries(RerankEntries& in, double tie_band, RerankRecord& r, std::vector<std::string>& names) {
  std::vector<RerankContender> contenders;
  std::vector<std::size_t> contender_entry;
  for (std::size_t i = 0; i < in.entries.size(); ++i) {
    const auto& e = in.entries[i];
    if (e.status != Status::ok || !e.timing) continue;
    contenders.push_back({in.names[i], e.arch.str(), e.timing->median_ms, e.registers, e.threads, e.smem_bytes});
    contender_entry.push_back(i);
  }
  const RerankPlacing placing = apply_winner_rule(contenders, tie_band);
  std::vector<std::size_t> order;
  for (std::size_t p = 0; p < placing.order.size(); ++p) {
    const std::size_t c = placing.order[p];
    auto& e = in.entries[contender_entry[c]];
    e.place = static_cast<int>(p) + 1;
    e.tied = placing.tied[c];
    order.push_back(contender_entry[c]);
  }
  for (std::size_t i = 0; i < in.entries.size(); ++i)
    if (!in.entries[i].place) order.push_back(i);
  for (const std::size_t i : order) {
    r.entries.push_back(std::move(in.entries[i]));
    names.push_back(in.names[i]);
  }
  if (!placing.order.empty()) r.winner_config_id = r.entries.front().config_id;
  return {contenders.size(), static_cast<std::size_t>(std::count(placing.tied.begin(), placing.tied.end(), true))};
}

// The one line a recorded re-rank ends with: the winner, its ratios to both references over the same rounds, and
// how it was timed.
std::string recorded_note(const RerankRecord& r, const std::vector<std::string>& names, const Placed& placed,
                          double tie_band, const std::optional<InterleavedReply>& reply) {
  std::string ratios;
  if (r.winner_config_id) {
    const auto& w = r.entries.front();
    if (w.ratio_to_cublas) ratios += fmt::format(", {:.3f}x cuBLAS", *w.ratio_to_cublas);
    if (w.ratio_to_cublaslt) ratios += fmt::format(", {:.3f}x cuBLASLt", *w.ratio_to_cublaslt);
  }
  std::string note =
      r.winner_config_id
          ? fmt::format("re-rank of {}: {} wins over {} re-timed config(s), {} within the {:g}% tie band{}",
                        r.shape.str(), names.front(), placed.contenders, placed.tied, 100 * tie_band, ratios)
          : fmt::format("re-rank of {}: no config was timed ok, no winner", r.shape.str());
  if (r.batches == BatchEnqueue::graph) note += " (batches replayed as CUDA graphs)";
  if (r.settled_ms > 0) note += fmt::format(" after {:.0f} ms of untimed rounds", r.settled_ms);
  note += fmt::format("; {} rounds of {} launches", r.rounds, r.iters);
  if (reply && !reply->graphs_message.empty()) note += "; " + reply->graphs_message;
  return note;
}

}  // namespace

RerankOutcome rerank_shape(Store& store, MeasureBackend& backend, const Shape& shape, const RerankOptions& options) {
  RerankOutcome out;
  if (options.top_k <= 0) {
    out.note = "re-rank off";
    return out;
  }
  if (!backend.capabilities().interleaved) {
    out.note = fmt::format("the {} backend cannot re-rank", backend.mode());
    return out;
  }
  const DeviceDescription& device = backend.device();
  const std::vector<RankedConfig> ranked = configs_to_rerank(store, device.name, shape, options);
  if (ranked.empty()) {
    out.note = fmt::format("no verified config of {} on {} to re-rank", shape.str(), device.name);
    return out;
  }
  const RerankProtocol protocol = protocol_for(ranked, options);
  out.record = rerank_record(device, shape, options, protocol, ranked.size());
  RerankEntries entries =
      compile_entries(ranked, shape, device, options.compile ? options.compile : default_compiler(store, options.kind));

  std::optional<InterleavedReply> reply;
  if (!entries.kernels.empty()) {
    try {
      if (options.prepare_shape) backend.prepare_shape(shape);
      reply = backend.time_interleaved(entries.kernels, shape, protocol);
    } catch (const WorkerError& e) {
      out.note = fmt::format("re-rank of {} not recorded: {}", shape.str(), e.what());
      return out;
    }
    if (!reply) {
      out.note = fmt::format("the {} backend gave no re-rank of {}", backend.mode(), shape.str());
      return out;
    }
    take_rounds(*reply, protocol, entries, out.record);
  }

  const Placed placed = place_entries(entries, options.tie_band, out.record, out.names);
  out.rerank_id = store.record_rerank(out.record);
  out.recorded = true;
  out.note = recorded_note(out.record, out.names, placed, options.tie_band, reply);
  return out;
}

report::Table rerank_table(const RerankOutcome& outcome) {
  report::Table t;
  t.columns = {
      "place",   "config",    "arch",    "status",     "tied",   "median_ms", "ratio_to_cublas", "ratio_to_cublaslt",
      "samples", "registers", "threads", "smem_bytes", "message"};
  const auto known = [](int v) { return v >= 0 ? report::Cell(std::int64_t{v}) : report::Cell{}; };
  for (std::size_t i = 0; i < outcome.record.entries.size(); ++i) {
    const auto& e = outcome.record.entries[i];
    t.rows.push_back({e.place ? report::Cell(std::int64_t{*e.place}) : report::Cell{}, outcome.names[i], e.arch.str(),
                      std::string(to_string(e.status)), std::int64_t{e.tied ? 1 : 0},
                      e.timing ? report::Cell(e.timing->median_ms) : report::Cell{},
                      e.ratio_to_cublas ? report::Cell(*e.ratio_to_cublas) : report::Cell{},
                      e.ratio_to_cublaslt ? report::Cell(*e.ratio_to_cublaslt) : report::Cell{},
                      static_cast<std::int64_t>(e.samples.size()), known(e.registers), known(e.threads),
                      known(e.smem_bytes), e.message});
  }
  return t;
}

}  // namespace mpgemm
