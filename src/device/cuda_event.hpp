#pragma once
// Owned CUDA runtime handles for timing: an event, and an instantiated graph. Movable, not copyable; destroyed with
// their owner, also when a constructor throws half-way.
#include <memory>
#include <type_traits>

#include <cuda_runtime_api.h>

#include "device/cuda_check.hpp"

namespace mpgemm {

class Event {
 public:
  Event() {
    cudaEvent_t e = nullptr;
    MPGEMM_CUDA(cudaEventCreate(&e));
    event_.reset(e);
  }
  cudaEvent_t get() const { return event_.get(); }

 private:
  struct Destroy {
    void operator()(cudaEvent_t e) const { (void)cudaEventDestroy(e); }
  };
  std::unique_ptr<std::remove_pointer_t<cudaEvent_t>, Destroy> event_;
};

// Milliseconds between two recorded events, after waiting for `stop`.
inline float elapsed_ms(const Event& start, const Event& stop) {
  MPGEMM_CUDA(cudaEventSynchronize(stop.get()));
  float ms = 0;
  MPGEMM_CUDA(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms;
}

struct DestroyGraphExec {
  void operator()(cudaGraphExec_t e) const { (void)cudaGraphExecDestroy(e); }
};
using GraphExec = std::unique_ptr<std::remove_pointer_t<cudaGraphExec_t>, DestroyGraphExec>;

}  // namespace mpgemm
