// Split-K on the CPU: the work units of kernels/split_k.cuh (compiled here by g++ too) cover every (tile, k-block)
// once and only ever wait for smaller units, and the wgmma family's split parameters, names, shape checks and grids.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "codegen/family.hpp"
#include "codegen/wgmma_family.hpp"
#include "split_k.cuh"
#include "support/h200.hpp"

namespace mpgemm {
namespace {

// Every (tile, k-block) pair exactly once; a split tile's slices are numbered in order with growing unit indices.
void expect_exact_cover(int tiles, int clusters, int k_blocks, int split_k, int mode) {
  const long long units = work_units(tiles, clusters, split_k, mode);
  std::set<std::pair<int, int>> seen;
  std::map<int, long long> last_unit_of_tile;
  std::map<int, int> next_split;
  for (long long u = 0; u < units; ++u) {
    const WorkUnit w = work_unit_at(u, tiles, clusters, k_blocks, split_k, mode);
    ASSERT_GE(w.tile, 0);
    ASSERT_LT(w.tile, tiles);
    ASSERT_LT(w.kb_begin, w.kb_end) << "an empty slice would leave its accumulators unset";
    EXPECT_EQ(w.split, next_split[w.tile]++) << "tile " << w.tile << ": slices in order";
    if (w.split > 0) {
      EXPECT_LT(last_unit_of_tile[w.tile], u) << "a slice waits only for smaller units";
    }
    last_unit_of_tile[w.tile] = u;
    for (int kb = w.kb_begin; kb < w.kb_end; ++kb) EXPECT_TRUE(seen.insert({w.tile, kb}).second);
  }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(tiles) * k_blocks);
  for (const auto& [tile, splits] : next_split) {
    const WorkUnit first = work_unit_at(tile, tiles, clusters, k_blocks, split_k, mode);
    EXPECT_EQ(splits, first.splits) << "tile " << tile;
  }
}

TEST(SplitK, UnitsCoverEveryTileAndKBlockOnce) {
  for (int mode : {kSplitAll, kSplitTail})
    for (int split_k : {1, 2, 3, 4, 7})
      for (auto [tiles, clusters] : {std::pair{1, 132}, {32, 132}, {288, 132}, {264, 132}, {5, 2}})
        for (int k_blocks : {7, 16, 47}) {
          if (k_blocks < split_k) continue;
          SCOPED_TRACE(::testing::Message() << "mode " << mode << " split " << split_k << " tiles " << tiles
                                            << " clusters " << clusters << " k_blocks " << k_blocks);
          expect_exact_cover(tiles, clusters, k_blocks, split_k, mode);
        }
}

// The clusters' walks (cluster_units / cluster_unit_at): every (tile, k-block) exactly once, each tile's slices
// numbered 0 .. splits - 1 once each, and the ordered reduction finishes: a simulation in which every cluster works
// through its units in order and a slice s > 0 can only finish after slice s - 1 of its tile ends with every unit
// done (no cycle of waits, whatever the clusters' relative speeds).
void expect_walks_cover_and_finish(int tiles, int clusters, int k_blocks, int split_k, int mode) {
  std::vector<std::vector<WorkUnit>> walks(static_cast<std::size_t>(clusters));
  std::set<std::pair<int, int>> seen;
  std::map<int, std::set<int>> slices_of_tile;
  std::map<int, int> splits_of_tile;
  for (int c = 0; c < clusters; ++c) {
    const int n = cluster_units(c, tiles, clusters, k_blocks, split_k, mode);
    for (int i = 0; i < n; ++i) {
      const WorkUnit w = cluster_unit_at(c, i, tiles, clusters, k_blocks, split_k, mode);
      ASSERT_GE(w.tile, 0);
      ASSERT_LT(w.tile, tiles);
      ASSERT_LT(w.kb_begin, w.kb_end) << "an empty slice would leave its accumulators unset";
      ASSERT_GE(w.split, 0);
      ASSERT_LT(w.split, w.splits);
      EXPECT_TRUE(slices_of_tile[w.tile].insert(w.split).second) << "tile " << w.tile << " slice " << w.split;
      if (splits_of_tile.count(w.tile)) {
        EXPECT_EQ(splits_of_tile[w.tile], w.splits) << "tile " << w.tile;
      }
      splits_of_tile[w.tile] = w.splits;
      if (mode == kSplitStream && w.split == 0) {
        EXPECT_EQ(w.kb_end, k_blocks) << "stream: slice 0 ends the tile";
      }
      for (int kb = w.kb_begin; kb < w.kb_end; ++kb) EXPECT_TRUE(seen.insert({w.tile, kb}).second);
      walks[static_cast<std::size_t>(c)].push_back(w);
    }
  }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(tiles) * k_blocks);
  for (const auto& [tile, slices] : slices_of_tile)
    EXPECT_EQ(static_cast<int>(slices.size()), splits_of_tile[tile]) << "tile " << tile;
  std::vector<std::size_t> next(walks.size(), 0);
  std::map<int, int> done_slices;  // per tile: slices finished, which is the flag's value
  for (bool progress = true; progress;) {
    progress = false;
    for (std::size_t c = 0; c < walks.size(); ++c) {
      while (next[c] < walks[c].size()) {
        const WorkUnit& w = walks[c][next[c]];
        if (done_slices[w.tile] != w.split) break;  // waits for the slice before it
        ++done_slices[w.tile];
        ++next[c];
        progress = true;
      }
    }
  }
  for (std::size_t c = 0; c < walks.size(); ++c)
    EXPECT_EQ(next[c], walks[c].size()) << "cluster " << c << " waits forever";
}

