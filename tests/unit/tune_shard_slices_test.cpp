// Shard (tune/shard.hpp) on the CPU: parsing, and that the slices of N shards partition the pairs, are balanced
// per shape, and that pairs() counts what takes() accepts.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "tune/shard.hpp"

namespace mpgemm {
namespace {

TEST(TuneShard, ParsesIOfN) {
  const Shard s = Shard::parse("3/8");
  EXPECT_EQ(s.index, 3);
  EXPECT_EQ(s.count, 8);
  EXPECT_EQ(s.str(), "3/8");
  EXPECT_EQ(Shard::parse("1/1").str(), "1/1");
  for (const char* bad : {"", "3", "/8", "3/", "0/8", "9/8", "-1/8", "1/0", "a/b", "1/8/2", " 1/8", "1/8 "})
    EXPECT_THROW(Shard::parse(bad), UsageError) << bad;
}

TEST(TuneShard, ShardsPartitionEveryShapeAndStayWithinOnePair) {
  for (int n : {1, 2, 3, 4, 7}) {
    for (std::size_t shapes : {1u, 2u, 3u, 5u}) {
      for (std::size_t configs : {0u, 1u, 5u, 27u, 1172u}) {
        std::size_t sum = 0;
        for (std::size_t s = 0; s < shapes; ++s) {
          std::size_t lo = configs, hi = 0;
          for (int i = 1; i <= n; ++i) {
            const Shard shard{i, n};
            std::size_t mine = 0;
            for (std::size_t k = 0; k < configs; ++k) mine += shard.takes(k, s);
            lo = std::min(lo, mine);
            hi = std::max(hi, mine);
          }
          EXPECT_LE(hi - lo, 1u) << n << " shards, shape " << s << ", " << configs << " configs";
          for (std::size_t k = 0; k < configs; ++k) {
            int owners = 0;
            for (int i = 1; i <= n; ++i) owners += Shard{i, n}.takes(k, s);
            EXPECT_EQ(owners, 1) << "config " << k << " shape " << s << " of " << n << " shards";
          }
        }
        for (int i = 1; i <= n; ++i) {
          const Shard shard{i, n};
          std::size_t counted = 0;
          for (std::size_t s = 0; s < shapes; ++s)
            for (std::size_t k = 0; k < configs; ++k) counted += shard.takes(k, s);
          EXPECT_EQ(shard.pairs(configs, shapes), counted) << shard.str() << " " << configs << "x" << shapes;
          sum += counted;
        }
        EXPECT_EQ(sum, configs * shapes);
      }
    }
  }
}

// With as many shards as shapes, a shard must not get a whole shape (the shapes' costs differ by orders of
// magnitude): each takes every N-th config of every shape.
TEST(TuneShard, AShardTakesPartOfEveryShape) {
  for (std::size_t s = 0; s < 3; ++s)
    for (int i = 1; i <= 3; ++i) {
      std::size_t mine = 0;
      for (std::size_t k = 0; k < 30; ++k) mine += Shard{i, 3}.takes(k, s);
      EXPECT_EQ(mine, 10u) << "shard " << i << " shape " << s;
    }
}

}  // namespace
}  // namespace mpgemm
