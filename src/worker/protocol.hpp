#pragma once
// The worker protocol: length-prefixed MessagePack over two pipes, requests on the worker's fd 3, replies on its
// fd 4. A frame is a uint32 little-endian payload length followed by the payload, one JSON object encoded with
// nlohmann::json::to_msgpack whose "type" names the message. Cubins travel as MessagePack binary.
//
//   coordinator -> worker          worker -> coordinator
//   hello                          device (or error: no_device, fatal)
//   prepare_shape                  cublas_reference, with cuBLASLt's when asked for (or error)
//   measure                        verified, then result (or error)
//   time_interleaved               interleaved (or error)
//   account                        worker_account: where the worker's time went so far
//   shutdown                       (the worker exits)
//
// Pure: no I/O here, so every message round-trips in unit tests.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/params.hpp"
#include "common/problem_kind.hpp"
#include "measure/protocol_defaults.hpp"
#include "measure/sampling.hpp"
#include "worker/phase_totals.hpp"
#include "worker/wire.hpp"

namespace mpgemm {

// 2: cuBLASLt in prepare_shape; 3: paired timing, balanced grids; 4: L2 mode, noise-based stopping, screening,
// the noise and L2 mode of every timing; 5: time_interleaved (the top-K re-rank); 6: the GPU's identity in every
// timing; 7: cuBLASLt's best algorithm in time_interleaved's rounds; 8: graph-replayed batches (time_interleaved's
// `graphs`, `batches` in prepare_shape, measure and every timing); 9: time_interleaved's untimed rounds
// (`settle_ms`, `settled_ms`); 10: their count (`settle_rounds`), and rounds ordered by a Williams square, not rotated;
// 11: prepare_shape's untimed cuBLAS launches before its timings (`settle_ms`, `settled_ms`); 12: the clock hold
// (prepare_shape's `hold`, verified's `settled_ms`); 13: shapes kept by the worker (cublas_reference's
// `inputs_kept`); 14: the worker's account of its time (`account`, answered by `worker_account`); 15: the problem's
// kind and scalars in prepare_shape (`problem`, `alpha`, `beta`)
inline constexpr int kProtocolVersion = 15;
// Frames above this are refused as corrupt (bytes); cubins are a few MB.
inline constexpr std::uint32_t kMaxFrameBytes = 256u << 20;

struct HelloRequest {
  int protocol = kProtocolVersion;
  int device_ordinal = 0;
};

struct HelloReply {
  int protocol = kProtocolVersion;
  DeviceInfo device;
  int pid = 0;  // the worker's process id, for logs
};

struct PrepareShapeRequest {
  Shape shape;
  std::uint64_t seed = 0;                 // inputs' seed
  int warmup = kProtocolDefaults.warmup;  // cuBLAS timing protocol
  int runs = kProtocolDefaults.runs;
  int iters = kProtocolDefaults.iters;
  bool cublaslt = true;  // also time cuBLASLt's best of its top heuristics (verified with atol, rtol)
  double atol = kProtocolDefaults.atol;
  double rtol = kProtocolDefaults.rtol;
  L2Mode l2 = L2Mode::warm;                     // cuBLAS is timed in the candidates' L2 mode (cuBLASLt always warm)
  BatchEnqueue batches = BatchEnqueue::stream;  // and with their warm batches enqueued the same way
  // Untimed cuBLAS launches on the new problem for this long (ms, 0 to kMaxSettleMs) before anything is timed:
  // the host-side input fill leaves the card cool, and the first timings would meet a clock that sustained load
  // does not hold.
  int settle_ms = 0;
  // Until the next prepare_shape: cuBLAS kept running between requests, and settling before a measurement that
  // finds the card idle (measure/sampling.hpp). Each field 0 to kMaxSettleMs. The shape itself settles for the
  // longer of settle_ms and idle_settle_ms: the host-side fill left the card idle; with cuBLASLt again after its
  // search (after_search_settle_ms).
  ClockHold hold = {};
  // What the problem computes (its layouts and types) and the scalars of D = alpha * A.B + beta * C that every
  // kernel, cuBLAS and cuBLASLt are given; beta only where the kind reads C.
  ProblemKind kind;
  float alpha = 1;
  float beta = 0;
  GemmProblem problem() const { return GemmProblem{shape, kind}; }
};

// The settling after the inputs' fill (ms): the longer of settle_ms and the hold's idle settling.
inline int after_fill_settle_ms(const PrepareShapeRequest& m) {
  return std::max({0, m.settle_ms, m.hold.idle_settle_ms});
}

// The settling after cuBLASLt's search (ms): the hold's idle settling, else settle_ms; 0 without cuBLASLt.
inline int after_search_settle_ms(const PrepareShapeRequest& m) {
  return !m.cublaslt ? 0 : m.hold.idle_settle_ms > 0 ? m.hold.idle_settle_ms : m.settle_ms;
}

struct PrepareShapeReply {
  CublasReference reference;
  // Present when the request asked for it, also when cuBLASLt could not be timed (its message says why): a
  // failing cuBLASLt never fails prepare_shape.
  std::optional<CublasLtReference> cublaslt;
  // Wall time of prepare's untimed launches (after the fill, and again after cuBLASLt's search); 0: none.
  double settled_ms = 0;
  // The worker had kept the shape from an earlier prepare_shape with the same seed: its inputs, reference output
  // and cuBLASLt's choice (`cublaslt` is that search's reply) were reused; it settled and timed cuBLAS again.
  bool inputs_kept = false;
};

struct MeasureRequest {
  std::string family;        // registered family whose arguments the kernel takes; empty: a raw kernel taking
                             // (const __half* A, const __half* B, float* C, int M, int N, int K)
  Params params;             // the family's parameters
  std::vector<char> cubin;   // CompileResult::cubin
  std::string lowered_name;  // CompileResult::lowered_name
  LaunchGeometry geometry;
  double atol = kProtocolDefaults.atol;
  double rtol = kProtocolDefaults.rtol;
  int warmup = kProtocolDefaults.warmup;
  int runs = kProtocolDefaults.runs;
  int iters = kProtocolDefaults.iters;
  bool pair_with_cublas = false;  // time cuBLAS alternately with the candidate (Measurement::paired_cublas)
  L2Mode l2 = L2Mode::warm;
  BatchEnqueue batches = BatchEnqueue::stream;  // warm batches (and the warm screen) as graph replays or host calls
  std::optional<NoiseStop> noise_stop;  // set: batches until the noise target (`runs` ignored); not with pairing
  std::optional<ScreenRule> screen;     // unset: no screening (--no-screen)
  // The best median so far for the shape (ms); unset: the screen runs (its time is the baseline of later screens)
  // but screens nothing out. Once the worker has screened on the shape, screens compare with screens.
  std::optional<double> screen_against_ms;
};

// Sent by the worker as soon as the verification launch has been compared (or has failed).
struct VerifiedReply {
  Status status = Status::ok;
  std::optional<ErrorStats> error;
  double first_launch_ms = 0;  // the verification launch (ms); the coordinator sizes the timing limit from it
  std::string message;
  // Untimed cuBLAS run before this candidate because the card had sat idle (ClockHold::idle_settle_ms), wall time
  // (ms); 0: none.
  double settled_ms = 0;
};

struct ResultReply {
  Measurement measurement;
};

// One already-compiled kernel of a time_interleaved request (what MeasureRequest carries, without the protocol).
struct InterleavedKernel {
  std::string family;  // as MeasureRequest::family
  Params params;
  std::vector<char> cubin;
  std::string lowered_name;
  LaunchGeometry geometry;
  double expected_ms = 0;  // per launch, from its earlier measurement (ms); sizes the coordinator's time limit
};

// Re-times N kernels, cuBLAS and cuBLASLt side by side on the prepared shape (the top-K re-rank): each kernel is
// verified once, then all get `warmup` launches, then `rounds` rounds in which every entry still in (the kernels
// in request order, then cuBLAS, then cuBLASLt) is timed for one batch of `iters` launches, in the order
// interleaved_order gives the round: every entry holds every position and follows every other entry equally often
// over the rounds, so position and predecessor effects (clock and power left by the previous kernel, its cache
// state) cancel.
struct TimeInterleavedRequest {
  std::vector<InterleavedKernel> kernels;
  double atol = kProtocolDefaults.atol;
  double rtol = kProtocolDefaults.rtol;
  int warmup = kProtocolDefaults.warmup;         // launches of each entry before the rounds
  int rounds = kProtocolDefaults.rerank_rounds;  // batches of each entry
  int iters = kProtocolDefaults.iters;           // launches per batch
  // Also time cuBLASLt, running the algorithm that won its best-of-heuristics at prepare_shape. Without one (the
  // shape was prepared without cuBLASLt, or none of its algorithms verified) it is simply not in the rounds and
  // the reply says why (InterleavedReply::cublaslt_message): never an error.
  bool cublaslt = true;
  // Time each batch as a replay of a CUDA graph of its `iters` launches, captured once per entry after the
  // warm-up (WarmBatch), instead of `iters` calls from the host: the batch then runs at the GPU's pace whatever
  // each entry's call costs the host (cublasGemmEx's is several microseconds; a cuLaunchKernelEx's less).
  bool graphs = false;
  // Before the timed rounds, untimed rounds of the same batches until this much wall time has passed (ms; 0:
  // none), so the timed rounds meet the clock that sustained load holds (a power-capped GPU clocks down within a
  // fraction of a second; the README's top-K re-rank section has the H200's figures).
  int settle_ms = 0;  // 0 to kMaxSettleMs
};
inline constexpr int kMaxSettleMs = 600000;  // ten minutes: beyond that a request is refused as malformed

struct InterleavedKernelResult {
  Status status = Status::ok;         // ok, or the failure that dropped it (verification or a faulting batch)
  std::optional<ErrorStats> error;    // its verification's comparison with cuBLAS, when it ran
  std::string message;                // empty when ok and timed in every round
  std::vector<RoundSample> samples;   // every batch timed, in round order (a dropped kernel: until it failed)
  std::optional<TimingStats> timing;  // over `samples` (runs = how many), when it has any
};

struct InterleavedReply {
  std::vector<InterleavedKernelResult> kernels;  // in request order
  std::vector<RoundSample> cublas;               // cuBLAS's batches from the same rounds
  std::optional<TimingStats> cublas_timing;      // over `cublas`
  std::vector<RoundSample> cublaslt;             // cuBLASLt's batches from the same rounds; empty: not in them
  std::optional<TimingStats> cublaslt_timing;    // over `cublaslt`
  std::string cublaslt_message;                  // why cuBLASLt has no samples (not asked, no algorithm, a failure)
  double sm_clock_mhz = 0;                       // read after the rounds (MHz); 0 when unknown
  bool graphs = false;         // the batches were graph replays (asked for, and cuBLAS could be captured)
  std::string graphs_message;  // why they were not, when they were asked for
  double settled_ms = 0;       // wall time of the untimed rounds run before the timed ones (ms); 0: none
  int settle_rounds = 0;       // how many untimed rounds that was
  // A kernel left the context unusable: the rounds stopped there (kernels after it may be ok with fewer or no
  // samples) and the worker exits after this reply.
  bool context_lost = false;
};

enum class ErrorKind {
  no_device,    // no usable driver or GPU
  cuda,         // a CUDA call failed outside of a candidate (code: cudaError_t), e.g. out of memory for a shape
  cublas,       // a cuBLAS call failed (code: cublasStatus_t)
  bad_request,  // the request cannot be served (unknown family, measure before prepare_shape, ...)
  protocol,     // the worker could not read the coordinator's bytes
  internal,     // anything else
};
std::string_view to_string(ErrorKind kind);

struct ErrorReply {
  ErrorKind kind = ErrorKind::internal;
  int code = 0;
  std::string message;
  bool fatal = false;  // the worker exits after sending this
};

struct ShutdownRequest {};

// Where the worker's time went since it started (worker/phase_totals.hpp), asked for at the end of a run so the
// tuner can store it beside its own account.
struct AccountRequest {};
struct AccountReply {
  WorkerPhases phases;
};

using Message = std::variant<HelloRequest, HelloReply, PrepareShapeRequest, PrepareShapeReply, MeasureRequest,
                             VerifiedReply, ResultReply, ErrorReply, ShutdownRequest, TimeInterleavedRequest,
                             InterleavedReply, AccountRequest, AccountReply>;

std::string_view message_type(const Message& message);  // "hello", "device", "prepare_shape", ...

nlohmann::json to_json_message(const Message& message);
Message message_from_json(const nlohmann::json& j);  // throws ProtocolError

std::vector<std::uint8_t> encode_frame(const Message& message);

// Reassembles frames from bytes as they arrive.
class FrameReader {
 public:
  void append(std::span<const std::uint8_t> bytes);
  // The next complete message, or nullopt until more bytes arrive. Throws ProtocolError on an oversized length
  // or a payload that does not decode.
  std::optional<Message> next();
  // Bytes received but not yet returned as a message: nonzero at the end of a stream means a truncated frame.
  std::size_t pending_bytes() const { return buffer_.size() - offset_; }

 private:
  std::vector<std::uint8_t> buffer_;
  std::size_t offset_ = 0;
};

// Exactly one frame: throws ProtocolError when it is truncated or followed by extra bytes.
Message decode_frame(std::span<const std::uint8_t> frame);

}  // namespace mpgemm
