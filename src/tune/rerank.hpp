#pragma once
// The top-K re-rank: before a shape's winner is declared, its K fastest verified configs are re-timed side by
// side with cuBLAS and cuBLASLt's chosen algorithm in balanced rounds (MeasureBackend::time_interleaved), every
// batch is stored (the references' too, so each config's ratio to both comes from the same rounds), and the winner
// is chosen from those samples by a fixed rule, so that the same database names the same winner every time.
//
// The winner rule (kRerankRule), applied to the configs that were timed ok in the rounds:
//   1. Each config's re-rank median is the median of its batches (ms per launch).
//   2. The fastest median m sets the tie band: every config whose median is <= m x (1 + tie_band) ties with it
//      (default 1%: differences below that are within what re-timing the same kernel moves).
//   3. Among the tied configs the winner is the one with the smallest register footprint per block
//      (registers per thread x threads per block; unknown counts as largest), then the least shared memory per
//      block (static + dynamic; unknown as largest), then the config name, then the arch. When speed cannot
//      tell them apart, the kernel that asks less of the SM is preferred: it leaves room for co-resident work
//      and is the least exposed to register-allocation and occupancy changes between toolkits and devices.
//      Name and arch make the order total, so the rule never depends on timing noise or row order.
//   4. The other configs follow the tied ones by median, then name, then arch.
// Every input is stored with the re-rank (rerank_configs: median, registers, threads, shared memory, tied,
// place), so the choice can be checked from the database alone.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/records.hpp"
#include "report/table.hpp"
#include "store/records.hpp"
#include "store/store.hpp"
#include "tune/backend.hpp"

namespace mpgemm {

// The most configs one re-rank takes (--rerank-within may ask for more).
inline constexpr int kRerankMaxConfigs = 64;
// The most rounds the sizing by time (RerankOptions::min_kernel_ms) asks for.
inline constexpr int kRerankMaxSizedRounds = 2000;

// The rule's name, stored in reranks.rule. A change of the rule is a new name.
inline constexpr std::string_view kRerankRule = "median_tie_band_then_regs_x_threads_then_smem_then_name";

struct RerankOptions {
  int top_k = 5;  // configs re-timed; 0 turns the re-rank off
  // --rerank-within X: also every config whose stored median is within (1 + X) x the fastest, up to
  // kRerankMaxConfigs, so the re-rank holds every config a first pass cannot tell from the best: one config's
  // first-pass median moves by a few percent from run to run (docs/findings.md, "Settle, then re-rank wide").
  // nullopt: the K fastest only.
  std::optional<double> within;
  // --rerank-cycles: also the K fastest by cycles (the first-pass median x the SM clock read while it was timed;
  // with `within`, those within (1 + X) x the fewest cycles too), so a config timed in a low clock step makes the
  // re-rank. Where the power cap does not hold a shape its clock drifts through a first pass, and the configs timed
  // early fall behind by time though they are fastest side by side. A ranking by cycles alone misleads where the
  // cap does hold, since each kernel then sets its own clock; hence both, the union re-timed (docs/findings.md,
  // "Where the cap does not hold a shape, re-rank by time and by cycles").
  bool by_cycles_too = false;
  // --rerank-also: configs (by name) re-timed besides the ones above, e.g. another run's pick, so a pick and the
  // best of a first pass are judged in the same rounds. Each needs a verified measurement of the shape on the
  // device; rerank_shape throws UsageError naming the first one that has none.
  std::vector<std::string> also;
  RerankProtocol protocol;  // warm-up, rounds, launches per batch
  // The re-rank sized by time (each 0: off; sized_rerank_protocol). A fixed count of rounds times a microsecond
  // kernel for a few milliseconds, within one of the steps in which a GPU moves its clock when the power cap does
  // not hold it, too little to tell 1% apart, and times a millisecond kernel for seconds a shape.
  double min_kernel_ms = 0;   // rounds raised so that each kernel's timed launches add up to at least this
  double max_batch_ms = 0;    // launches per batch lowered so that one batch takes at most this
  double tie_band = 0.01;     // relative: medians within (1 + tie_band) x the fastest tie
  std::int64_t run_id = 0;    // the runs row the re-rank is recorded under
  ProblemKind kind;           // the problem re-ranked: its measurements, its kernels, recorded with it
  bool prepare_shape = true;  // call backend.prepare_shape first (false: the caller has just prepared it)
  // Compiles a config for an arch. Empty: compile_cached() with the cubin cache beside the database, so the
  // tuner's cubins are reused. Backends that need no cubin (replay) may be given a stub.
  std::function<CompileResult(const Candidate&, const Arch&)> compile;
};

struct RerankOutcome {
  bool recorded = false;  // a re-rank was run and stored (record, rerank_id)
  std::string note;       // one line: why none ran, or the winner and how many tied
  std::optional<std::int64_t> rerank_id;
  RerankRecord record;             // entries in place order
  std::vector<std::string> names;  // config name of each of record.entries
};

// Re-ranks one shape on the backend's device and records it in `store` (needs a read-write store and
// options.run_id). Not run (recorded false, note saying why) when top_k is 0, the backend cannot re-rank, the
// database has no verified config of the shape on this device, or the worker hung or died during the rounds.
// Throws StoreError, NvrtcError when compiling a cubin fails for a machinery reason, and UsageError for a config
// of options.also without a verified measurement of the shape.
RerankOutcome rerank_shape(Store& store, MeasureBackend& backend, const Shape& shape, const RerankOptions& options);

// What the rule reads of one config timed ok.
struct RerankContender {
  std::string name;      // config name
  std::string arch;      // compiled for
  double median_ms = 0;  // re-rank median (ms)
  int registers = -1;    // per thread; -1 unknown
  int threads = -1;      // per block; -1 unknown
  int smem_bytes = -1;   // static + dynamic per block (bytes); -1 unknown
};

struct RerankPlacing {
  std::vector<std::size_t> order;  // indices into the contenders, the winner first
  std::vector<bool> tied;          // per contender: within the tie band of the fastest
};

// `p` sized by time from `fastest_ms`, the fastest stored median of the configs re-ranked (ms per launch): iters
// lowered (to no fewer than 1) while a batch would take longer than max_batch_ms, then rounds raised (to at most
// kRerankMaxSizedRounds, never lowered) until rounds x iters x fastest_ms reaches min_kernel_ms. A limit of 0, or
// no positive fastest_ms, leaves that count as it is. Pure.
RerankProtocol sized_rerank_protocol(RerankProtocol p, double fastest_ms, double min_kernel_ms, double max_batch_ms);

// The winner rule above. Pure.
RerankPlacing apply_winner_rule(const std::vector<RerankContender>& contenders, double tie_band);

// One row per config of a re-rank, in place order: place, config, arch, status, tied, median_ms, ratio_to_cublas,
// ratio_to_cublaslt (empty when cuBLASLt was not in the rounds), samples, registers, threads, smem_bytes, message.
report::Table rerank_table(const RerankOutcome& outcome);

}  // namespace mpgemm
