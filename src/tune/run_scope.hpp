#pragma once
// The `runs` row of one tuning run: begun when the scope opens and ended exactly once, "finished" or
// "interrupted" through finish(), "failed" when the scope closes without it (an exception left the run).
#include <cstdint>

#include "store/store.hpp"

namespace mpgemm {

class RunScope {
 public:
  RunScope(Store& store, const RunInfo& info) : store_(store), id_(store.begin_run(info)) {}
  ~RunScope();  // ends the run "failed" unless finish() was called; never throws
  RunScope(const RunScope&) = delete;
  RunScope& operator=(const RunScope&) = delete;

  std::int64_t id() const { return id_; }
  void finish(bool interrupted);

 private:
  Store& store_;
  std::int64_t id_;
  bool ended_ = false;
};

}  // namespace mpgemm
