#pragma once
// Where a worker's time went, summed over the measurements it served: said on stderr (the tuner's log) when it
// stops, so a slow run shows whether the device was timing or the pipeline around it was busy.
#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

namespace mpgemm {

struct WorkerPhases {
  int measurements = 0;
  double waiting_s = 0;    // blocked on the coordinator: reading the next request (includes its decoding)
  double setup_s = 0;      // loading and unloading cubins, fitting grids, building arguments
  double verifying_s = 0;  // poisoning, the verification launch, the comparison with cuBLAS
  double timing_s = 0;     // the screen, the timing protocol, the clock reading
  double replying_s = 0;   // writing the replies
  double preparing_s = 0;  // prepare_shape: inputs, cuBLAS and cuBLASLt references
  int shapes = 0;
  int reranks = 0;             // time_interleaved requests served
  double reranking_s = 0;      // their loading, verification, timed rounds and replies
  double settling_s = 0;       // their untimed rounds before the timed ones (settle_ms)
  double keeping_warm_s = 0;   // untimed cuBLAS between requests (ClockHold::keep_warm_ms); not in waiting_s
  int idle_settles = 0;        // measurements that found the card idle and settled it first
  double idle_settling_s = 0;  // their untimed cuBLAS (ClockHold::idle_settle_ms)

  double total_s() const {
    return waiting_s + setup_s + verifying_s + timing_s + replying_s + preparing_s + reranking_s + settling_s +
           keeping_warm_s + idle_settling_s;
  }
  // One line: "N measurements, S shapes in T s: timing X s (P%), verifying ..., ...[, re-ranking ... (R re-ranks),
  // settling ...][, keeping warm ...][, settling after idle ... (N time(s))]; per measurement ...".
  std::string summary() const;
};

// As the worker protocol's worker_account and runs.time_accounts carry it: every count and phase by its field name.
nlohmann::json to_json(const WorkerPhases& p);
// Throws nlohmann::json's exceptions for a missing or mistyped field.
WorkerPhases worker_phases_from_json(const nlohmann::json& j);

// Seconds since `start` on the steady clock.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace mpgemm
