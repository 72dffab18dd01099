// exhaustive: every config of the space, the named points first (in file order), then the enumerated configs
// (enumeration order) that are not also named points, up to the budget.
#include <set>

#include "space/enumerate.hpp"
#include "tune/strategy/strategy.hpp"

namespace mpgemm {

namespace {

class Exhaustive final : public Strategy {
 public:
  explicit Exhaustive(const StrategyContext& ctx) : budget_(ctx.budget) {
    std::set<Params> seen;
    for (const auto& p : ctx.space->points)
      if (seen.insert(p.params).second) order_.push_back(p.params);
    for (auto& c : enumerate(*ctx.space).configs)
      if (seen.insert(c).second) order_.push_back(std::move(c));
    if (budget_ && order_.size() > *budget_) order_.resize(*budget_);
  }
  std::vector<Params> propose(std::size_t n) override {
    std::vector<Params> out;
    while (out.size() < n && next_ < order_.size()) out.push_back(order_[next_++]);
    return out;
  }
  void observe(const Observation&) override {}
  bool done() const override { return next_ >= order_.size(); }

 private:
  std::optional<std::size_t> budget_;
  std::vector<Params> order_;
  std::size_t next_ = 0;
};

}  // namespace

std::unique_ptr<Strategy> make_exhaustive(const StrategyContext& ctx) { return std::make_unique<Exhaustive>(ctx); }

}  // namespace mpgemm
