#pragma once
// Small value types shared by every layer: the problem shape, the target architecture, the candidate status.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mpgemm {

// C (M x N, FP32, row-major) = A (M x K, FP16, row-major) * B (K x N, FP16, row-major), FP32 accumulate.
struct Shape {
  std::int64_t m = 2048;  // rows of A and C
  std::int64_t n = 2048;  // columns of B and C
  std::int64_t k = 2048;  // columns of A, rows of B
  double flops() const { return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k); }
  std::string str() const;  // "2048x2048x2048" (M x N x K)
  friend bool operator==(const Shape&, const Shape&) = default;
};

// A compilation target: sm_86, sm_90, sm_90a (arch-specific features such as wgmma need the "a" variant).
struct Arch {
  int major = 8;
  int minor = 6;
  bool arch_specific = false;  // the "a" suffix
  int cc() const { return major * 10 + minor; }
  std::string str() const;  // "sm_90a"
  // Accepts "sm_86", "sm_90a", "86", "90a"; nullopt for anything else.
  static std::optional<Arch> parse(std::string_view text);
  friend bool operator==(const Arch&, const Arch&) = default;
};

// How one candidate ended. Every candidate gets exactly one; none of them means "retry": all are results.
enum class Status {
  ok,                   // compiled, verified against cuBLAS and timed (compile-only: compiled)
  compile_failed,       // NVRTC rejected the source; the log is kept
  resources_exceeded,   // registers, shared memory or threads over the device's limits, found before launch
  launch_failed,        // the launch itself was refused (bad configuration, out of resources at launch)
  runtime_fault,        // the kernel faulted (illegal address, misaligned access, trap): the worker was replaced
  timeout,              // the kernel did not finish within the time limit: the worker was killed
  incorrect,            // ran, but the result differs from cuBLAS beyond atol + rtol*|ref| or holds NaN
  constraint_rejected,  // the configuration or the shape is outside what the family can run
  pruned,               // compiled, but its resources make timing it pointless (spills): never launched
  screened_out,         // verified, but its first launches were far slower than the best so far for the shape
                        // (measure/sampling.hpp ScreenRule): not timed through the full protocol; its timing holds
                        // the screening launches' median
};

std::string_view to_string(Status s);
std::optional<Status> status_from_string(std::string_view text);

// The state of L2 when a timed launch starts.
enum class L2Mode {
  warm,  // launches back to back: A and B stay in L2 between launches when they fit (the writeup's protocol)
  cold,  // a buffer of at least twice the L2 size is written before every timed launch, outside its events
};

std::string_view to_string(L2Mode mode);  // "warm", "cold"
std::optional<L2Mode> l2_mode_from_string(std::string_view text);

// How a warm batch of launches reaches the GPU. A batch of microsecond launches enqueued call by call runs at the
// host's pace whenever a call costs the host more than its kernel takes the GPU (cublasGemmEx can, at small shapes:
// docs/findings.md, "Host-bound references at microsecond shapes"); replayed as one captured graph it runs at the
// GPU's pace.
enum class BatchEnqueue {
  stream,  // `iters` calls from the host between two events (the writeup's protocol)
  graph,   // the `iters` calls captured once as a CUDA graph, each batch one replay between two events
};

std::string_view to_string(BatchEnqueue how);  // "stream", "graph"
std::optional<BatchEnqueue> batch_enqueue_from_string(std::string_view text);

}  // namespace mpgemm