TEST(SplitK, ClusterWalksCoverEveryTileAndKBlockOnceAndFinish) {
  for (int mode : {kSplitAll, kSplitTail, kSplitStream})
    for (int split_k : {1, 2, 3, 7}) {
      if (mode == kSplitStream && split_k != 1) continue;
      for (auto [tiles, clusters] :
           {std::pair{1, 132}, {32, 132}, {288, 132}, {264, 132}, {576, 132}, {5, 2}, {7, 3}, {133, 132}})
        for (int k_blocks : {1, 7, 16, 47}) {
          if (k_blocks < split_k) continue;
          SCOPED_TRACE(::testing::Message() << "mode " << mode << " split " << split_k << " tiles " << tiles
                                            << " clusters " << clusters << " k_blocks " << k_blocks);
          expect_walks_cover_and_finish(tiles, clusters, k_blocks, split_k, mode);
        }
    }
}

// A 16-bit D's partial sums (kernels/split_k.cuh): every split tile (splits > 1) lies at or after
// first_split_tile(), and within split_tiles_bound() of it for the grid the host sized them for, or any smaller grid
// (a persistent grid is lowered at launch, never raised).
TEST(SplitK, SplitTilesFitThePartialSumsTheHostSizes) {
  for (int mode : {kSplitAll, kSplitTail, kSplitStream})
    for (int split_k : {1, 2, 3, 7}) {
      if (mode == kSplitStream && split_k != 1) continue;
      for (auto [tiles, host_clusters] :
           {std::pair{1, 132}, {32, 132}, {288, 132}, {264, 132}, {576, 132}, {5, 2}, {7, 3}, {133, 132}, {9, 1}})
        for (int clusters : {host_clusters, host_clusters - 1, host_clusters / 2 + 1, 2, 1}) {
          if (clusters < 1 || clusters > host_clusters) continue;
          for (int k_blocks : {1, 7, 47}) {
            if (k_blocks < split_k) continue;
            SCOPED_TRACE(::testing::Message()
                         << "mode " << mode << " split " << split_k << " tiles " << tiles << " clusters " << clusters
                         << " of " << host_clusters << " k_blocks " << k_blocks);
            const int first = first_split_tile(tiles, clusters, k_blocks, split_k, mode);
            const long long bound = split_tiles_bound(tiles, host_clusters, split_k, mode);
            for (int c = 0; c < clusters; ++c) {
              const int n = cluster_units(c, tiles, clusters, k_blocks, split_k, mode);
              for (int i = 0; i < n; ++i) {
                const WorkUnit w = cluster_unit_at(c, i, tiles, clusters, k_blocks, split_k, mode);
                if (w.splits == 1) continue;
                ASSERT_GE(w.tile, first);
                ASSERT_LT(w.tile - first, bound);
              }
            }
          }
        }
    }
  // Tight where it matters: one wave less one in tail, two waves less one in stream, every tile in all.
  EXPECT_EQ(split_tiles_bound(576, 132, 2, kSplitTail), 131);
  EXPECT_EQ(split_tiles_bound(576, 132, 1, kSplitStream), 263);
  EXPECT_EQ(split_tiles_bound(576, 132, 2, kSplitAll), 576);
  EXPECT_EQ(split_tiles_bound(576, 132, 1, kSplitAll), 0) << "unsplit";
  EXPECT_EQ(first_split_tile(576, 132, 47, 2, kSplitTail), 528);
  EXPECT_EQ(first_split_tile(576, 132, 47, 1, kSplitStream), 576 - 48 - 132);
}

