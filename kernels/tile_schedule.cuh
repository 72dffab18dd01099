#pragma once
// The order in which a persistent grid walks its output tiles. Shared by the kernels (NVRTC) and the host (unit
// tests, the family's grid sizing): one definition of the order.
//
// Tiles form a tiles_m x tiles_n grid. Consecutive indices stay inside a band of `group` tile rows (raster along M)
// or tile columns (raster along N) and walk the band's short side first, so the CTAs running at one time share
// A rows and B columns in L2 (Triton's "grouped ordering"). With group = 1, raster along M is row-major order and
// raster along N column-major.
#include "host_device.cuh"

namespace mpgemm {

enum : int { kRasterM = 0, kRasterN = 1 };

struct TileCoord {
  int m;  // tile row (of C), 0 .. tiles_m - 1
  int n;  // tile column, 0 .. tiles_n - 1
};

// The index-th tile in the order; index in 0 .. tiles_m * tiles_n - 1, group >= 1.
MPGEMM_HD inline TileCoord tile_at(int index, int tiles_m, int tiles_n, int raster, int group) {
  const int along = raster == kRasterM ? tiles_m : tiles_n;   // the side the bands cut
  const int across = raster == kRasterM ? tiles_n : tiles_m;  // the other side
  const int band_tiles = group * across;
  const int band = index / band_tiles;
  const int first = band * group;
  const int width = along - first < group ? along - first : group;  // the last band may be narrower
  const int local = index - band * band_tiles;
  const int a = first + local % width;
  const int b = local / width;
  return raster == kRasterM ? TileCoord{a, b} : TileCoord{b, a};
}

}  // namespace mpgemm
