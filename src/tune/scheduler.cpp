#include "tune/scheduler.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "compile/cubin_cache.hpp"
#include "tune/compile_service.hpp"
#include "tune/measure_lanes.hpp"
#include "tune/strategy/evaluate.hpp"

namespace mpgemm {

namespace {

using Clock = std::chrono::steady_clock;

struct ShapeState {
  std::unique_ptr<Strategy> strategy;
  std::size_t in_flight = 0;  // proposed, not yet observed
  std::size_t proposals = 0;  // configs its strategy proposed so far: the next one's place in the search order
  std::optional<double> best_ms;
  Clock::time_point deadline = Clock::time_point::max();
};

Observation observation_of(const PlannedConfig& c, const Measurement& m) {
  Observation o;
  o.params = c.candidate.params;
  o.status = m.status;
  if (m.status == Status::ok && m.timing && m.timing->median_ms > 0) o.ms = m.timing->median_ms;
  if (c.compiled) {
    o.registers = c.compiled->registers;
    o.shared_bytes = c.compiled->shared_bytes + std::max(c.compiled->dynamic_shared_bytes, 0);
    o.spill_bytes = std::max(c.compiled->spill_store_bytes, 0) + std::max(c.compiled->spill_load_bytes, 0);
  } else if (c.stored) {
    o.registers = c.stored->registers;
    o.shared_bytes = c.stored->shared_bytes + std::max(c.stored->dynamic_shared_bytes, 0);
    o.spill_bytes = std::max(c.stored->spill_store_bytes, 0) + std::max(c.stored->spill_load_bytes, 0);
  }
  return o;
}

class Coordinator {
 public:
  Coordinator(const RunContext& run, const SchedulerSettings& s, const SchedulerObserver& obs)
      : plan_(run.plan),
        recorder_(run.recorder),
        store_(run.store),
        space_(run.space),
        family_(run.family),
        plan_device_(run.plan_device),
        s_(s),
        obs_(obs),
        cache_(s.compile.cache),
        shapes_(s.shapes.size()) {
    const std::size_t compile_threads =
        s.compile.threads > 0 ? std::size_t(s.compile.threads) : std::max(1u, std::thread::hardware_concurrency());
    window_ = s.replay ? 64 : std::max<std::size_t>(8, 2 * compile_threads + 2 * s.backends.size());
    if (!s.backends.empty()) measuring_device_ = s.backends.front()->device();
  }

  SchedulerReport run() {
    const auto start = Clock::now();
    if (s_.time_budget) run_deadline_ = start + *s_.time_budget;
    std::optional<CompileService> compiler;
    if (!s_.replay)
      compiler.emplace(s_.compile, [this](CompileService::Done d) {
        events_.push(CompiledEvent{d.tag, Clock::now(), std::move(d.result), d.error});
      });
    compiler_ = compiler ? &*compiler : nullptr;
    std::optional<MeasureLanes> lanes;
    if (!s_.backends.empty())
      lanes.emplace(s_.backends, ready_, events_, LaneSettings{&s_.shapes, s_.max_spread, s_.db});

    while (!finished()) {
      if (s_.stop_requested()) {
        report_.stopped = true;
        break;
      }
      top_up();
      if (finished()) break;
      std::optional<TuneEvent> e;
      {
        PhaseScope waiting(clock_, CoordinatorPhase::waiting);
        e = events_.pop(std::chrono::milliseconds(200));
      }
      if (e) {
        handle(std::move(*e));
        // Whatever else has arrived is handled before the next top-up, so a strategy that refits on new outcomes
        // (model: ~20 ms over a few thousand prior rows) refits once for all of them. One refit per outcome left
        // the coordinator behind the lane at shapes measured in milliseconds, and the GPU waiting for requests.
        while (auto more = events_.pop(std::chrono::milliseconds(0))) handle(std::move(*more));
      }
    }
    // Stopping: what the lanes are measuring is still recorded; queued work is dropped.
    if (lanes) {
      lanes->join();
      report_.lane_busy_s = lanes->busy_seconds();
      report_.lanes = lanes->accounts();
    }
    compiler.reset();
    while (auto e = events_.pop(std::chrono::milliseconds(0))) {
      if (std::holds_alternative<MeasuredEvent>(*e) || std::holds_alternative<ReferenceEvent>(*e) ||
          std::holds_alternative<CompiledEvent>(*e))
        handle(std::move(*e));
    }
    report_.measure_wall_s = std::chrono::duration<double>(Clock::now() - start).count();
    clock_.settle();
    report_.coordinator = account_of("coordinator", clock_);
    if (lane_error_) std::rethrow_exception(lane_error_);
    return report_;
  }

