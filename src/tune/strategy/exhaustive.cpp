// exhaustive: every config of the space, the named points first (file order), then the product in enumeration
// order, each config once and only those satisfying the constraints: the order of tune/candidates.cpp's
// build_candidates, produced lazily (space/enumerate.hpp's AdmissibleIndexes, shared by a run's shapes) so a
// budget stops it early at no cost.
#include <memory>
#include <set>

#include "space/enumerate.hpp"
#include "tune/strategy/detail.hpp"

namespace mpgemm::strategy_detail {

namespace {

class Exhaustive final : public Strategy {
 public:
  explicit Exhaustive(const StrategyContext& context)
      : space_(*context.space),
        index_(space_),
        admissible_(context.admissible ? context.admissible : std::make_shared<AdmissibleIndexes>(space_)),
        budget_(context.budget) {
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
      const std::optional<std::uint64_t> i = admissible_->at(next_);
      if (!i) break;
      ++next_;
      if (point_indexes_.count(*i)) continue;
      out.push_back(index_.decode(*i));
      ++proposed_;
    }
    return out;
  }

  void observe(const Observation&) override {}

  bool done() const override {
    if (budget_spent()) return true;
    if (next_point_ < space_.points.size()) return false;
    // Whether a config remains is only known by looking; done() skips the named points ahead of propose().
    while (const std::optional<std::uint64_t> i = admissible_->at(next_)) {
      if (!point_indexes_.count(*i)) return false;
      ++next_;
    }
    return true;
  }

 private:
  bool budget_spent() const { return budget_ && proposed_ >= *budget_; }

  const Space& space_;
  SpaceIndex index_;
  std::shared_ptr<AdmissibleIndexes> admissible_;
  std::optional<std::size_t> budget_;
  std::set<std::uint64_t> point_indexes_;  // named points that lie inside the domains, not proposed twice
  std::set<Params> proposed_points_;
  std::size_t next_point_ = 0;
  mutable std::size_t next_ = 0;  // the next admissible config to propose (AdmissibleIndexes::at)
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
