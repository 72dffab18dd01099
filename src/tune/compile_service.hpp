#pragma once
// Compiles on a pool of threads while the run measures: specs go in as the plan needs them, results come out
// as they finish (through `on_done`, called on a pool thread), the cubin cache checked first
// (compile/compile_pool.hpp compile_cached: another process compiling the same key is waited for, never
// duplicated). A failure of the machinery that persists after retries comes back as `error`, never as a
// config's compile_failed.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "compile/compile_pool.hpp"

namespace mpgemm {

class CompileService {
 public:
  struct Done {
    std::size_t tag = 0;                  // what submit() was given
    std::optional<PooledCompile> result;  // absent when `error` is set
    std::exception_ptr error;             // NvrtcError: the machinery failed
  };

  // options.threads threads (<= 0: one per hardware thread).
  CompileService(CompilePoolOptions options, std::function<void(Done)> on_done);
  ~CompileService();  // drops what has not started, waits for what has
  CompileService(const CompileService&) = delete;
  CompileService& operator=(const CompileService&) = delete;

  void submit(std::size_t tag, KernelSpec spec);
  std::size_t threads() const { return threads_.size(); }
  // Specs submitted and not yet done (queued or compiling).
  std::size_t in_flight() const;

 private:
  void loop();

  CompilePoolOptions options_;
  std::function<void(Done)> on_done_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::pair<std::size_t, KernelSpec>> queue_;
  std::size_t running_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace mpgemm