 private:
  // No lane measures: compile-only runs, and runs whose lane failed (the compilations still finish and are kept).
  bool compile_only() const { return s_.backends.empty() || lane_error_; }
  std::size_t shape_count() const { return s_.backends.empty() ? 1 : shapes_.size(); }

  bool finished() const {
    if (cursor_ < shape_count()) return false;
    if (compiles_in_flight_ > 0) return false;
    return std::all_of(shapes_.begin(), shapes_.end(), [](auto& st) { return st.in_flight == 0; });
  }

  void start_shape(std::size_t s) {
    PhaseScope switching(clock_, CoordinatorPhase::switching);
    StrategyContext ctx;
    ctx.space = &space_;
    ctx.shape = s_.shapes[s];
    ctx.seed = s_.seed + s;
    ctx.budget = s_.budget;
    ctx.options = s_.strategy_options;
    if (strategy_info(s_.strategy).learns_from_prior) ctx.prior = prior_for(s);
    // The space is walked once for every shape (a leaders run over a large space walked it once per shape).
    if (!admissible_)
      admissible_ = s_.admissible.empty() ? std::make_shared<AdmissibleIndexes>(space_)
                                          : std::make_shared<AdmissibleIndexes>(s_.admissible);
    ctx.admissible = admissible_;
    shapes_[s].strategy = make_strategy(s_.strategy, std::move(ctx));
    if (run_deadline_) {
      const auto now = Clock::now();
      const auto left = *run_deadline_ > now ? *run_deadline_ - now : Clock::duration::zero();
      shapes_[s].deadline = now + left / (shape_count() - s);
    }
  }

  // What the database holds of the family at the other shapes on the measuring device (earlier runs, and this
  // run's shapes searched before this one): a surrogate's head start.
  std::vector<PriorObservation> prior_for(std::size_t s) const {
    std::vector<PriorObservation> prior;
    if (measuring_device_.name.empty()) return prior;
    // Its own read-only connection: the store's user queries are refused on the writer's.
    const Store reader = Store::open(s_.db, Store::Mode::read_only);
    for (Recording& r : load_recordings(reader, std::string(family_.name()), plan_.kind()))
      if (r.shape != s_.shapes[s] && r.device_name == measuring_device_.name)
        prior.push_back({r.shape, std::move(r.observation)});
    if (!prior.empty())
      obs_.note(fmt::format("shape {}: strategy {} starts from {} measurement(s) of the family at other shapes",
                            s_.shapes[s].str(), s_.strategy, prior.size()));
    return prior;
  }

  // Asks the current shape's strategy for configs while the window has room.
  void top_up() {
    while (cursor_ < shape_count()) {
      ShapeState& st = shapes_[cursor_];
      if (!st.strategy) {
        // A strategy that learns from the other shapes waits for the previous shape's last outcomes: they are
        // its prior. The others start at once, so the lanes never wait at a shape boundary.
        if (cursor_ > 0 && shapes_[cursor_ - 1].in_flight > 0 && strategy_info(s_.strategy).learns_from_prior) return;
        start_shape(cursor_);
      }
      if (st.strategy->done() || Clock::now() >= st.deadline) {
        ++cursor_;
        continue;
      }
      if (st.in_flight >= window_) return;
      std::vector<Params> proposals;
      {
        PhaseScope proposing(clock_, CoordinatorPhase::proposing);
        proposals = st.strategy->propose(window_ - st.in_flight);
      }
      if (proposals.empty()) {
        if (st.in_flight == 0) ++cursor_;  // nothing to wait for: the strategy has nothing more to say
        return;
      }
      for (auto& p : proposals) propose(cursor_, p);
    }
  }

