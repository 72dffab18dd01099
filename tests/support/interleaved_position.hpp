#pragma once
// Where an entry of the re-rank's rounds runs in a round (its index in interleaved_order), for tests that check the
// positions the worker or the replay backend stored.
#include <algorithm>
#include <vector>

#include "worker/interleaved.hpp"

namespace mpgemm::testing {

// `entry`'s place in round `round` among the active entries; active.size() when it is not in the round.
inline int interleaved_position(int round, const std::vector<bool>& active, int entry) {
  const auto order = interleaved_order(round, active);
  return static_cast<int>(std::find(order.begin(), order.end(), entry) - order.begin());
}

}  // namespace mpgemm::testing
