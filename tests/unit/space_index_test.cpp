// SpaceIndex: decoding an index gives enumerate()'s config at that position of the product (checked on every
// space of the repository and on synthetic ones), index_of inverts it, neighbours move one parameter one step,
// and a space far beyond kMaxSpaceProduct costs nothing to sample.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "space/enumerate.hpp"
#include "space/space_index.hpp"

namespace mpgemm {
namespace {

// The admissible configs in index order: what enumerate() must give.
std::vector<Params> decoded_admissible(const SpaceIndex& index) {
  std::vector<Params> out;
  for (std::uint64_t i = 0; i < index.size(); ++i)
    if (index.admissible(i)) out.push_back(index.decode(i));
  return out;
}

TEST(SpaceIndex, DecodeMatchesEnumerateOnTheRepositorySpaces) {
  std::size_t spaces = 0;
  for (const auto& entry : std::filesystem::directory_iterator(MPGEMM_SOURCE_DIR "/configs")) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().string());
    Space space = load_space(entry.path());
    if (product_size(space) > 2'000'000) continue;  // decoded below on a sample instead
    SpaceIndex index(space);
    EXPECT_EQ(index.size(), product_size(space));
    EXPECT_EQ(decoded_admissible(index), enumerate(space).configs);
    ++spaces;
  }
  EXPECT_GE(spaces, 3u);
}

TEST(SpaceIndex, DecodeMatchesEnumerateOnSyntheticSpaces) {
  for (const char* text : {
           R"J({"family": "wmma", "shapes": [{"M": 64, "N": 64, "K": 64}],
               "parameters": {"A": {"values": [3, 1, 2]}, "B": {"values": ["x", "y"]}, "C": {"range": [1, 7, 3]}}})J",
           R"J({"family": "wmma", "shapes": [{"M": 64, "N": 64, "K": 64}],
               "parameters": {"A": {"pow2": [1, 64]}, "B": {"range": [0, 4]}, "C": {"values": ["p", "q", "r"]}},
               "derived": {"S": "A * (B + 1)"}, "constraints": ["S <= 64", "C != \"q\" || B % 2 == 0"]})J",
           R"J({"family": "wmma", "shapes": [{"M": 64, "N": 64, "K": 64}], "parameters": {"ONLY": {"values": [7]}}})J",
       }) {
    Space space = parse_space(text, "synthetic.json");
    SpaceIndex index(space);
    Enumeration e = enumerate(space);
    EXPECT_EQ(index.size(), e.total);
    EXPECT_EQ(decoded_admissible(index), e.configs);
    // Every index of the product, in order, is the odometer of enumerate() with last parameter fastest.
    for (std::uint64_t i = 0; i < index.size(); ++i) {
      Params p = index.decode(i);
      ASSERT_EQ(index.index_of(p), i);
      EXPECT_EQ(index.index_of_digits(index.digits(i)), i);
    }
    EXPECT_THROW(index.decode(index.size()), Error);
  }
}

TEST(SpaceIndex, IndexOfIsNulloptOutsideTheDomains) {
  Space space = load_space(MPGEMM_SOURCE_DIR "/configs/sm86.json");
  SpaceIndex index(space);
  const NamedPoint* naive = space.find_point("wmma_naive");  // BM=16: outside the domains
  ASSERT_NE(naive, nullptr);
  EXPECT_FALSE(index.index_of(naive->params));
  Params p = index.decode(5);
  p.erase("BM");
  EXPECT_FALSE(index.index_of(p));
  p = index.decode(5);
  p["LOAD"] = std::int64_t{1};  // the other type
  EXPECT_FALSE(index.index_of(p));
}

TEST(SpaceIndex, NeighboursMoveOneParameterOneStep) {
  Space space = parse_space(R"J({"family": "wmma", "shapes": [{"M": 64, "N": 64, "K": 64}],
      "parameters": {"A": {"values": [1, 2, 3]}, "B": {"values": ["x", "y"]}, "C": {"range": [0, 3]}}})J",
                            "n.json");
  SpaceIndex index(space);
  // A=2 B="x" C=0: A to 1 and 3, B to "y", C to 1 (C=0 has no previous value).
  auto i = index.index_of({{"A", std::int64_t{2}}, {"B", std::string("x")}, {"C", std::int64_t{0}}});
  ASSERT_TRUE(i);
  std::vector<Params> got;
  for (std::uint64_t j : index.neighbours(*i)) got.push_back(index.decode(j));
  std::vector<Params> want = {
      {{"A", std::int64_t{1}}, {"B", std::string("x")}, {"C", std::int64_t{0}}},
      {{"A", std::int64_t{3}}, {"B", std::string("x")}, {"C", std::int64_t{0}}},
      {{"A", std::int64_t{2}}, {"B", std::string("y")}, {"C", std::int64_t{0}}},
      {{"A", std::int64_t{2}}, {"B", std::string("x")}, {"C", std::int64_t{1}}},
  };
  EXPECT_EQ(got, want);
}

TEST(SpaceIndex, SamplingAHugeSpaceIsFast) {
  // 10 parameters of 8 values: 8^10 > 10^9 configs, far beyond kMaxSpaceProduct. The loader refuses a product
  // that large, so the space is loaded with 2 values per parameter and widened here.
  std::string params;
  for (int p = 0; p < 10; ++p)
    params += std::string(p ? ", " : "") + "\"P" + std::to_string(p) + "\": {\"range\": [0, 1]}";
  Space space = parse_space(R"J({"family": "wmma", "shapes": [{"M": 64, "N": 64, "K": 64}], "parameters": {)J" +
                                params + R"J(}, "constraints": ["P0 + P1 <= 10"]})J",
                            "huge.json");
  for (Parameter& p : space.parameters) {
    p.domain.clear();
    for (std::int64_t v = 0; v < 8; ++v) p.domain.emplace_back(std::in_place_index<0>, v);
  }
  SpaceIndex index(space);
  EXPECT_EQ(index.size(), 1073741824u);
  EXPECT_GT(index.size(), kMaxSpaceProduct);
  EXPECT_THROW(enumerate(space), SpaceError);
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t x = 12345, admissible = 0;
  for (int n = 0; n < 20000; ++n) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const std::uint64_t i = (x >> 11) % index.size();
    Params p = index.decode(i);
    ASSERT_EQ(index.index_of(p), i);
    admissible += index.admissible(i);
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GT(admissible, 10000u);  // P0 + P1 <= 10 holds for 51 of 64 pairs
  EXPECT_LT(s, 5.0);              // about 0.1 s; generous for a loaded machine
}

}  // namespace
}  // namespace mpgemm
