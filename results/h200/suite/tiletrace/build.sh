#!/usr/bin/env bash
# Builds the tile trace probe here (no GPU needed) into OUTDIR: v23's winners exported as a C++ header, and
#   tiletrace_plain    the product's kernels/ as they are
#   tiletrace_stamped  the same with tiletrace.patch (every work unit's phases stamped)
# Usage: build.sh SUITE_DB OUTDIR   (SUITE_DB: e.g. xz -dc results/h200/suite/v23/suite.db.xz > /tmp/v23.db)
# Needs build/bin/mpgemm-export (tools/bootstrap.sh or a CMake build) and the toolkit's nvcc.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
db="$1" out="$2"
mkdir -p "$out"
"$root/build/bin/mpgemm-export" "$db" --format cpp --device "NVIDIA H200" -o "$out/winners.hpp"
cp "$here/tiletrace.cu" "$root/results/h200/ceilings/graph_timing.cuh" "$out/"
rm -rf "$out/kernels_stamped" && cp -r "$root/kernels" "$out/kernels_stamped"
patch -s -d "$out/kernels_stamped" -p1 < "$here/tiletrace.patch"
# MPGEMM_TT_PIECES=1: also stamp each tma epilogue piece's steps (piece_stamps.patch, on top of tiletrace.patch).
pieces=()
if [ "${MPGEMM_TT_PIECES:-0}" = 1 ]; then
  patch -s -d "$out/kernels_stamped" -p1 < "$here/piece_stamps.patch"
  pieces=(-DMPGEMM_TT_PIECES=16)
fi
PATH=/usr/local/cuda/bin:$PATH
build() {  # build NAME KERNELS [FLAGS...]
  local name="$1" kernels="$2"
  shift 2
  nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I"$out" -I"$kernels" "$@" "$out/tiletrace.cu" -lcublas \
    -o "$out/tiletrace_$name"
}
build plain "$root/kernels" & p=$!
build stamped "$out/kernels_stamped" -DMPGEMM_TILETRACE "${pieces[@]}"
wait "$p"
