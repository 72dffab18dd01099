#include "compile/compile_pool.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <new>
#include <optional>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "common/error.hpp"

namespace mpgemm {
namespace {

// NVRTC on one spec, retrying failures of the machinery (NvrtcError, host memory) with a growing pause. A
// source that does not compile is a result, returned at once.
CompileResult compile_retrying(const KernelSpec& spec, const CompilePoolOptions& options, int* attempts) {
  const int allowed = std::max(1, options.attempts);
  auto delay = options.retry_delay;
  for (*attempts = 1;; ++*attempts) {
    try {
      return options.compiler ? options.compiler(spec, options.compile) : compile(spec, options.compile);
    } catch (const NvrtcError& e) {
      if (*attempts >= allowed)
        throw NvrtcError(fmt::format("compilation of {}", spec.program_name), e.code(),
                         fmt::format("still failing after {} attempt{} (the machinery, not the config: nothing "
                                     "recorded for it): {}",
                                     *attempts, *attempts == 1 ? "" : "s", e.what()));
    } catch (const std::bad_alloc&) {
      if (*attempts >= allowed) throw;
    }
    std::this_thread::sleep_for(delay);
    delay *= 2;
  }
}

// Compiles `spec` under its claim, unless another process holds the claim and `wait` is false (nullopt).
std::optional<PooledCompile> compile_claimed(const KernelSpec& spec, const std::string& key,
                                             const CompilePoolOptions& options, bool wait) {
  PooledCompile out;
  if (!options.cache) {
    out.result = compile_retrying(spec, options, &out.attempts);
    return out;
  }
  if (auto hit = options.cache->load(key)) return PooledCompile{std::move(*hit), true, 0};
  const CubinCache::Claim claim = options.cache->claim(key, wait);
  if (!claim) return std::nullopt;
  if (auto hit = options.cache->load(key)) return PooledCompile{std::move(*hit), true, 0};  // compiled meanwhile
  out.result = compile_retrying(spec, options, &out.attempts);
  options.cache->store(out.result);  // a cache that cannot be written only costs a recompile later
  return out;
}

std::string key_of(const KernelSpec& spec, const CompilePoolOptions& options) {
  return options.cache ? compile_key(spec, options.compile) : std::string();
}

}  // namespace

PooledCompile compile_cached(const KernelSpec& spec, const CompilePoolOptions& options) {
  return *compile_claimed(spec, key_of(spec, options), options, /*wait=*/true);
}

std::vector<PooledCompile> compile_all(const std::vector<KernelSpec>& specs, const CompilePoolOptions& options,
                                       const CompileProgress& progress) {
  CompilePoolOptions resolved = options;
  if (resolved.compile.cuda_include_dir.empty()) resolved.compile.cuda_include_dir = resolve_cuda_include_dir();

  std::vector<PooledCompile> results(specs.size());
  int threads = resolved.threads;
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const std::size_t workers = std::min(static_cast<std::size_t>(threads), specs.size());

  std::mutex mutex;  // guards everything below it
  std::size_t next = 0;
  std::vector<std::size_t> put_off;  // specs whose key another process was compiling
  std::size_t done = 0;
  std::exception_ptr failure;         // a machinery failure that persisted, or another error: stops the pool
  std::exception_ptr progress_error;  // the first exception of the progress callback

  // The next spec to do, and whether to wait for its claim; nullopt when nothing is left or the pool stops.
  auto take = [&]() -> std::optional<std::pair<std::size_t, bool>> {
    std::lock_guard lock(mutex);
    if (failure) return std::nullopt;
    if (next < specs.size()) return std::pair{next++, false};
    if (!put_off.empty()) {
      const std::size_t i = put_off.front();
      put_off.erase(put_off.begin());
      return std::pair{i, true};
    }
    return std::nullopt;
  };
  auto work = [&] {
    while (auto item = take()) {
      const auto [i, wait] = *item;
      std::optional<PooledCompile> r;
      try {
        r = compile_claimed(specs[i], key_of(specs[i], resolved), resolved, wait);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!failure) failure = std::current_exception();
        return;
      }
      std::lock_guard lock(mutex);
      if (!r) {
        put_off.push_back(i);
        continue;
      }
      results[i] = std::move(*r);
      ++done;
      if (progress && !progress_error) {
        try {
          progress(done, specs.size());
        } catch (...) {
          progress_error = std::current_exception();
        }
      }
    }
  };
  std::vector<std::thread> pool;
  try {
    for (std::size_t t = 0; t < workers; ++t) pool.emplace_back(work);
  } catch (const std::system_error&) {
    // the system refused another thread: carry on with those already running
  }
  if (pool.empty()) work();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  if (progress_error) std::rethrow_exception(progress_error);
  return results;
}

}  // namespace mpgemm
