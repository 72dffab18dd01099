#include "tune/measure_lanes.hpp"

#include <algorithm>

#include "store/store.hpp"
#include "tune/noise.hpp"

#include <fmt/format.h>

namespace mpgemm {

void EventQueue::push(TuneEvent e) {
  {
    std::lock_guard lock(mutex_);
    events_.push_back(std::move(e));
  }
  ready_.notify_one();
}

std::optional<TuneEvent> EventQueue::pop(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  if (!ready_.wait_for(lock, timeout, [&] { return !events_.empty(); })) return std::nullopt;
  TuneEvent e = std::move(events_.front());
  events_.pop_front();
  return e;
}

void ReadyQueue::push(MeasureItem item) {
  {
    std::lock_guard lock(mutex_);
    items_.push_back(std::move(item));
  }
  ready_.notify_one();
}

std::optional<MeasureItem> ReadyQueue::pop(std::optional<std::size_t> prefer) {
  std::unique_lock lock(mutex_);
  ready_.wait(lock, [&] { return closed_ || !items_.empty(); });
  if (items_.empty()) return std::nullopt;
  auto pick = items_.end();
  if (prefer) pick = std::find_if(items_.begin(), items_.end(), [&](auto& i) { return i.shape == *prefer; });
  if (pick == items_.end())
    pick = std::min_element(items_.begin(), items_.end(), [](auto& a, auto& b) { return a.shape < b.shape; });
  MeasureItem item = std::move(*pick);
  items_.erase(pick);
  return item;
}

void ReadyQueue::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    items_.clear();
  }
  ready_.notify_all();
}

std::size_t ReadyQueue::size() const {
  std::lock_guard lock(mutex_);
  return items_.size();
}

MeasureLanes::MeasureLanes(std::vector<MeasureBackend*> backends, ReadyQueue& ready, EventQueue& events,
                           LaneSettings settings)
    : backends_(std::move(backends)),
      ready_(ready),
      events_(events),
      settings_(std::move(settings)),
      claims_(settings_.db),
      busy_(backends_.size(), 0.0),
      clocks_(backends_.size(), PhaseClock<LanePhase>(LanePhase::waiting_for_coordinator)) {
  for (std::size_t i = 0; i < backends_.size(); ++i) threads_.emplace_back([this, i] { run(i); });
}

MeasureLanes::~MeasureLanes() {
  join();
}

void MeasureLanes::join() {
  ready_.close();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
}

std::vector<double> MeasureLanes::busy_seconds() const {
  std::lock_guard lock(mutex_);
  return busy_;
}

std::vector<TimeAccount> MeasureLanes::accounts() const {
  std::vector<TimeAccount> out;
  for (std::size_t i = 0; i < clocks_.size(); ++i) out.push_back(account_of(fmt::format("lane {}", i), clocks_[i]));
  return out;
}

void MeasureLanes::run(std::size_t lane) {
  try {
    MeasureBackend& backend = *backends_[lane];
    // Its own connection: only to see whether another process recorded a key since the run planned it.
    const Store store = Store::open(settings_.db, Store::Mode::read_only);
    PhaseClock<LanePhase>& clock = clocks_[lane];
    clock = PhaseClock<LanePhase>(LanePhase::waiting_for_coordinator);  // from the thread's start
    std::optional<std::size_t> prepared;
    for (;;) {
      const auto asked = std::chrono::steady_clock::now();
      std::optional<MeasureItem> item = ready_.pop(prepared);
      if (!item) {  // the queue was closed: the wait was for the run's end
        clock.enter(LanePhase::waiting_for_coordinator);
        clock.move(LanePhase::waiting_for_coordinator, LanePhase::after_last,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count());
        break;
      }
      // The part of the wait before the item's cubin was ready was a wait for its compile.
      clock.enter(LanePhase::waiting_for_coordinator);  // the wait counted up to now
      clock.move(LanePhase::waiting_for_coordinator, LanePhase::waiting_for_compiles,
                 std::chrono::duration<double>(item->compiled_at - asked).count());
      std::shared_ptr<Claims::Held> claim;
      {
        PhaseScope in(clock, LanePhase::claiming);
        claim = std::make_shared<Claims::Held>(claims_.take(item->result_key, item->wait_for_claim));
      }
      if (!*claim) {
        events_.push(DeferredEvent{std::move(*item)});
        continue;
      }
      bool elsewhere = false;
      {
        PhaseScope in(clock, LanePhase::checking);
        elsewhere = store.has_measurement(item->result_key);
      }
      if (elsewhere) {
        events_.push(MeasuredEvent{lane, std::move(*item), std::nullopt, true, claim});
        continue;
      }
      const Shape& shape = (*settings_.shapes)[item->shape];
      PhaseScope working(clock, LanePhase::in_worker);
      const auto start = std::chrono::steady_clock::now();
      if (prepared != item->shape) {
        events_.push(ReferenceEvent{lane, item->shape, backend.prepare_shape(shape)});
        prepared = item->shape;
      }
      const PlannedConfig& c = *item->config;
      // A replay compiles nothing; it finds the recording by the arch the config would be compiled for (sm_90a
      // for the wgmma family on an sm_90 device).
      CompileResult uncompiled;
      uncompiled.arch = c.spec.arch;
      // The screen compares against the best so far on the shape: what the coordinator knew when it queued the
      // item (earlier runs included), or what any lane has measured since, whichever is faster.
      std::optional<double> best = item->screen_against_ms;
      {
        std::lock_guard lock(mutex_);
        if (auto it = best_.find(item->shape); it != best_.end() && (!best || it->second < *best)) best = it->second;
      }
      std::optional<Measurement> m = measure_steady(backend, c.candidate, c.compiled ? *c.compiled : uncompiled, shape,
                                                    settings_.max_spread, best);
      {
        std::lock_guard lock(mutex_);
        busy_[lane] += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (m && m->status == Status::ok && m->timing && m->timing->median_ms > 0) {
          auto [it, fresh] = best_.try_emplace(item->shape, m->timing->median_ms);
          if (!fresh) it->second = std::min(it->second, m->timing->median_ms);
        }
      }
      events_.push(MeasuredEvent{lane, std::move(*item), std::move(m), false, claim});
    }
    clock.settle();
  } catch (...) {
    clocks_[lane].settle();
    events_.push(LaneFailedEvent{lane, std::current_exception()});
  }
}

}  // namespace mpgemm