  void propose(std::size_t s, const Params& params) {
    PhaseScope planning(clock_, CoordinatorPhase::planning);
    // The shard is decided by the place in the search order, before any filter: the same on every machine.
    const std::size_t ordinal = shapes_[s].proposals++;
    if (s_.shard && !s_.shard->takes(ordinal, s)) {
      ++report_.other_shards;
      return;
    }
    if (s_.selected && !s_.selected(plan_.candidate(params))) {
      Observation o;
      o.params = params;
      o.status = Status::constraint_rejected;
      shapes_[s].strategy->observe(o);
      return;
    }
    ++report_.proposed;
    const std::size_t i = plan_.add(params);
    PlannedConfig& e = plan_.at(i);
    ShapeState& st = shapes_[s];
    if (lane_error_) {
      Observation o;
      o.params = params;
      o.status = Status::launch_failed;
      st.strategy->observe(o);
      if (!e.compile_status() && !e.rejected) request_compile(i);
      return;
    }
    if (compile_only()) {
      const bool have = e.stored && (e.stored->status != Status::ok || (cache_ && cache_->contains(e.compile_key)));
      if (have || e.rejected) {
        observe(s, e,
                e.rejected ? Measurement::unmeasured(Status::constraint_rejected, *e.rejected)
                           : Measurement::unmeasured(e.stored->status, ""));
        progress(e);  // done before this run (or not for this arch): still one of the pass's configs
        return;
      }
      ++st.in_flight;
      request_compile(i);
      return;
    }
    const Shape& shape = s_.shapes[s];
    std::string key = plan_.result_key(i, measuring_device_, shape, s_.measure);
    if (auto known = recorder_store_find(key)) {
      ++report_.measured_before;
      observe(s, e, known->measurement);
      progress(e);
      return;
    }
    ++st.in_flight;
    if (e.rejected) {
      // Decided before compiling, on a GPU and in a replay alike.
      record(i, s, key, Measurement::unmeasured(Status::constraint_rejected, *e.rejected), std::nullopt);
      return;
    }
    if (s_.replay) {
      ready_.push(MeasureItem{&e, i, s, std::move(key), std::nullopt, false});
      return;
    }
    if (e.compile_status() == Status::compile_failed || e.compiled) {
      after_compile(i, s, std::move(key));
      return;
    }
    e.waiting.emplace_back(s, std::move(key));
    request_compile(i);
  }

  std::optional<StoredMeasurement> recorder_store_find(const std::string& key) { return store_.find_measurement(key); }

  void request_compile(std::size_t i) {
    PlannedConfig& e = plan_.at(i);
    // A replay has no compile service (it compiles nothing): after its lane failed, the proposals that follow
    // come here and must not reach a null one.
    if (e.compiling || !compiler_) return;
    e.compiling = true;
    ++compiles_in_flight_;
    compiler_->submit(i, e.spec);
  }

  // A config whose compilation is known: record why it is not measured, or queue it for the lanes.
  void after_compile(std::size_t i, std::size_t s, std::string key) {
    PhaseScope screening(clock_, CoordinatorPhase::screening);
    PlannedConfig& e = plan_.at(i);
    const Shape& shape = s_.shapes[s];
    if (e.compile_status() != Status::ok) {
      record(i, s, key,
             Measurement::unmeasured(Status::compile_failed,
                                     "compilation failed; see the compilations table for "
                                     "the log"),
             std::nullopt);
      return;
    }
    if (auto why = family_.check_problem(e.candidate.params, plan_.problem(shape))) {
      record(i, s, key, Measurement::unmeasured(Status::constraint_rejected, *why), std::nullopt);
      return;
    }
    const LaunchGeometry geometry = family_.launch_geometry(e.candidate.params, shape, measuring_device_);
    if (auto verdict = prune(*e.compiled, geometry, measuring_device_, s_.prune)) {
      if (report_.pruned[verdict->reason]++ == 0 && report_.first_prune_message.empty())
        report_.first_prune_message = verdict->message;
      const Status st = verdict->reason == PruneReason::spills ? Status::pruned : Status::resources_exceeded;
      record(i, s, key, Measurement::unmeasured(st, "pruned before timing: " + verdict->message), std::nullopt);
      return;
    }
    ready_.push(MeasureItem{&e, i, s, std::move(key), shapes_[s].best_ms, false, e.compiled_at});
  }

