#pragma once
// Work units of a split-K grid: which tile, which slice of K. Shared by the kernels (NVRTC) and the host (the
// family's grid sizing and shape checks, unit tests): one definition of the split.
//
// A tile's K loop (k_blocks blocks of 64) is cut into `splits` contiguous slices; slice s covers blocks
// [s * k_blocks / splits, (s + 1) * k_blocks / splits). Units are numbered split-major (all tiles' slice 0, then
// all tiles' slice 1, ...), so a unit only ever waits for a unit with a smaller number: a persistent, co-resident
// grid that takes units in increasing order per CTA cannot deadlock (the smallest unfinished unit waits for nothing).
//
// Modes:
//   all   every tile is split `split_k` ways.
//   tail  data-parallel + split-K: the tiles that fill whole waves of `clusters` run unsplit, and only the last,
//         partial wave's tiles are split, which evens out the wave quantisation of e.g. 3000^3 (with fewer tiles
//         than clusters, every tile is split).
//   stream  data-parallel + stream-K: whole waves of tiles run unsplit but one, and the k-blocks of the rest (the
//         partial wave plus one whole wave, so that every cluster gets at least one tile's worth) are shared out in
//         equal contiguous ranges, one per cluster, that cross tile boundaries: a tile is cut where the ranges are.
//         Every cluster then does the same number of k-blocks (to one), whatever the tile count. SPLIT_K is 1.
//
// The slices of one tile are added into C in slice order (deterministic): slice 0 stores its partial sums, slice
// s > 0 waits until the tile's flag says s, adds its sums to C and sets the flag to s + 1; the last slice resets the
// flag to 0, so the flags are all zero again when the kernel ends. In modes all and tail, slice order is K order and
// units are numbered split-major. In mode stream, slice order is reverse K order: a cluster's range starts with the
// end of a tile (done first, slice 0) and ends with the start of another (done last), so each slice waits for one
// that a higher-numbered cluster did at the start of its range, and waits point to higher clusters only.
//
// A CTA walks its cluster's units with cluster_units() / cluster_unit_at(): in modes all and tail, units cluster,
// cluster + clusters, ...; in mode stream, its data-parallel tiles, then the pieces of its range in K order.
#include "host_device.cuh"

