#pragma once
// Compiles many KernelSpecs on a pool of threads, the cubin cache first. Results come back in input order. A
// config whose source does not compile is a compile_failed result and never stops the others; a failure of
// the machinery (NvrtcError: NVRTC out of memory, a missing header, ...) is retried, and when it persists it
// is an error of the whole call, never a config's outcome.
#include <chrono>
#include <cstddef>
#include <functional>
#include <vector>

#include "codegen/family.hpp"
#include "common/records.hpp"
#include "compile/cubin_cache.hpp"
#include "compile/nvrtc_compile.hpp"

namespace mpgemm {

// Called after each spec with the number finished so far; calls are serialized, never concurrent.
using CompileProgress = std::function<void(std::size_t done, std::size_t total)>;

// What runs NVRTC: compile() unless a test stands in for it.
using Compiler = std::function<CompileResult(const KernelSpec&, const CompileOptions&)>;

struct CompilePoolOptions {
  int threads = 0;                             // <= 0: std::thread::hardware_concurrency()
  CompileOptions compile;                      // include directory and extra NVRTC options
  const CubinCache* cache = nullptr;           // looked up before compiling, fed after; nullptr: none
  int attempts = 3;                            // NVRTC runs of one spec before a machinery failure is final
  std::chrono::milliseconds retry_delay{250};  // before the second attempt; doubles for each further one
  Compiler compiler;                           // empty: compile()
};

// One spec's compilation as the pool made it.
struct PooledCompile {
  CompileResult result;
  bool from_cache = false;  // taken from the cubin cache: NVRTC did not run here
  int attempts = 0;         // NVRTC runs, retries included; 0 from the cache
};

// One spec the pool's way: the cache, else NVRTC under the key's claim (waiting while another process
// compiles the same key, then reading its entry), retrying machinery failures, the result kept in the cache.
// Throws NvrtcError when the machinery still fails after options.attempts runs.
PooledCompile compile_cached(const KernelSpec& spec, const CompilePoolOptions& options);

// Every spec, on options.threads threads. A key another process is compiling is put off until the rest is
// done, then waited for. Throws NvrtcError up front when the toolkit headers cannot be found, and after every
// thread has joined: the first machinery failure that persisted (no further spec is started once one has),
// else the first exception a progress callback threw. What finished before is in the cache.
std::vector<PooledCompile> compile_all(const std::vector<KernelSpec>& specs, const CompilePoolOptions& options = {},
                                       const CompileProgress& progress = {});

}  // namespace mpgemm