TEST(SplitK, StreamGivesEveryClusterTheSameKBlocks) {
  // 3000^3 in 128 x 128 tiles: 24 x 24 = 576 tiles of 47 k-blocks on 132 clusters. Unsplit that is 5 rounds for
  // some clusters and 4 for others (4.36 on average); stream-K runs 3 whole waves, then shares the last 48 + 132
  // tiles' 8460 k-blocks out 64 or 65 to a cluster: 205 or 206 k-blocks each.
  const StreamSplit s = stream_split(576, 132, 47);
  EXPECT_EQ(s.dp_tiles, 396);
  EXPECT_EQ(s.sk_clusters, 132);
  EXPECT_EQ(s.sk_iters, 180 * 47);
  int lowest = 1 << 30, highest = 0;
  for (int c = 0; c < 132; ++c) {
    int blocks = 0;
    for (int i = 0; i < cluster_units(c, 576, 132, 47, 1, kSplitStream); ++i) {
      const WorkUnit w = cluster_unit_at(c, i, 576, 132, 47, 1, kSplitStream);
      blocks += w.kb_end - w.kb_begin;
    }
    lowest = std::min(lowest, blocks);
    highest = std::max(highest, blocks);
  }
  EXPECT_EQ(lowest, 205);
  EXPECT_EQ(highest, 206);
  EXPECT_EQ(stream_split(264, 132, 47).dp_tiles, 264) << "whole waves: nothing to share";
  EXPECT_EQ(stream_split(3, 132, 2).sk_clusters, 6) << "fewer k-blocks than clusters: one each";
}

TEST(SplitK, TailSplitsOnlyThePartialWave) {
  // 3000^3 in 128 x 256 tiles: 24 x 12 = 288 tiles on 132 clusters: two whole waves, 24 tiles left over.
  EXPECT_EQ(unsplit_tiles(288, 132, 4, kSplitTail), 264);
  EXPECT_EQ(work_units(288, 132, 4, kSplitTail), 264 + 24 * 4);
  EXPECT_EQ(work_units(288, 132, 4, kSplitAll), 288 * 4);
  EXPECT_EQ(work_units(264, 132, 4, kSplitTail), 264) << "whole waves: nothing to split";
  EXPECT_EQ(work_units(32, 132, 4, kSplitTail), 128) << "fewer tiles than clusters: all split";
  EXPECT_EQ(work_units(288, 132, 1, kSplitTail), 288);
  const WorkUnit w = work_unit_at(264 + 24 + 5, 288, 132, 47, 4, kSplitTail);
  EXPECT_EQ(w.tile, 264 + 5);
  EXPECT_EQ(w.split, 1);
  EXPECT_EQ(w.kb_begin, 47 / 4);
  EXPECT_EQ(w.kb_end, 2 * 47 / 4);
}

