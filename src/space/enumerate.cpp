#include "space/enumerate.hpp"

#include <algorithm>
#include <limits>

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
