#include "compile/compile_pool.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

#include <fmt/format.h>

namespace mpgemm {
namespace {

CompileResult failed(const KernelSpec& spec, const CompileOptions& options, const std::exception& e) {
  CompileResult r;
  r.status = Status::compile_failed;
  r.arch = spec.arch;
  r.log = fmt::format("mpgemm: compilation of {} did not run to completion: {}", spec.program_name, e.what());
  try {
    r.compile_key = compile_key(spec, options);
  } catch (const std::exception&) {
    // the key needs NVRTC too; leave it empty when NVRTC is what failed
  }
  return r;
}

}  // namespace

std::vector<CompileResult> compile_all(const std::vector<KernelSpec>& specs, int threads,
                                       const CompileProgress& progress, const CompileOptions& options) {
  CompileOptions resolved = options;
  if (resolved.cuda_include_dir.empty()) resolved.cuda_include_dir = resolve_cuda_include_dir();

  std::vector<CompileResult> results(specs.size());
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const std::size_t workers = std::min(static_cast<std::size_t>(threads), specs.size());

  std::atomic<std::size_t> next{0};
  std::mutex progress_mutex;
  std::size_t done = 0;
  std::exception_ptr progress_error;
  auto work = [&] {
    for (std::size_t i = next++; i < specs.size(); i = next++) {
      try {
        results[i] = compile(specs[i], resolved);
      } catch (const std::exception& e) {
        results[i] = failed(specs[i], resolved, e);
      }
      std::lock_guard lock(progress_mutex);
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
  if (progress_error) std::rethrow_exception(progress_error);
  return results;
}

}  // namespace mpgemm
