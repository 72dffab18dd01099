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
//
// The slices of one tile are added into C in slice order (deterministic): slice 0 stores its partial sums, slice
// s > 0 waits until the tile's flag says s, adds its sums to C and sets the flag to s + 1; the last slice resets the
// flag to 0, so the flags are all zero again when the kernel ends.
#include "host_device.cuh"

namespace mpgemm {

enum : int { kSplitAll = 0, kSplitTail = 1 };

struct WorkUnit {
  int tile;      // cluster tile index, in the order of tile_schedule.cuh
  int split;     // slice of K, 0 .. splits - 1
  int splits;    // how many slices this tile has: 1 (unsplit) or split_k
  int kb_begin;  // first k-block of the slice
  int kb_end;    // one past its last
};

// Tiles that run unsplit: none in mode all; in mode tail the whole waves (all of them when the tiles fill whole waves).
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

}  // namespace mpgemm
