#include "lib/launch_cache.hpp"

namespace mpgemm::lib {

CallCache& CallCache::local() {
  thread_local CallCache cache;
  return cache;
}

CallEntry* CallCache::find(const CallKey& key) {
  // The same call again is the common case (a layer's GEMM in a loop): look there first.
  if (const auto& e = entries_[last_hit_]; e && e->key == key) return e.get();
  for (std::size_t i = 0; i < kEntries; ++i) {
    if (const auto& e = entries_[i]; e && e->key == key) {
      last_hit_ = i;
      return e.get();
    }
  }
  return nullptr;
}

CallEntry& CallCache::insert(const CallKey& key) {
  auto& e = entries_[next_];
  e = std::make_unique<CallEntry>();
  e->key = key;
  last_hit_ = next_;
  next_ = (next_ + 1) % kEntries;
  return *e;
}

}  // namespace mpgemm::lib
