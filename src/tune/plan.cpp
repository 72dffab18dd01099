#include "tune/plan.hpp"

#include <fmt/format.h>

#include "compile/nvrtc_compile.hpp"
#include "space/enumerate.hpp"
#include "tune/keys.hpp"

namespace mpgemm {

std::optional<Status> PlannedConfig::compile_status() const {
  if (compiled) return compiled->status;
  if (stored) return stored->status;
  return std::nullopt;
}

Plan::Plan(const Space& space, const Family& family, Arch arch, DeviceDescription device, Store& store,
           ProblemKind kind)
    : space_(space), family_(family), arch_(arch), device_(std::move(device)), store_(store), kind_(kind) {
  for (const auto& p : space.points) alias_by_name_.emplace(family.config_name(p.params), p.name);
}

Candidate Plan::candidate(const Params& params) const {
  Candidate c{space_.family, params, family_.config_name(params), std::nullopt};
  if (auto a = alias_by_name_.find(c.name); a != alias_by_name_.end()) c.alias = a->second;
  return c;
}

std::size_t Plan::add(const Params& params) {
  std::string name = family_.config_name(params);
  if (auto it = by_name_.find(name); it != by_name_.end()) return it->second;
  if (auto problems = family_.check_config(params); !problems.empty()) {
    std::string why;
    for (const auto& p : problems) why += (why.empty() ? "" : "; ") + p;
    throw space_.error_at("/constraints",
                          fmt::format("config {} satisfies every constraint but the {} family cannot build it: {} "
                                      "(add a constraint that excludes it)",
                                      describe_config(space_, params), family_.name(), why));
  }
  PlannedConfig e;
  e.candidate = Candidate{space_.family, params, name, std::nullopt};
  if (auto a = alias_by_name_.find(name); a != alias_by_name_.end()) e.candidate.alias = a->second;
  // A config the family cannot build for the run's kind keeps the default kind's spec (its key is never measured:
  // every shape of it is recorded constraint_rejected with the reason, as for a device that cannot run it).
  const std::optional<std::string> kind_rejected = family_.check_config_kind(params, kind_);
  e.spec = kind_rejected ? family_.kernel_spec(params, arch_) : family_.kernel_spec(params, arch_, kind_);
  e.compile_key = mpgemm::compile_key(e.spec);
  e.config_id =
      store_.upsert_config(e.candidate, source_hash(kind_.is_default() ? e.spec : family_.kernel_spec(params, arch_)));
  const std::optional<std::string> device_rejected = family_.check_device(params, device_);
  e.rejected = device_rejected ? device_rejected : kind_rejected;
  e.stored = store_.find_compilation(e.config_id, e.spec.arch.str(), e.compile_key);
  if (e.stored && !e.rejected) e.compilation_id = e.stored->id;
  if (device_rejected && device_rejected_++ == 0) device_rejected_reason_ = *device_rejected;
  if (!device_rejected && kind_rejected && kind_rejected_++ == 0) kind_rejected_reason_ = *kind_rejected;
  entries_.push_back(std::move(e));
  by_name_.emplace(std::move(name), entries_.size() - 1);
  return entries_.size() - 1;
}

std::string Plan::result_key(std::size_t i, const DeviceDescription& measuring, const Shape& shape,
                             const MeasureSettings& settings) const {
  const PlannedConfig& e = entries_[i];
  return mpgemm::result_key(e.candidate, e.compile_key, measuring, problem(shape), settings);
}

}  // namespace mpgemm
