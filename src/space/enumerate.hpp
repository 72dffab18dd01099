#pragma once
// The configs of a space: the cartesian product of the parameter domains (declaration order, last parameter
// varying fastest) filtered by the constraints. Pure functions of the Space; the same space gives the same
// configs in the same order on every machine.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/params.hpp"
#include "space/space.hpp"

namespace mpgemm {

// A product above this is refused: exhaustive search over it could never finish, and the configs alone would
// take gigabytes.
inline constexpr std::uint64_t kMaxSpaceProduct = 10'000'000;

struct Enumeration {
  std::vector<Params> configs;             // the configs satisfying every constraint, parameters only
  std::uint64_t total = 0;                 // size of the cartesian product of the domains
  std::vector<std::uint64_t> rejected_by;  // per constraint (Space::constraints order): configs it rejected first
  std::uint64_t rejected() const { return total - configs.size(); }
};

// Throws SpaceError at "/parameters" when the product exceeds kMaxSpaceProduct, and at the derived value or
// constraint that cannot be evaluated for some config (division by zero, overflow), naming that config. Where an
// interval analysis proves that nothing can throw, the product is walked as a tree and a prefix whose first failing
// constraint is already certain is counted whole (the suite space: 0.01 s instead of 4.4 s); the result is the
// same as walking every config.
Enumeration enumerate(const Space& space);

// The product of the domain sizes, saturating at UINT64_MAX.
std::uint64_t product_size(const Space& space);

// Throws SpaceError at "/parameters" when product_size exceeds kMaxSpaceProduct.
void check_product_size(const Space& space);

// Throws SpaceError at "/constraints" when no config satisfies every constraint, giving for each constraint how
// many configs fail it (on its own) and naming the one that fails the most. Stops at the first config that passes.
void check_satisfiable(const Space& space);

// The evaluation environment of `params` (slots as Space::symbols(): parameters, constants, derived values).
// Throws mpgemm::Error if a parameter is missing or has the wrong type, SpaceError if a derived value cannot be
// evaluated. Params may hold values outside the domains.
std::vector<Value> make_environment(const Space& space, const Params& params);

// The source text of the first constraint `params` fails, or nullopt if it satisfies all of them. Throws as
// make_environment, and SpaceError at a constraint that cannot be evaluated.
std::optional<std::string> failing_constraint(const Space& space, const Params& params);

// The indexes of the configs satisfying every constraint (SpaceIndex's numbering: the product in declaration order,
// last parameter fastest), found by walking the product as far as asked, no further: at(k) is the k-th. Walking
// with one environment updated in place costs a fraction of decoding each index (SpaceIndex::admissible), and one
// instance shared by a run's shapes walks the product once for all of them.
class AdmissibleIndexes {
 public:
  explicit AdmissibleIndexes(const Space& space);  // `space` outlives it
  // Already known: every admissible config's index, in order (a listable space enumerated once for the run).
  explicit AdmissibleIndexes(std::vector<std::uint64_t> known);
  ~AdmissibleIndexes();
  AdmissibleIndexes(const AdmissibleIndexes&) = delete;
  AdmissibleIndexes& operator=(const AdmissibleIndexes&) = delete;
  // The k-th admissible config's index; nullopt past the last. Throws what evaluating a constraint throws.
  std::optional<std::uint64_t> at(std::size_t k);

 private:
  struct Walk;
  std::unique_ptr<Walk> walk_;  // null once the product is walked
  std::vector<std::uint64_t> found_;
};

// "BM=128 BN=64 LOAD="cp_async"": the parameters in declaration order, for messages.
std::string describe_config(const Space& space, const Params& params);

}  // namespace mpgemm
