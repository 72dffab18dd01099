#include "space/enumerate.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include <fmt/format.h>

namespace mpgemm {

namespace {

std::string describe_env(const Space& space, const std::vector<Value>& env) {
  std::string out;
  for (std::size_t i = 0; i < space.parameters.size(); ++i)
    out += fmt::format("{}{}={}", i ? " " : "", space.parameters[i].name, to_string(env[i]));
  return out;
}

// Evaluates the derived values into their env slots (after the parameters and constants).
void compute_derived(const Space& space, std::vector<Value>& env) {
  std::size_t base = space.parameters.size() + space.constants.size();
  for (std::size_t i = 0; i < space.derived.size(); ++i) {
    const Derived& d = space.derived[i];
    try {
      env[base + i] = d.expr.eval(env);
    } catch (const ExprError& e) {
      throw space.error_at(d.json_path, fmt::format("derived {} = \"{}\": {} for config {}", d.name, d.source(),
                                                    e.what(), describe_env(space, env)));
    }
  }
}

// Index of the first constraint the config in `env` fails, or constraints.size() when it passes them all.
std::size_t first_failure(const Space& space, const std::vector<Value>& env) {
  for (std::size_t c = 0; c < space.constraints.size(); ++c) {
    const Constraint& con = space.constraints[c];
    try {
      if (!con.expr.holds(env)) return c;
    } catch (const ExprError& e) {
      throw space.error_at(con.json_path, fmt::format("constraint \"{}\": {} for config {}", con.source(), e.what(),
                                                      describe_env(space, env)));
    }
  }
  return space.constraints.size();
}

// The environment of every config of the product in turn: an odometer over the domains, last parameter fastest.
class Walker {
 public:
  explicit Walker(const Space& space) : space_(space), digits_(space.parameters.size(), 0) {
    env_.resize(space.parameters.size() + space.constants.size() + space.derived.size());
    for (std::size_t i = 0; i < space.parameters.size(); ++i) env_[i] = space.parameters[i].domain.at(0);
    for (std::size_t i = 0; i < space.constants.size(); ++i)
      env_[space.parameters.size() + i] = space.constants[i].value;
    compute_derived(space_, env_);
  }

  const std::vector<Value>& env() const { return env_; }

  // Moves to the next config; false after the last one.
  bool advance() {
    for (std::size_t p = digits_.size(); p-- > 0;) {
      const std::vector<Value>& domain = space_.parameters[p].domain;
      bool carry = ++digits_[p] == domain.size();
      if (carry) digits_[p] = 0;
      env_[p] = domain[digits_[p]];
      if (!carry) {
        compute_derived(space_, env_);
        return true;
      }
    }
    return false;
  }

  Params params() const {
    Params out;
    for (std::size_t i = 0; i < space_.parameters.size(); ++i) out.emplace(space_.parameters[i].name, env_[i]);
    return out;
  }

