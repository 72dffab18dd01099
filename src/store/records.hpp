#pragma once
// What the store writes and reads back: plain structs, one per table. The shared layer types (Candidate,
// CompileResult, TimingStats, Measurement) are reused where they fit; "Stored*" adds what the database assigns.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/device.hpp"
#include "common/problem_kind.hpp"
#include "common/records.hpp"
#include "common/types.hpp"
#include "common/version.hpp"

namespace mpgemm {

// Where a run happened and how it was started (table runs).
struct RunInfo {
  std::string tool_version = mpgemm::tool_version();
  std::string git_sha = mpgemm::git_sha();
  std::vector<std::string> argv;          // the command line, argv[0] first
  std::string mode = "gpu";               // "compile-only", "gpu" or "replay"
  std::optional<std::string> space_path;  // search-space file as given
  std::optional<std::string> space_hash;  // hash of its content
  std::optional<std::string> hostname;
  std::optional<std::string> device_name;  // e.g. "NVIDIA H200"; none without a GPU
  std::optional<std::string> device_cc;    // e.g. "sm_90"
  std::optional<std::int64_t> sm_count;    // multiprocessors
  std::optional<std::string> driver_version;
  std::optional<std::string> runtime_version;
  std::optional<std::string> nvrtc_version;
  std::optional<std::string> cublas_version;
  std::optional<std::string> notes;
  std::optional<std::string> shard;  // "I/N" (1-based) when the run took one shard of the work
  std::vector<GpuIdentity> gpus;     // the GPUs it measured on (runs.gpus), with device_name

  // The device fields (name, cc, SM count, driver, runtime and cuBLAS versions) from a device description.
  void set_device(const DeviceDescription& d) {
    device_name = d.name;
    device_cc = d.arch.str();
    sm_count = d.sm_count;
    driver_version = d.driver_version;
    runtime_version = d.runtime_version;
    cublas_version = d.cublas_version;
  }
};

struct StoredRun : RunInfo {
  std::int64_t id = 0;
  std::string started_at;               // UTC, ISO-8601
  std::optional<std::string> ended_at;  // UTC, ISO-8601; none while running or after a crash
  std::string status;                   // "running", "finished", "interrupted" or "failed"
  std::optional<std::int64_t> pid;      // the process that recorded it, on `hostname`; none before schema 5
  std::string uid;                      // its identity across databases (runs.uid)
};

struct StoredConfig {
  std::int64_t id = 0;
  Candidate candidate;
  std::string source_hash;
  std::string created_at;
};

// A compilation as recorded: CompileResult without the cubin and lowered name, which are not stored.
struct StoredCompilation {
  std::int64_t id = 0;
  std::int64_t config_id = 0;
  std::int64_t run_id = 0;  // the run that compiled it first
  Arch arch;
  std::string compile_key;
  Status status = Status::compile_failed;  // ok or compile_failed
  int registers = -1;                      // per thread; -1 when unknown
  int shared_bytes = -1;                   // static shared memory per block (bytes); -1 when unknown
  int dynamic_shared_bytes = -1;           // dynamic shared memory per block at launch (bytes); -1 when unknown
  int spill_store_bytes = -1;              // bytes; -1 when unknown
  int spill_load_bytes = -1;               // bytes; -1 when unknown
  int stack_bytes = -1;                    // per thread (bytes); -1 when unknown
  // ptxas's performance diagnostics; none when the row predates schema version 3 and they were never parsed
  std::optional<std::vector<PtxasWarning>> warnings;
  double compile_ms = 0;  // ms
  std::string log;
  std::string created_at;
};

// One cuBLAS reference timing (table cublas_timings).
struct CublasRecord {
  std::string device_name;
  std::string device_cc;  // e.g. "sm_90"
  Shape shape;
  TimingStats timing;
  double sm_clock_mhz = 0;         // MHz; 0 when unknown
  std::optional<GpuIdentity> gpu;  // the GPU that timed it
  // What was computed (column problem); the default kind before schema 14. Last, so that the positional
  // initializers written before it keep their meaning.
  ProblemKind kind = {};
};

struct StoredCublas : CublasRecord {
  std::int64_t id = 0;
  std::int64_t run_id = 0;
  double tflops = 0;  // computed by the store from shape and median (TFLOP/s)
  std::string created_at;
};

// One cuBLASLt reference timing (table cublaslt_timings), with or without a timing.
struct CublasLtRecord {
  std::string device_name;
  std::string device_cc;  // e.g. "sm_90"
  Shape shape;
  CublasLtReference reference;
  std::optional<GpuIdentity> gpu;  // the GPU that timed it
  ProblemKind kind = {};           // what was computed (column problem), last as in CublasRecord
};

struct StoredCublasLt : CublasLtRecord {
  std::int64_t id = 0;
  std::int64_t run_id = 0;
  std::optional<double> tflops;  // computed by the store from shape and median when timed (TFLOP/s)
  std::string created_at;
};

// One candidate's outcome on one shape (table measurements).
struct MeasurementRecord {
  std::int64_t run_id = 0;
  std::int64_t config_id = 0;
  std::optional<std::int64_t> compilation_id;  // none when nothing was compiled (constraint_rejected)
  std::string result_key;                      // unique: recording the same key twice keeps the first
  std::string device_name;
  std::string device_cc;  // e.g. "sm_90"
  Arch arch;              // compiled for
  Shape shape;
  ProblemKind kind = {};  // what was computed (column problem); the default kind before schema 14
  Measurement measurement;
  std::optional<std::int64_t> cublas_id;    // the reference timing compared against
  std::optional<double> ratio_to_cublas;    // cuBLAS median / ours: > 1 means faster than cuBLAS
  std::optional<std::int64_t> cublaslt_id;  // the cuBLASLt timing compared against, when there is one
  std::optional<double> ratio_to_cublaslt;  // cuBLASLt median / ours: > 1 means faster than cuBLASLt's best
  std::optional<GpuIdentity> gpu;           // the GPU it ran on; none when it was not run (or replayed)
};

struct StoredMeasurement : MeasurementRecord {
  std::int64_t id = 0;
  std::optional<double> tflops;  // computed by the store when timed (TFLOP/s)
  std::string created_at;
};

// Counters of one profiled kernel (table profile_metrics).
struct ProfileRecord {
  std::string label;                      // point name, config name or "cublas"
  std::optional<std::int64_t> config_id;  // when the label is a config of this database
  std::string kernel;                     // kernel name as ncu reported it
  std::optional<std::string> device_name;
  Shape shape;
  struct Metric {
    std::string name;  // ncu metric name
    std::string unit;  // ncu unit
    double value = 0;
  };
  std::vector<Metric> metrics;
  std::optional<std::string> source_file;
};

// What ranks the configs a re-rank starts from (Store::ranked_configs): their fastest median, or its cycles
// (RankedConfig::cycles).
enum class RankBy { time, cycles };

// Which configs count as having led at a shape (Store::leaders, mpgemm-tune --leaders-from). The defaults are the
// rule that picked the prefill run's 153 configs from seven of the ten-shape suite's shapes
// (results/h200/transformer/NOTES.md, archived at 1c40831: results/archived.tsv).
struct LeaderRule {
  double within = 0.03;  // first-pass median within (1 + within) x the family's fastest at that device and shape
  int places = 8;        // and placed 1st to places-th in a re-rank of the shape (0: none)
};

// A verified config among the fastest of a shape (Store::ranked_configs): what the re-rank starts from.
struct RankedConfig {
  StoredConfig config;
  Arch arch;                      // compiled for
  double median_ms = 0;           // its fastest 'ok' median on the shape (ms)
  double sm_clock_mhz = 0;        // the SM clock read while that median was timed (MHz); 0 when unknown
  int registers = -1;             // per thread, from its latest ok compilation for `arch`; -1 when unknown
  int shared_bytes = -1;          // static shared memory per block (bytes); -1 when unknown
  int dynamic_shared_bytes = -1;  // dynamic shared memory per block at launch (bytes); -1 when unknown

