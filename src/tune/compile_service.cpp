#include "tune/compile_service.hpp"

#include <algorithm>

namespace mpgemm {

CompileService::CompileService(CompilePoolOptions options, std::function<void(Done)> on_done)
    : options_(std::move(options)), on_done_(std::move(on_done)) {
  const int n =
      options_.threads > 0 ? options_.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (int i = 0; i < n; ++i) threads_.emplace_back([this] { loop(); });
}

CompileService::~CompileService() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    queue_.clear();
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

void CompileService::submit(std::size_t tag, KernelSpec spec) {
  {
    std::lock_guard lock(mutex_);
    queue_.emplace_back(tag, std::move(spec));
  }
  wake_.notify_one();
}

std::size_t CompileService::in_flight() const {
  std::lock_guard lock(mutex_);
  return queue_.size() + running_;
}

void CompileService::loop() {
  for (;;) {
    std::pair<std::size_t, KernelSpec> job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
    }
    Done done;
    done.tag = job.first;
    try {
      done.result = compile_cached(job.second, options_);
    } catch (...) {
      done.error = std::current_exception();
    }
    {
      std::lock_guard lock(mutex_);
      --running_;
    }
    on_done_(std::move(done));
  }
}

}  // namespace mpgemm