 private:
  const Space& space_;
  std::vector<std::size_t> digits_;  // index into each parameter's domain
  std::vector<Value> env_;
};

// Whether no derived value or constraint can throw for any config of the product, by an interval analysis over the
// domains (Expr::range). When one might, only the config-by-config walk finds, and names, the config that throws.
bool nothing_can_throw(const Space& space) {
  std::vector<ValueRange> slots(space.parameters.size() + space.constants.size() + space.derived.size());
  const auto widen = [](ValueRange& r, const Value& v) {
    if (const auto* i = std::get_if<std::int64_t>(&v)) {
      r.lo = r.integers ? std::min(r.lo, *i) : *i;
      r.hi = r.integers ? std::max(r.hi, *i) : *i;
      r.integers = true;
    } else {
      r.strings = true;
    }
  };
  for (std::size_t i = 0; i < space.parameters.size(); ++i)
    for (const Value& v : space.parameters[i].domain) widen(slots[i], v);
  const std::size_t base = space.parameters.size() + space.constants.size();
  for (std::size_t i = 0; i < space.constants.size(); ++i)
    widen(slots[space.parameters.size() + i], space.constants[i].value);
  for (std::size_t i = 0; i < space.derived.size(); ++i) {
    const auto r = space.derived[i].expr.range(std::span<const ValueRange>(slots.data(), base + i));
    if (!r) return false;
    slots[base + i] = *r;
  }
  return std::all_of(space.constraints.begin(), space.constraints.end(),
                     [&](const Constraint& c) { return c.expr.range(slots).has_value(); });
}

// The product walked as a tree, one parameter per level, in an order that sets each constraint's parameters as early
// as the constraints' order allows; a prefix whose first failing constraint is already certain (it fails, and every
// constraint before it can be evaluated and holds) has its whole subtree counted as rejected by that constraint
// without visiting it. The same configs and counts as walking every config (enumerate sorts the indexes), provided
// nothing can throw: a skipped config would have thrown too (nothing_can_throw says when that is so).
class PrunedWalk {
 public:
  explicit PrunedWalk(const Space& space) : space_(space) {
    const std::size_t params = space.parameters.size(), base = params + space.constants.size();
    // The parameters each slot depends on, through derived values.
    std::vector<std::vector<bool>> needs(base + space.derived.size(), std::vector<bool>(params, false));
    for (std::size_t i = 0; i < params; ++i) needs[i][i] = true;
    for (std::size_t d = 0; d < space.derived.size(); ++d)
      for (const std::size_t slot : space.derived[d].expr.slots_used())
        for (std::size_t i = 0; i < params; ++i) needs[base + d][i] = needs[base + d][i] || needs[slot][i];
    const auto params_of = [&](const Expr& e) {
      std::vector<bool> used(params, false);
      for (const std::size_t slot : e.slots_used())
        for (std::size_t i = 0; i < params; ++i) used[i] = used[i] || needs[slot][i];
      return used;
    };
    // Walk order: the parameters of constraint 0, then those constraint 1 adds, and so on; the rest last. Within
    // one constraint, declaration order.
    std::vector<std::size_t> level_of(params, params);
    for (const Constraint& c : space.constraints) {
      const auto used = params_of(c.expr);
      for (std::size_t i = 0; i < params; ++i)
        if (used[i] && level_of[i] == params) {
          level_of[i] = order_.size();
          order_.push_back(i);
        }
    }
    for (std::size_t i = 0; i < params; ++i)
      if (level_of[i] == params) {
        level_of[i] = order_.size();
        order_.push_back(i);
      }
    // The deepest level an expression's parameters reach (0 for none: evaluated at the first level).
    const auto depth_of = [&](const std::vector<bool>& used) {
      std::size_t depth = 0;
      for (std::size_t i = 0; i < params; ++i)
        if (used[i]) depth = std::max(depth, level_of[i]);
      return depth;
    };
    derived_at_.resize(params);
    for (std::size_t d = 0; d < space.derived.size(); ++d) {
      std::vector<bool> used(params, false);
      for (std::size_t i = 0; i < params; ++i) used[i] = needs[base + d][i];
      derived_at_[depth_of(used)].push_back(d);  // ascending: a derived value's own inputs come first
    }
    constraints_at_.resize(params);
    settled_from_.resize(space.constraints.size());
    std::size_t before = 0;  // the deepest level of the constraints before c
    for (std::size_t c = 0; c < space.constraints.size(); ++c) {
      const std::size_t depth = depth_of(params_of(space.constraints[c].expr));
      constraints_at_[depth].push_back(c);
      settled_from_[c] = std::max(before, depth);
      before = std::max(before, depth);
    }
    below_.assign(params, 1);
    for (std::size_t level = params - 1; level-- > 0;)
      below_[level] = below_[level + 1] * space.parameters[order_[level + 1]].domain.size();
    stride_.assign(params, 1);
    for (std::size_t i = params - 1; i-- > 0;) stride_[i] = stride_[i + 1] * space.parameters[i + 1].domain.size();
    env_.resize(base + space.derived.size());
    for (std::size_t i = 0; i < space.constants.size(); ++i) env_[params + i] = space.constants[i].value;
  }

  // Fills the indexes of the admissible configs (unsorted) and the rejection counts.
  void run(std::vector<std::uint64_t>& admitted, std::vector<std::uint64_t>& rejected_by) {
    admitted_ = &admitted;
    rejected_by_ = &rejected_by;
    visit(0, space_.constraints.size(), 0);
  }