  // The median x the SM clock read while it was timed (ms x MHz); 0 when the clock is unknown. Ranked by cycles,
  // such configs follow the others, by median.
  double cycles() const { return sm_clock_mhz > 0 ? median_ms * sm_clock_mhz : 0; }
};

// One config of a re-rank (table rerank_configs) with its samples (rerank_samples).
struct RerankEntryRecord {
  std::int64_t config_id = 0;
  Arch arch;                                // compiled for
  double prior_median_ms = 0;               // the stored median that put it in the top K (ms)
  Status status = Status::ok;               // ok, or why it dropped out
  std::optional<TimingStats> timing;        // over `samples`, when it has any
  std::optional<double> ratio_to_cublas;    // cuBLAS median / this median, both from the same rounds
  std::optional<double> ratio_to_cublaslt;  // cuBLASLt median / this median, both from the same rounds
  int registers = -1;                       // per thread; -1 when unknown
  int threads = -1;                         // per block; -1 when unknown
  int smem_bytes = -1;                      // static + dynamic shared memory per block (bytes); -1 when unknown
  bool tied = false;                        // within the tie band of the fastest median
  std::optional<int> place;                 // 1 = the winner; none when not timed ok
  std::string message;                      // why it dropped out
  std::vector<RoundSample> samples;         // every batch timed
};

// One re-rank of one shape on one device (table reranks).
struct RerankRecord {
  std::int64_t run_id = 0;
  std::string device_name;
  std::string device_cc;  // e.g. "sm_90"
  Shape shape;
  ProblemKind kind = {};  // what the rounds computed (column problem); the default kind before schema 14
  int top_k = 5;          // configs asked for
  int warmup = 0;         // launches of each entry before the rounds
  int rounds = 0;         // batches of each entry
  int iters = 0;          // launches per batch
  // How each batch was enqueued: `iters` calls from the host between two events, or one replay of the batch captured
  // as a CUDA graph
  BatchEnqueue batches = BatchEnqueue::stream;
  // Wall time of the untimed rounds run before the timed ones, so these met the clock sustained load holds (ms);
  // 0: none (not asked for, or a database from before schema 12)
  double settled_ms = 0;
  double tie_band = 0.01;
  std::string rule;  // the winner rule's name
  std::optional<std::int64_t> winner_config_id;
  std::optional<double> cublas_median_ms;  // over cublas_samples (ms)
  // over cublaslt_samples (ms): cuBLASLt running the algorithm that won its best-of-heuristics at the shape's
  // start; none when it was not in the rounds
  std::optional<double> cublaslt_median_ms;
  double sm_clock_mhz = 0;                 // MHz; 0 when unknown
  std::vector<RerankEntryRecord> entries;  // in the rule's order: placed first, then the others
  std::vector<RoundSample> cublas_samples;
  std::vector<RoundSample> cublaslt_samples;
  std::optional<GpuIdentity> gpu;  // the GPU the rounds ran on
};

struct StoredRerank : RerankRecord {
  std::int64_t id = 0;
  std::string created_at;
};

}  // namespace mpgemm
