#pragma once
// A space's cartesian product addressed by index, without enumerating it: index i is the i-th config of the
// product in enumerate()'s order (declaration order, last parameter varying fastest), whether or not it
// satisfies the constraints. Decoding one index costs one pass over the parameters, so a space of 10^7 or more
// configs (beyond kMaxSpaceProduct, which only bounds enumerate()) can be sampled for nothing. Search strategies
// (tune/strategy/) draw indexes, decode them and check the constraints one config at a time.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "common/params.hpp"
#include "space/space.hpp"

namespace mpgemm {

class SpaceIndex {
 public:
  // Throws SpaceError at "/parameters" when the product does not fit in 64 bits. `space` must outlive this.
  explicit SpaceIndex(const Space& space);

  const Space& space() const { return *space_; }
  // The size of the cartesian product of the domains (constraints not applied).
  std::uint64_t size() const { return size_; }

  // Position of each parameter's value in its domain (Space::parameters order) and back.
  std::vector<std::size_t> digits(std::uint64_t index) const;  // throws mpgemm::Error when index >= size()
  std::uint64_t index_of_digits(const std::vector<std::size_t>& digits) const;

  // The config at `index`. Throws mpgemm::Error when index >= size().
  Params decode(std::uint64_t index) const;
  // The index of `params`, or nullopt when a parameter is missing, of the other type or outside its domain
  // (a named point may lie outside the domains).
  std::optional<std::uint64_t> index_of(const Params& params) const;

  // Whether the config at `index` satisfies every constraint. Throws as failing_constraint (space/enumerate.hpp)
  // when a derived value or constraint cannot be evaluated for it, as enumerate() would.
  bool admissible(std::uint64_t index) const;

  // The indexes one parameter step away from `index`: each parameter moved to the previous or next value of its
  // domain (as listed, or ascending), the others kept; constraints not applied. Parameters in declaration order,
  // the previous value before the next.
  std::vector<std::uint64_t> neighbours(std::uint64_t index) const;

 private:
  const Space* space_;
  std::uint64_t size_ = 1;
  std::vector<std::uint64_t> stride_;  // per parameter: how far one step of its digit moves the index
};

}  // namespace mpgemm