 private:
  void visit(std::size_t level, std::size_t failed_above, std::uint64_t index) {
    const std::size_t p = order_[level], none = space_.constraints.size();
    const std::vector<Value>& domain = space_.parameters[p].domain;
    const std::size_t base = space_.parameters.size() + space_.constants.size();
    for (std::size_t v = 0; v < domain.size(); ++v) {
      env_[p] = domain[v];
      const std::uint64_t here = index + v * stride_[p];
      for (const std::size_t d : derived_at_[level]) env_[base + d] = space_.derived[d].expr.eval(env_);
      std::size_t failed = failed_above;
      for (const std::size_t c : constraints_at_[level]) {
        if (c >= failed) break;
        if (!space_.constraints[c].expr.holds(env_)) failed = c;
      }
      if (failed != none && settled_from_[failed] <= level) {
        (*rejected_by_)[failed] += below_[level];
      } else if (level + 1 < order_.size()) {
        visit(level + 1, failed, here);
      } else {
        admitted_->push_back(here);  // the last level settles every constraint
      }
    }
  }

  const Space& space_;
  std::vector<std::size_t> order_;                        // parameter index per level
  std::vector<std::vector<std::size_t>> derived_at_;      // per level: derived values computable there
  std::vector<std::vector<std::size_t>> constraints_at_;  // per level: constraints evaluable there, ascending
  std::vector<std::size_t> settled_from_;  // per constraint c: the level from which c and every one before it
                                           // can be evaluated
  std::vector<std::uint64_t> below_;       // per level: configs under one of its prefixes
  std::vector<std::uint64_t> stride_;      // per parameter: its step in the product's index
  std::vector<Value> env_;
  std::vector<std::uint64_t>* admitted_ = nullptr;
  std::vector<std::uint64_t>* rejected_by_ = nullptr;
};

// The params of the product's config `index` (declaration order, last parameter fastest).
Params params_at(const Space& space, std::uint64_t index) {
  Params out;
  for (std::size_t i = space.parameters.size(); i-- > 0;) {
    const std::vector<Value>& domain = space.parameters[i].domain;
    out.emplace(space.parameters[i].name, domain[index % domain.size()]);
    index /= domain.size();
  }
  return out;
}

}  // namespace

std::uint64_t product_size(const Space& space) {
  std::uint64_t total = 1;
  for (const Parameter& p : space.parameters) {
    if (__builtin_mul_overflow(total, static_cast<std::uint64_t>(p.domain.size()), &total))
      return std::numeric_limits<std::uint64_t>::max();
  }
  return total;
}

void check_product_size(const Space& space) {
  std::uint64_t total = product_size(space);
  if (total <= kMaxSpaceProduct) return;
  std::string sizes;
  for (const Parameter& p : space.parameters) sizes += fmt::format("{}{}", sizes.empty() ? "" : " x ", p.domain.size());
  std::string count = total == std::numeric_limits<std::uint64_t>::max() ? "over 2^64" : std::to_string(total);
  throw space.error_at("/parameters", fmt::format("the space has {} configs ({}), more than the limit of {}; narrow "
                                                  "the domains",
                                                  count, sizes, kMaxSpaceProduct));
}

Enumeration enumerate(const Space& space) {
  check_product_size(space);
  Enumeration out;
  out.total = product_size(space);
  out.rejected_by.assign(space.constraints.size(), 0);
  if (out.total == 0) return out;
  if (!space.parameters.empty() && nothing_can_throw(space)) {
    std::vector<std::uint64_t> admitted;
    PrunedWalk(space).run(admitted, out.rejected_by);
    std::sort(admitted.begin(), admitted.end());
    out.configs.reserve(admitted.size());
    for (const std::uint64_t index : admitted) out.configs.push_back(params_at(space, index));
    return out;
  }
  Walker walker(space);
  do {
    std::size_t failed = first_failure(space, walker.env());
    if (failed == space.constraints.size()) {
      out.configs.push_back(walker.params());
    } else {
      ++out.rejected_by[failed];
    }
  } while (walker.advance());
  return out;
}

void check_satisfiable(const Space& space) {
  check_product_size(space);
  std::uint64_t total = product_size(space);
  if (total > 0) {
    Walker walker(space);
    do {
      if (first_failure(space, walker.env()) == space.constraints.size()) return;
    } while (walker.advance());
  }
  // Nothing passes. Count each constraint's failures on its own; one that cannot be evaluated for a config (its
  // guard is an earlier constraint) counts as failing it.
  std::vector<std::uint64_t> fails(space.constraints.size(), 0);
  if (total > 0) {
    Walker walker(space);
    do {
      for (std::size_t c = 0; c < space.constraints.size(); ++c) {
        bool holds = false;
        try {
          holds = space.constraints[c].expr.holds(walker.env());
        } catch (const ExprError&) {
        }
        if (!holds) ++fails[c];
      }
    } while (walker.advance());
  }
  std::string counts;
  std::size_t worst = 0;
  for (std::size_t c = 0; c < fails.size(); ++c) {
    counts += fmt::format("{}\"{}\": {}", c ? ", " : "", space.constraints[c].source(), fails[c]);
    if (fails[c] > fails[worst]) worst = c;
  }
  if (fails.empty()) throw space.error_at("/parameters", "the space has no configs");
  throw space.error_at("/constraints",
                       fmt::format("no config satisfies every constraint; of the {} configs, \"{}\" rejects the most "
                                   "({}); configs failing each constraint: {}",
                                   total, space.constraints[worst].source(), fails[worst], counts));
}

std::vector<Value> make_environment(const Space& space, const Params& params) {
  std::vector<Value> env(space.parameters.size() + space.constants.size() + space.derived.size());
  for (std::size_t i = 0; i < space.parameters.size(); ++i) {
    const Parameter& p = space.parameters[i];
    auto it = params.find(p.name);
    if (it == params.end()) throw Error(fmt::format("config has no value for parameter {}", p.name));
    bool is_int = std::holds_alternative<std::int64_t>(it->second);
    if (is_int != (p.type == ValueType::integer))
      throw Error(fmt::format("parameter {} must be {}, got {}", p.name,
                              p.type == ValueType::integer ? "an integer" : "a string", to_string(it->second)));
    env[i] = it->second;
  }
  for (std::size_t i = 0; i < space.constants.size(); ++i) env[space.parameters.size() + i] = space.constants[i].value;
  compute_derived(space, env);
  return env;
}

std::optional<std::string> failing_constraint(const Space& space, const Params& params) {
  std::vector<Value> env = make_environment(space, params);
  std::size_t failed = first_failure(space, env);
  if (failed == space.constraints.size()) return std::nullopt;
  return space.constraints[failed].source();
}

struct AdmissibleIndexes::Walk {
  explicit Walk(const Space& s) : space(s), walker(s) {}
  const Space& space;
  Walker walker;
  std::uint64_t index = 0;  // the walker's config
};

// No bound on the product: the walk is lazy, so a budget over a space too large to list stops it early.
AdmissibleIndexes::AdmissibleIndexes(const Space& space) {
  if (product_size(space) > 0) walk_ = std::make_unique<Walk>(space);
}

AdmissibleIndexes::AdmissibleIndexes(std::vector<std::uint64_t> known) : found_(std::move(known)) {}

AdmissibleIndexes::~AdmissibleIndexes() = default;

std::optional<std::uint64_t> AdmissibleIndexes::at(std::size_t k) {
  while (found_.size() <= k && walk_) {
    if (first_failure(walk_->space, walk_->walker.env()) == walk_->space.constraints.size())
      found_.push_back(walk_->index);
    ++walk_->index;
    if (!walk_->walker.advance()) walk_.reset();
  }
  if (k < found_.size()) return found_[k];
  return std::nullopt;
}

std::string describe_config(const Space& space, const Params& params) {
  std::string out;
  for (const Parameter& p : space.parameters) {
    auto it = params.find(p.name);
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", p.name, it == params.end() ? "?" : to_string(it->second));
  }
  return out;
}

}  // namespace mpgemm
