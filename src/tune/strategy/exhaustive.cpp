// exhaustive: every config of the space, the named points first (file order), then the product in enumeration
// order, each config once and only those satisfying the constraints: the order of tune/candidates.cpp's
// build_candidates, produced lazily from a SpaceIndex so a budget stops it early at no cost.
#include <set>

#include "tune/strategy/detail.hpp"

namespace mpgemm::strategy_detail {

namespace {

class Exhaustive final : public Strategy {
 public:
  explicit Exhaustive(const StrategyContext& context)
      : space_(*context.space), index_(space_), budget_(context.budget) {
    for (const NamedPoint& p : space_.points)
      if (auto i = index_.index_of(p.params)) point_indexes_.insert(*i);
  }

  std::vector<Params> propose(std::size_t n) override {
    std::vector<Params> out;
    while (out.size() < n && !budget_spent()) {
      if (next_point_ < space_.points.size()) {
        const Params& p = space_.points[next_point_++].params;
        if (!proposed_points_.insert(p).second) continue;  // two names for one config
        out.push_back(p);
        ++proposed_;
        continue;
      }
      if (cursor_ >= index_.size()) break;
      const std::uint64_t i = cursor_++;
      if (point_indexes_.count(i) || !index_.admissible(i)) continue;
      out.push_back(index_.decode(i));
      ++proposed_;
    }
    return out;
  }

  void observe(const Observation&) override {}

  bool done() const override {
    if (budget_spent()) return true;
    if (next_point_ < space_.points.size()) return false;
    // Whether an admissible config remains is only known by looking; the scan is cheap and done once.
    while (cursor_ < index_.size() && (point_indexes_.count(cursor_) || !index_.admissible(cursor_))) ++cursor_;
    return cursor_ >= index_.size();
  }

 private:
  bool budget_spent() const { return budget_ && proposed_ >= *budget_; }

  const Space& space_;
  SpaceIndex index_;
  std::optional<std::size_t> budget_;
  std::set<std::uint64_t> point_indexes_;  // named points that lie inside the domains, not proposed twice
  std::set<Params> proposed_points_;
  std::size_t next_point_ = 0;
  mutable std::uint64_t cursor_ = 0;  // done() skips inadmissible configs ahead of propose()
  std::size_t proposed_ = 0;
};

}  // namespace

StrategyInfo exhaustive_info() {
  return {"exhaustive",
          "every config: the named points first, then the space in enumeration order (the default)",
          {},
          [](const StrategyContext& c) -> std::unique_ptr<Strategy> { return std::make_unique<Exhaustive>(c); }};
}

}  // namespace mpgemm::strategy_detail