Params split_point(int split_k, const std::string& mode) {
  Params p = WgmmaConfig{}.to_params();
  p["SPLIT_K"] = std::int64_t{split_k};
  p["SPLIT_MODE"] = mode;
  return p;
}

DeviceDescription h200() {
  return mpgemm::testing::h200_description();
}

TEST(SplitK, UnsplitConfigsKeepTheirParametersAndNames) {
  const Params plain = WgmmaConfig{}.to_params();
  EXPECT_EQ(plain.count("SPLIT_K"), 0u);
  EXPECT_EQ(WgmmaConfig::from_params(plain).split_k, 1);
  EXPECT_EQ(WgmmaConfig::from_params(split_point(1, "all")).name(), WgmmaConfig{}.name());
  EXPECT_EQ(WgmmaConfig::from_params(split_point(1, "all")).to_params(), plain);
}

TEST(SplitK, NamesAndTemplateCarryTheSplit) {
  const WgmmaConfig all = WgmmaConfig::from_params(split_point(4, "all"));
  const WgmmaConfig tail = WgmmaConfig::from_params(split_point(3, "tail"));
  EXPECT_EQ(all.name(), "wgmma_bm128_bn256_bk64_s4_c2_coop_cl1x1_m8_direct_pers_sk4");
  EXPECT_EQ(tail.name(), "wgmma_bm128_bn256_bk64_s4_c2_coop_cl1x1_m8_direct_pers_sk3t");
  EXPECT_EQ(tail.name_expression(), "mpgemm::wgmma_gemm<128, 256, 4, 2, 1, 1, 0, 8, 0, 0, 0, 3, 1, 0, 0, 0>");
  EXPECT_EQ(WgmmaConfig::from_params(tail.to_params()), tail);
  const WgmmaConfig stream = WgmmaConfig::from_params(split_point(1, "stream"));
  EXPECT_TRUE(stream.splits());
  EXPECT_EQ(stream.name(), "wgmma_bm128_bn256_bk64_s4_c2_coop_cl1x1_m8_direct_pers_stk");
  EXPECT_EQ(stream.name_expression(), "mpgemm::wgmma_gemm<128, 256, 4, 2, 1, 1, 0, 8, 0, 0, 0, 1, 2, 0, 0, 0>");
  EXPECT_EQ(WgmmaConfig::from_params(stream.to_params()), stream);
  EXPECT_EQ(stream.to_params().count("SPLIT_MODE"), 1u) << "stream is kept although SPLIT_K is 1";
}

TEST(SplitK, RulesNameWhatTheKernelNeeds) {
  const Family& f = family("wgmma");
  Params tma = split_point(2, "all");
  tma["EPILOGUE"] = std::string("tma");
  tma["C_BUFFERS"] = std::int64_t{2};
  EXPECT_FALSE(f.check_config(tma).empty());
  Params grid = split_point(2, "all");
  grid["PERSISTENT"] = std::int64_t{0};
  EXPECT_FALSE(f.check_config(grid).empty());
  Params balanced_tail = split_point(2, "tail");
  balanced_tail["PERSISTENT"] = std::int64_t{2};
  EXPECT_FALSE(f.check_config(balanced_tail).empty());
  EXPECT_FALSE(f.check_config(split_point(0, "all")).empty());
  EXPECT_FALSE(f.check_config(split_point(17, "all")).empty());
  Params bad_mode = split_point(2, "all");
  bad_mode["SPLIT_MODE"] = std::string("some");
  EXPECT_FALSE(f.check_config(bad_mode).empty());
  EXPECT_TRUE(f.check_config(split_point(16, "tail")).empty());
  EXPECT_TRUE(f.check_config(split_point(1, "stream")).empty());
  EXPECT_FALSE(f.check_config(split_point(2, "stream")).empty()) << "stream sizes its slices itself";
  Params stream_tma = split_point(1, "stream");
  stream_tma["EPILOGUE"] = std::string("tma");
  stream_tma["C_BUFFERS"] = std::int64_t{2};
  EXPECT_FALSE(f.check_config(stream_tma).empty());
  Params stream_grid = split_point(1, "stream");
  stream_grid["PERSISTENT"] = std::int64_t{0};
  EXPECT_FALSE(f.check_config(stream_grid).empty());
}