namespace mpgemm {

enum : int { kSplitAll = 0, kSplitTail = 1, kSplitStream = 2 };

struct WorkUnit {
  int tile;      // cluster tile index, in the order of tile_schedule.cuh
  int split;     // slice of K, 0 .. splits - 1
  int splits;    // how many slices this tile has: 1 (unsplit) or split_k
  int kb_begin;  // first k-block of the slice
  int kb_end;    // one past its last
};

// Modes all and tail. Tiles that run unsplit: none in mode all; in mode tail the whole waves (all of them when the
// tiles fill whole waves).
MPGEMM_HD inline int unsplit_tiles(int tiles, int clusters, int split_k, int mode) {
  if (split_k <= 1) return tiles;
  if (mode == kSplitAll || clusters <= 0) return 0;
  return (tiles / clusters) * clusters;
}

// How many units the grid works through.
MPGEMM_HD inline long long work_units(int tiles, int clusters, int split_k, int mode) {
  const int whole = unsplit_tiles(tiles, clusters, split_k, mode);
  return whole + static_cast<long long>(tiles - whole) * (split_k > 1 ? split_k : 1);
}

// The index-th unit, index in 0 .. work_units() - 1.
MPGEMM_HD inline WorkUnit work_unit_at(long long index, int tiles, int clusters, int k_blocks, int split_k, int mode) {
  const int whole = unsplit_tiles(tiles, clusters, split_k, mode);
  if (index < whole) return WorkUnit{static_cast<int>(index), 0, 1, 0, k_blocks};
  const long long v = index - whole;
  const int rest = tiles - whole;
  const int split = static_cast<int>(v / rest);
  const int tile = whole + static_cast<int>(v % rest);
  const long long kb = k_blocks;
  return WorkUnit{tile, split, split_k, static_cast<int>(split * kb / split_k),
                  static_cast<int>((split + 1) * kb / split_k)};
}

// ---- mode stream ----------------------------------------------------------------------------------------------

struct StreamSplit {
  int dp_tiles;        // tiles 0 .. dp_tiles - 1 run whole (a multiple of the clusters)
  int sk_clusters;     // clusters that share the rest's k-blocks (all of them, or one per k-block when fewer)
  long long sk_iters;  // k-blocks of the rest: (tiles - dp_tiles) * k_blocks
};

MPGEMM_HD inline StreamSplit stream_split(int tiles, int clusters, int k_blocks) {
  const int rest = tiles % clusters;
  const int whole = tiles - rest;
  const int sk_tiles = rest == 0 ? 0 : rest + (whole > 0 ? clusters : 0);
  const long long iters = static_cast<long long>(sk_tiles) * k_blocks;
  return StreamSplit{tiles - sk_tiles, iters < clusters ? static_cast<int>(iters) : clusters, iters};
}

// Where cluster c's range of the rest's k-blocks starts (c = sk_clusters: the end). Ranges are never empty.
MPGEMM_HD inline long long stream_bound(const StreamSplit& s, int c) {
  return s.sk_clusters == 0 ? 0 : c * s.sk_iters / s.sk_clusters;
}

// Range boundaries (starts of clusters 1 .. sk_clusters - 1) strictly below x, for x in 0 .. sk_iters:
// floor(j * iters / G) < x  <=>  j < x * G / iters.
MPGEMM_HD inline int stream_bounds_below(const StreamSplit& s, long long x) {
  if (x <= 0) return 0;
  return static_cast<int>((x * s.sk_clusters + s.sk_iters - 1) / s.sk_iters) - 1;
}

// ---- 16-bit D: the split tiles' FP32 partial sums -------------------------------------------------------------
// A split tile's slices add in FP32. With D FP32 the earlier slices leave their sums in D itself; with D FP16 or BF16
// they cannot (a rounding per slice), so they leave them in the workspace instead, after the flags' megabyte: one
// BM x BN block of floats per CTA of each split tile, in the order of the split tiles (tile - first_split_tile()),
// each CTA's rows at a stride of BN. The tile's last slice reads them, adds its own, rounds once and writes D.
enum : long long { kSplitPartialsOffset = 1 << 20 };  // bytes: the host's kWorkspaceBytes (src/codegen/family.hpp)

// The first tile that may be split; every tile before it runs whole. Mode all: 0; tail: the whole waves; stream: the
// data-parallel tiles.
MPGEMM_HD inline int first_split_tile(int tiles, int clusters, int k_blocks, int split_k, int mode) {
  if (mode == kSplitStream) return stream_split(tiles, clusters, k_blocks).dp_tiles;
  return unsplit_tiles(tiles, clusters, split_k, mode);
}

// How many tiles from first_split_tile() on may be split, for a grid of `clusters` clusters or of any fewer (a
// persistent grid is only ever lowered at launch): what the host sizes the partial sums for. Mode all: every tile;
// tail: the partial wave, under one wave; stream: the partial wave and one whole wave.
MPGEMM_HD inline long long split_tiles_bound(int tiles, int clusters, int split_k, int mode) {
  if (mode != kSplitStream && split_k <= 1) return 0;
  if (mode == kSplitAll) return tiles;
  const long long wave = clusters > 1 ? clusters - 1 : 0;
  const long long bound = mode == kSplitTail ? wave : 2 * wave + 1;
  return tiles < bound ? tiles : bound;
}

// ---- every mode: the units of one cluster, in the order it works through them ------------------------------------

MPGEMM_HD inline int cluster_units(int cluster, int tiles, int clusters, int k_blocks, int split_k, int mode) {
  if (mode != kSplitStream) {
    const long long units = work_units(tiles, clusters, split_k, mode);
    return cluster < units ? static_cast<int>((units - cluster + clusters - 1) / clusters) : 0;
  }
  const StreamSplit s = stream_split(tiles, clusters, k_blocks);
  int n = s.dp_tiles / clusters;
  if (cluster < s.sk_clusters) {
    const long long lo = stream_bound(s, cluster), hi = stream_bound(s, cluster + 1);
    n += static_cast<int>((hi - 1) / k_blocks - lo / k_blocks + 1);
  }
  return n;
}

MPGEMM_HD inline WorkUnit cluster_unit_at(int cluster, int i, int tiles, int clusters, int k_blocks, int split_k,
                                          int mode) {
  if (mode != kSplitStream)
    return work_unit_at(cluster + static_cast<long long>(i) * clusters, tiles, clusters, k_blocks, split_k, mode);
  const StreamSplit s = stream_split(tiles, clusters, k_blocks);
  const int dp = s.dp_tiles / clusters;
  if (i < dp) return WorkUnit{cluster + i * clusters, 0, 1, 0, k_blocks};
  const long long lo = stream_bound(s, cluster), hi = stream_bound(s, cluster + 1);
  const long long t = lo / k_blocks + (i - dp);  // tile of the rest, 0-based
  const long long start = t * k_blocks, end = start + k_blocks;
  const long long b = lo > start ? lo : start, e = hi < end ? hi : end;
  const int later = stream_bounds_below(s, end) - stream_bounds_below(s, e);  // pieces of the tile above this one
  const int pieces = 1 + stream_bounds_below(s, end) - stream_bounds_below(s, start + 1);
  return WorkUnit{s.dp_tiles + static_cast<int>(t), later, pieces, static_cast<int>(b - start),
                  static_cast<int>(e - start)};
}

}  // namespace mpgemm
