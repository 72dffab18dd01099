#include "space/space_index.hpp"

#include <fmt/format.h>

#include "space/enumerate.hpp"

namespace mpgemm {

SpaceIndex::SpaceIndex(const Space& space) : space_(&space), stride_(space.parameters.size(), 1) {
  for (std::size_t p = space.parameters.size(); p-- > 0;) {
    stride_[p] = size_;
    if (__builtin_mul_overflow(size_, static_cast<std::uint64_t>(space.parameters[p].domain.size()), &size_))
      throw space.error_at("/parameters", "the space has more than 2^64 configs; narrow the domains");
  }
}

std::vector<std::size_t> SpaceIndex::digits(std::uint64_t index) const {
  if (index >= size_) throw Error(fmt::format("config index {} is outside the space ({} configs)", index, size_));
  std::vector<std::size_t> out(stride_.size());
  for (std::size_t p = 0; p < stride_.size(); ++p) {
    out[p] = static_cast<std::size_t>(index / stride_[p]);
    index %= stride_[p];
  }
  return out;
}

std::uint64_t SpaceIndex::index_of_digits(const std::vector<std::size_t>& digits) const {
  std::uint64_t index = 0;
  for (std::size_t p = 0; p < stride_.size(); ++p) index += digits.at(p) * stride_[p];
  return index;
}

Params SpaceIndex::decode(std::uint64_t index) const {
  std::vector<std::size_t> d = digits(index);
  Params out;
  for (std::size_t p = 0; p < d.size(); ++p)
    out.emplace(space_->parameters[p].name, space_->parameters[p].domain[d[p]]);
  return out;
}

std::optional<std::uint64_t> SpaceIndex::index_of(const Params& params) const {
  std::uint64_t index = 0;
  for (std::size_t p = 0; p < stride_.size(); ++p) {
    const Parameter& param = space_->parameters[p];
    auto it = params.find(param.name);
    if (it == params.end()) return std::nullopt;
    std::size_t d = 0;
    while (d < param.domain.size() && param.domain[d] != it->second) ++d;
    if (d == param.domain.size()) return std::nullopt;
    index += d * stride_[p];
  }
  return index;
}

bool SpaceIndex::admissible(std::uint64_t index) const {
  return !failing_constraint(*space_, decode(index));
}

std::vector<std::uint64_t> SpaceIndex::neighbours(std::uint64_t index) const {
  std::vector<std::size_t> d = digits(index);
  std::vector<std::uint64_t> out;
  for (std::size_t p = 0; p < d.size(); ++p) {
    if (d[p] > 0) out.push_back(index - stride_[p]);
    if (d[p] + 1 < space_->parameters[p].domain.size()) out.push_back(index + stride_[p]);
  }
  return out;
}

}  // namespace mpgemm