  const RecordedReferences* references_for(std::size_t s, std::optional<std::size_t> lane) const {
    if (lane) {
      auto it = refs_.find({*lane, s});
      if (it != refs_.end()) return &it->second;
    }
    for (auto& [k, v] : refs_)
      if (k.second == s) return &v;
    return nullptr;
  }

  void record(std::size_t i, std::size_t s, const std::string& key, const Measurement& m,
              std::optional<std::size_t> lane) {
    PlannedConfig& e = plan_.at(i);
    MeasurementRecord rec;
    rec.config_id = e.config_id;
    rec.compilation_id = e.compilation_id;
    rec.result_key = key;
    const DeviceDescription& dev = lane ? s_.backends[*lane]->device() : measuring_device_;
    rec.device_name = dev.name;
    rec.device_cc = dev.arch.str();
    if (lane) rec.gpu = dev.gpu;  // outcomes decided without running (compile failed, pruned, ...) ran nowhere
    rec.arch = e.spec.arch;
    rec.shape = s_.shapes[s];
    rec.measurement = m;
    const RecordedReferences* refs = references_for(s, lane);
    {
      PhaseScope recording(clock_, CoordinatorPhase::recording);
      recorder_.measurement(rec, refs ? std::optional<RecordedReferences>(*refs) : std::nullopt);
    }
    observe(s, e, m);
    if (!lane_error_) --shapes_[s].in_flight;
    progress(e);
  }

  void observe(std::size_t s, const PlannedConfig& e, const Measurement& m) {
    ShapeState& st = shapes_[s];
    Observation o = observation_of(e, m);
    if (o.ms && (!st.best_ms || *o.ms < *st.best_ms)) st.best_ms = o.ms;
    if (st.strategy) {
      PhaseScope proposing(clock_, CoordinatorPhase::proposing);
      st.strategy->observe(o);
    }
  }

  void progress(const PlannedConfig& e) { obs_.progress(++done_, 0, e.candidate.alias.value_or(e.candidate.name)); }

  void handle(TuneEvent ev) {
    std::visit([this](auto& e) { on(e); }, ev);
  }

  void on(CompiledEvent& ev) {
    --compiles_in_flight_;
    if (ev.error) std::rethrow_exception(ev.error);
    PlannedConfig& e = plan_.at(ev.entry);
    e.compiling = false;
    (ev.result->from_cache ? report_.cubins_cached : report_.compiled_now)++;
    auto compiled = std::make_shared<CompileResult>(std::move(ev.result->result));
    const DeviceDescription& dev = measuring_device_.name.empty() ? plan_device_ : measuring_device_;
    compiled->dynamic_shared_bytes =
        static_cast<int>(family_.launch_geometry(e.candidate.params, s_.shapes.front(), dev).dynamic_smem_bytes);
    e.compiled = std::move(compiled);
    e.compiled_at = ev.done_at;
    {
      PhaseScope recording(clock_, CoordinatorPhase::recording);
      e.compilation_id = recorder_.compilation(e.config_id, *e.compiled);
    }
    if (lane_error_) return;
    if (compile_only()) {
      observe(0, e, Measurement::unmeasured(e.compiled->status, ""));
      --shapes_[0].in_flight;
      progress(e);
      return;
    }
    auto waiting = std::move(e.waiting);
    e.waiting.clear();
    for (auto& [s, key] : waiting) after_compile(ev.entry, s, std::move(key));
  }

