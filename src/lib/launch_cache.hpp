#pragma once
// The per-call path's memory, one per thread: the last calls' (library, device, stream, problem, A, B, D, C, alpha,
// beta) with
// their slot, stream state and built kernel arguments (the Hopper family's TMA tensor maps depend on the
// pointers, so they are built once per pointer triple, not per call). A hit launches without a lock or an
// allocation; a miss goes through the DeviceState and fills an entry.
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include <cuda_runtime_api.h>

#include "codegen/family.hpp"
#include "lib/device_state.hpp"

namespace mpgemm::lib {

struct CallKey {
  std::uint64_t library = 0;  // Library::Impl's id: never reused, so a destroyed library's entries never match
  int device = -1;
  cudaStream_t stream = nullptr;
  GemmProblem problem;
  const void* a = nullptr;
  const void* b = nullptr;
  const void* c = nullptr;     // D, the output
  const void* c_in = nullptr;  // C, read when problem.kind.beta (may be D); null otherwise
  float alpha = 1;
  float beta = 0;
  friend bool operator==(const CallKey&, const CallKey&) = default;
};

struct CallEntry {
  CallKey key;
  const ShapeSlot* slot = nullptr;
  StreamState* stream = nullptr;
  KernelArgs args;              // empty on the cuBLAS path
  std::vector<void*> pointers;  // args.pointers(): the kernelParams of cuLaunchKernelEx
};

class CallCache {
 public:
  static constexpr std::size_t kEntries = 16;  // distinct calls remembered per thread (round-robin replacement)

  // The calling thread's cache.
  static CallCache& local();

  CallEntry* find(const CallKey& key);
  // A fresh entry for `key` (replacing the oldest); the caller fills slot, stream and args.
  CallEntry& insert(const CallKey& key);

 private:
  std::array<std::unique_ptr<CallEntry>, kEntries> entries_;
  std::size_t next_ = 0;
  std::size_t last_hit_ = 0;
};

}  // namespace mpgemm::lib