TEST(SplitK, ShapesNeedEnoughKBlocksAndFlags) {
  const Family& f = family("wgmma");
  EXPECT_TRUE(f.check_shape(split_point(4, "all"), Shape{4096, 4096, 192}).value().find("SPLIT_K=4") !=
              std::string::npos);
  EXPECT_FALSE(f.check_shape(split_point(4, "all"), Shape{16, 4096, 4096}).has_value());
  // 128 x 256 tiles of 65536 x 65536: 512 x 256 tiles x 2 consumers = 262144 flags = exactly 1 MiB.
  EXPECT_FALSE(f.check_shape(split_point(2, "all"), Shape{65536, 65536, 128}).has_value());
  EXPECT_TRUE(f.check_shape(split_point(2, "all"), Shape{65536 + 128, 65536, 128}).has_value());
  EXPECT_FALSE(f.check_shape(WgmmaConfig{}.to_params(), Shape{65536 + 128, 65536, 128}).has_value())
      << "unsplit configs need no flags";
}

TEST(SplitK, GridCoversTheUnits) {
  const Family& f = family("wgmma");
  // 16 x 4096: 16 tiles of 128 x 256; split 4 gives 64 units, all co-resident on 132 SMs.
  EXPECT_EQ(f.launch_geometry(split_point(4, "all"), Shape{16, 4096, 4096}, h200()).grid.x, 64u);
  EXPECT_EQ(f.launch_geometry(split_point(16, "all"), Shape{16, 4096, 4096}, h200()).grid.x, 132u);
  Params balanced = split_point(4, "all");
  balanced["PERSISTENT"] = std::int64_t{2};
  const LaunchGeometry g = f.launch_geometry(balanced, Shape{3000, 3000, 3000}, h200());
  EXPECT_EQ(g.balanced_units, 288u * 4);
  // Stream-K keeps every SM busy while there are k-blocks to share: 16 tiles of 64 k-blocks on 132 SMs.
  EXPECT_EQ(f.launch_geometry(split_point(1, "stream"), Shape{16, 4096, 4096}, h200()).grid.x, 132u);
  EXPECT_EQ(f.launch_geometry(split_point(1, "stream"), Shape{3000, 3000, 3000}, h200()).grid.x, 132u);
}

TEST(SplitK, WorkspaceIsPassedAndRequired) {
  const Family& f = family("wgmma");
  ProblemBuffers buffers;
  buffers.a = reinterpret_cast<const void*>(0x10000);
  buffers.b = reinterpret_cast<const void*>(0x20000);
  buffers.c = reinterpret_cast<void*>(0x30000);
  buffers.shape = Shape{256, 256, 256};
  KernelArgs args;
  DriverFunctions no_driver;
  // Without a workspace a split config is refused before anything is asked of the driver; an unsplit one is not.
  try {
    f.append_problem_args(split_point(2, "all"), buffers, no_driver, args);
    ADD_FAILURE() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("workspace"), std::string::npos) << e.what();
  }
  try {
    f.append_problem_args(WgmmaConfig{}.to_params(), buffers, no_driver, args);
    ADD_FAILURE() << "no error";
  } catch (const std::exception& e) {
    EXPECT_EQ(std::string(e.what()).find("workspace"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace mpgemm