  void on(ReferenceEvent& ev) {
    const DeviceDescription& dev = s_.backends[ev.lane]->device();
    const Shape& shape = s_.shapes[ev.shape];
    const auto earlier = refs_.find({ev.lane, ev.shape});
    {
      PhaseScope recording(clock_, CoordinatorPhase::recording);
      refs_[{ev.lane, ev.shape}] =
          recorder_.references(dev, shape, ev.reference, earlier != refs_.end() ? &earlier->second : nullptr);
    }
    const TimingStats& c = ev.reference.timing;
    obs_.note(fmt::format("shape {}: cuBLAS {:.4f} ms ({:.1f} TFLOP/s){}", shape.str(), c.median_ms,
                          shape.flops() / c.median_ms / 1e9,
                          s_.backends.size() > 1 ? fmt::format(" on lane {}", ev.lane) : ""));
    if (const auto& lt = ev.reference.cublaslt) {
      if (lt->timing && lt->timing->median_ms > 0)
        obs_.note(fmt::format("shape {}: cuBLASLt {:.4f} ms ({:.1f} TFLOP/s), best of {} verified of {} heuristic "
                              "algorithms: {}",
                              shape.str(), lt->timing->median_ms, shape.flops() / lt->timing->median_ms / 1e9,
                              lt->heuristics_valid, lt->heuristics_returned, lt->algo ? describe(*lt->algo) : "?") +
                  (lt->message.empty() ? "" : " (" + lt->message + ")"));
      else
        obs_.note(fmt::format("shape {}: no cuBLASLt timing: {}", shape.str(), lt->message));
    }
  }

  void on(MeasuredEvent& ev) {
    const MeasureItem& item = ev.item;
    PlannedConfig& e = plan_.at(item.entry);
    if (ev.recorded_elsewhere) {
      ++report_.measured_before;
      if (auto known = recorder_store_find(item.result_key)) observe(item.shape, e, known->measurement);
      if (!lane_error_) --shapes_[item.shape].in_flight;
      progress(e);
      return;
    }
    if (!ev.measurement) {  // a replay without a recorded outcome: the shape check fills in what it can
      if (auto why = family_.check_problem(e.candidate.params, plan_.problem(s_.shapes[item.shape]))) {
        record(item.entry, item.shape, item.result_key, Measurement::unmeasured(Status::constraint_rejected, *why),
               ev.lane);
        return;
      }
      ++report_.not_in_recording;
      observe(item.shape, e, Measurement::unmeasured(Status::launch_failed, "not in the recording"));
      if (!lane_error_) --shapes_[item.shape].in_flight;
      progress(e);
      return;
    }
    record(item.entry, item.shape, item.result_key, *ev.measurement, ev.lane);
  }

  void on(DeferredEvent& ev) {
    ev.item.wait_for_claim = true;
    ready_.push(std::move(ev.item));
  }

  // The device failed (e.g. the shape does not fit in its memory): nothing more is measured, but what is
  // proposed is still compiled and recorded, so the run keeps its compilations; the error ends the run after.
  void on(LaneFailedEvent& ev) {
    if (lane_error_) return;
    lane_error_ = ev.error;
    ready_.close();
    for (auto& st : shapes_) st.in_flight = 0;
    for (std::size_t i = 0; i < plan_.size(); ++i) plan_.at(i).waiting.clear();
    // An adaptive strategy needs outcomes to go on; only the exhaustive one still knows what is left to compile.
    if (s_.strategy != "exhaustive") cursor_ = shape_count();
  }

  Plan& plan_;
  Recorder& recorder_;
  const Store& store_;
  const Space& space_;
  const Family& family_;
  const DeviceDescription plan_device_;  // what the plan asks the family about (compile-only: the target)
  const SchedulerSettings& s_;
  const SchedulerObserver& obs_;
  const CubinCache* cache_;
  std::vector<ShapeState> shapes_;
  std::size_t window_ = 8;
  std::size_t cursor_ = 0;  // the shape whose strategy is proposing
  std::size_t compiles_in_flight_ = 0;
  std::exception_ptr lane_error_;
  std::size_t done_ = 0;
  std::optional<Clock::time_point> run_deadline_;
  DeviceDescription measuring_device_;
  CompileService* compiler_ = nullptr;
  EventQueue events_;
  ReadyQueue ready_;
  std::map<std::pair<std::size_t, std::size_t>, RecordedReferences> refs_;  // (lane, shape)
  SchedulerReport report_;
  std::shared_ptr<AdmissibleIndexes> admissible_;                // the space's admissible configs, shared by the shapes
  PhaseClock<CoordinatorPhase> clock_{CoordinatorPhase::other};  // from construction: the run's planning included
};

}  // namespace

SchedulerReport run_schedule(const RunContext& run, const SchedulerSettings& settings,
                             const SchedulerObserver& observer) {
  return Coordinator(run, settings, observer).run();
}

}  // namespace mpgemm
