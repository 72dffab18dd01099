// TuneInput::admissible: the run's one walk of the space, handed to the strategies so they need not walk it again
// per shape. It must be exactly what walking the space gives (AdmissibleIndexes over the product), named points that
// lie inside the domains included where they lie, and the exhaustive strategy must propose the same configs in the
// same order from it as from its own walk.
#include <gtest/gtest.h>

#include <memory>

#include "space/enumerate.hpp"
#include "tune/strategy/strategy.hpp"
#include "tune/tune_input.hpp"

namespace mpgemm {
namespace {

std::vector<std::uint64_t> walked(const Space& space) {
  AdmissibleIndexes walk(space);
  std::vector<std::uint64_t> out;
  for (std::size_t k = 0;; ++k) {
    const auto i = walk.at(k);
    if (!i) break;
    out.push_back(*i);
  }
  return out;
}

std::vector<Params> proposals(const TuneInput& in, std::shared_ptr<AdmissibleIndexes> admissible) {
  StrategyContext ctx{&in.space, in.shapes.front(), 0, std::nullopt, {}, {}, std::move(admissible)};
  auto strategy = make_strategy("exhaustive", std::move(ctx));
  std::vector<Params> out;
  while (!strategy->done()) {
    auto some = strategy->propose(7);
    if (some.empty()) break;
    out.insert(out.end(), some.begin(), some.end());
  }
  return out;
}

class TuneInputAdmissible : public testing::TestWithParam<const char*> {};

TEST_P(TuneInputAdmissible, IsTheSpacesWalkAndTheExhaustiveStrategyProposesAlike) {
  TuneOptions opt;
  opt.space_path = std::string(MPGEMM_SOURCE_DIR "/configs/") + GetParam();
  const TuneInput in = check_tune_input(opt);
  ASSERT_FALSE(in.admissible.empty());
  EXPECT_EQ(in.admissible, walked(in.space));
  const auto own = proposals(in, nullptr);
  const auto given = proposals(in, std::make_shared<AdmissibleIndexes>(in.admissible));
  EXPECT_EQ(own.size(), in.selected.size());  // every config of the space, the named points first
  EXPECT_EQ(given, own);
}

INSTANTIATE_TEST_SUITE_P(Spaces, TuneInputAdmissible, testing::Values("sm86.json", "sm90a_suite.json"));

}  // namespace
}  // namespace mpgemm
