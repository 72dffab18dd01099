#!/usr/bin/env bash
# Builds the timeline probe here (no GPU needed): the suite database's winners exported as a C++ header, a copy of
# kernels/ with timeline.patch, and two binaries, stamped and plain. Usage: build.sh SUITE_DB OUTDIR
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
db="$1" out="$2"
mkdir -p "$out"
"$root/build/bin/mpgemm-export" "$db" --format cpp --device "NVIDIA H200" -o "$out/winners.hpp"
rm -rf "$out/kernels" && cp -r "$root/kernels" "$out/kernels"
patch -s -d "$out/kernels" -p1 < "$here/timeline.patch"
cp "$here/timeline.cu" "$out/"
cp "$root/results/h200/ceilings/graph_timing.cuh" "$out/"
flags=(-O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I"$out")
PATH=/usr/local/cuda/bin:$PATH
nvcc "${flags[@]}" -I"$out/kernels" -DMPGEMM_TIMELINE "$out/timeline.cu" -lcublas -o "$out/timeline_stamped" & stamped=$!
nvcc "${flags[@]}" -I"$root/kernels" "$out/timeline.cu" -lcublas -o "$out/timeline_plain"
wait "$stamped"
