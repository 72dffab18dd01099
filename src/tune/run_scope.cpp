#include "tune/run_scope.hpp"

namespace mpgemm {

RunScope::~RunScope() {
  if (ended_) return;
  try {
    store_.end_run(id_, "failed");
  } catch (...) {
  }
}

void RunScope::finish(bool interrupted) {
  store_.end_run(id_, interrupted ? "interrupted" : "finished");
  ended_ = true;
}

}  // namespace mpgemm
