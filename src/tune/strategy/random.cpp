// random: uniform samples of the space without replacement, drawn as indexes and decoded lazily
// (space/space_index.hpp), configs failing a constraint rejected. Named points are not drawn specially.
#include "tune/strategy/detail.hpp"

namespace mpgemm::strategy_detail {

namespace {

class Random final : public Strategy {
 public:
  explicit Random(const StrategyContext& context)
      : index_(*context.space), sampler_(index_.size()), rng_(context.seed), budget_(context.budget) {}

  std::vector<Params> propose(std::size_t n) override {
    std::vector<Params> out;
    while (out.size() < n && !done()) {
      auto i = sampler_.next(rng_);
      if (!i) break;
      if (!index_.admissible(*i)) continue;
      out.push_back(index_.decode(*i));
      ++proposed_;
    }
    return out;
  }

  void observe(const Observation&) override {}

  bool done() const override { return (budget_ && proposed_ >= *budget_) || sampler_.remaining() == 0; }

 private:
  SpaceIndex index_;
  IndexSampler sampler_;
  Rng rng_;
  std::optional<std::size_t> budget_;
  std::size_t proposed_ = 0;
};

}  // namespace

StrategyInfo random_info() {
  return {"random",
          "uniform samples without replacement, decoded lazily from indexes (any space size)",
          {},
          [](const StrategyContext& c) -> std::unique_ptr<Strategy> { return std::make_unique<Random>(c); }};
}

}  // namespace mpgemm::strategy_detail
