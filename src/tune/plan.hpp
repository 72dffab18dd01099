#pragma once
// The plan of a run: every config a strategy has proposed, with its kernel spec, compile key, config row,
// what the database already holds of it (its compilation) and whether the device can run it at all; and the
// result key of each (config, shape) measurement. Entries never move once added, so the measuring threads may
// hold pointers to them.
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "codegen/family.hpp"
#include "common/device.hpp"
#include "common/problem_kind.hpp"
#include "common/records.hpp"
#include "space/space.hpp"
#include "store/store.hpp"
#include "tune/backend.hpp"

namespace mpgemm {

struct PlannedConfig {
  Candidate candidate;
  KernelSpec spec;
  std::string compile_key;
  std::int64_t config_id = 0;
  std::optional<StoredCompilation> stored;  // recorded by an earlier run (or this one)
  // Why it is never compiled in this run: Family::check_device's reason, or check_config_kind's for the run's kind.
  std::optional<std::string> rejected;

  // Filled in by the scheduler as the run goes.
  std::shared_ptr<const CompileResult> compiled;        // this run's compilation, from NVRTC or the cubin cache
  std::chrono::steady_clock::time_point compiled_at{};  // when the compile service returned it (tune/time_account)
  std::optional<std::int64_t> compilation_id;
  bool compiling = false;
  std::vector<std::pair<std::size_t, std::string>> waiting;  // (shape, result key) waiting for the compile

  // ok or compile_failed, from this run's compilation or the recorded one; nullopt: not compiled yet.
  std::optional<Status> compile_status() const;
};

class Plan {
 public:
  // `device`: what the family is asked about (the measuring device, or in compile-only mode the target arch).
  // `kind`: the problem every config is built for (Family::kernel_spec) and measured on. The config rows stay those
  // of the default kind's source (a config is one point of the space whatever it computes); compilations and
  // result keys are the kind's.
  Plan(const Space& space, const Family& family, Arch arch, DeviceDescription device, Store& store,
       ProblemKind kind = {});

  // The entry of `params`, added (config row upserted, compilation looked up) the first time. Throws SpaceError
  // when the family cannot build it: the space's constraints must exclude such configs.
  std::size_t add(const Params& params);
  // The candidate `params` is (its procedural name, and the space's point name when it is a named point).
  Candidate candidate(const Params& params) const;
  PlannedConfig& at(std::size_t i) { return entries_[i]; }
  const PlannedConfig& at(std::size_t i) const { return entries_[i]; }
  std::size_t size() const { return entries_.size(); }
  std::size_t device_rejected() const { return device_rejected_; }
  const std::string& device_rejected_reason() const { return device_rejected_reason_; }
  std::size_t kind_rejected() const { return kind_rejected_; }
  const std::string& kind_rejected_reason() const { return kind_rejected_reason_; }

  std::string result_key(std::size_t i, const DeviceDescription& measuring, const Shape& shape,
                         const MeasureSettings& settings) const;
  const ProblemKind& kind() const { return kind_; }
  GemmProblem problem(const Shape& shape) const { return GemmProblem{shape, kind_}; }

 private:
  const Space& space_;
  const Family& family_;
  Arch arch_;
  DeviceDescription device_;
  Store& store_;
  ProblemKind kind_;
  std::deque<PlannedConfig> entries_;
  std::map<std::string, std::size_t> by_name_;
  std::map<std::string, std::string> alias_by_name_;  // config name -> the space's point name
  std::size_t device_rejected_ = 0;
  std::string device_rejected_reason_;
  std::size_t kind_rejected_ = 0;  // configs the family cannot build for kind_ (check_config_kind)
  std::string kind_rejected_reason_;
};

}  // namespace mpgemm
