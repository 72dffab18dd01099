#pragma once
// The measuring side of a run: a ready queue of (config, shape) pairs whose cubins are at hand, and one lane
// (a thread) per backend that takes pairs from it, prepares the shape on its device when it changes, claims
// the result key against other processes, measures, and hands every outcome back to the coordinator as an
// event. Lanes never write to the store: the coordinator records (tune/recorder.hpp).
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <variant>
#include <vector>

#include "compile/compile_pool.hpp"
#include "tune/backend.hpp"
#include "tune/claims.hpp"
#include "tune/plan.hpp"
#include "tune/time_account.hpp"

namespace mpgemm {

struct MeasureItem {
  const PlannedConfig* config = nullptr;  // a Plan entry (stable)
  std::size_t entry = 0;                  // its index in the Plan
  std::size_t shape = 0;                  // index into the run's shapes
  std::string result_key;
  std::optional<double> screen_against_ms;  // the best time so far on the shape, for the worker's screen
  bool wait_for_claim = false;              // another process held the claim when this item was first met: wait for it
  // When its cubin was ready (the compile service's callback); the epoch for a cubin compiled or found before the
  // lane could wait for it. A lane's wait is split at this moment (tune/time_account.hpp).
  std::chrono::steady_clock::time_point compiled_at{};
};

// Events from the compile service and the lanes to the coordinator, in the order they happened per source.
struct CompiledEvent {
  std::size_t entry = 0;
  std::chrono::steady_clock::time_point done_at{};
  std::optional<PooledCompile> result;
  std::exception_ptr error;
};
struct ReferenceEvent {
  std::size_t lane = 0;
  std::size_t shape = 0;
  ShapeReference reference;
};
struct MeasuredEvent {
  std::size_t lane = 0;
  MeasureItem item;
  std::optional<Measurement> measurement;  // nullopt: already recorded by another process, or not in a replay
  bool recorded_elsewhere = false;
  std::shared_ptr<Claims::Held> claim;  // held until the coordinator has recorded the outcome
};
struct DeferredEvent {  // another process holds the claim
  MeasureItem item;
};
struct LaneFailedEvent {
  std::size_t lane = 0;
  std::exception_ptr error;
};
using TuneEvent = std::variant<CompiledEvent, ReferenceEvent, MeasuredEvent, DeferredEvent, LaneFailedEvent>;

class EventQueue {
 public:
  void push(TuneEvent e);
  // The next event, or nullopt after `timeout`.
  std::optional<TuneEvent> pop(std::chrono::milliseconds timeout);

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<TuneEvent> events_;
};

class ReadyQueue {
 public:
  void push(MeasureItem item);
  // Blocks until an item is there or the queue is closed (then nullopt). Takes an item of `prefer` first (a lane
  // stays on its prepared shape), else the one of the lowest shape index, first in first out.
  std::optional<MeasureItem> pop(std::optional<std::size_t> prefer);
  void close();
  std::size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<MeasureItem> items_;
  bool closed_ = false;
};

struct LaneSettings {
  const std::vector<Shape>* shapes = nullptr;
  double max_spread = 0.10;  // tune/noise.hpp
  std::filesystem::path db;  // for the claims and the check that another process has not recorded a key
};

class MeasureLanes {
 public:
  MeasureLanes(std::vector<MeasureBackend*> backends, ReadyQueue& ready, EventQueue& events, LaneSettings settings);
  ~MeasureLanes();  // closes the ready queue and joins
  MeasureLanes(const MeasureLanes&) = delete;
  MeasureLanes& operator=(const MeasureLanes&) = delete;

  // Seconds each lane spent in its backend (preparing shapes, measuring): the device's busy time.
  std::vector<double> busy_seconds() const;
  // Each lane's account, "lane N" (after join()).
  std::vector<TimeAccount> accounts() const;
  void join();

 private:
  void run(std::size_t lane);

  std::vector<MeasureBackend*> backends_;
  ReadyQueue& ready_;
  EventQueue& events_;
  LaneSettings settings_;
  Claims claims_;
  mutable std::mutex mutex_;
  std::vector<double> busy_;
  std::vector<PhaseClock<LanePhase>> clocks_;  // each touched by its lane's thread only, read after join()
  std::map<std::size_t, double> best_;         // shape -> the fastest ok median the lanes measured (ms), for the screen
  std::vector<std::thread> threads_;
};

}  // namespace mpgemm
