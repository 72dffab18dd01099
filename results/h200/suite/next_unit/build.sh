#!/usr/bin/env bash
# Builds the next-unit A/B here (no GPU needed) into OUTDIR: the v23 winners exported as a header, and four binaries:
#   timeline_{before,after}   ../timeline/timeline.cu (the ten winners, each against cuBLAS, graph replays)
#   tiletrace_{before,after}  ../tiletrace/tiletrace.cu, plain (4096x4096x256: the winner, it cooperative, two variants)
# "before" with kernels/ of BASE (default HEAD), "after" with the work tree's kernels/.
# Usage: build.sh SUITE_DB OUTDIR [BASE]
# Needs build/bin/mpgemm-export (tools/bootstrap.sh or a CMake build) and the toolkit's nvcc.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
db="$1" out="$2" base="${3:-HEAD}"
mkdir -p "$out/before_kernels"
"$root/build/bin/mpgemm-export" "$db" --format cpp --device "NVIDIA H200" -o "$out/winners.hpp"
cp "$here/../timeline/timeline.cu" "$here/../tiletrace/tiletrace.cu" "$root/results/h200/ceilings/graph_timing.cuh" "$out/"
git -C "$root" archive "$base" kernels | tar -x -C "$out/before_kernels" --strip-components=1
PATH=/usr/local/cuda/bin:$PATH
build() {  # build NAME SOURCE KERNELS
  nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I"$out" -I"$3" "$out/$2.cu" -lcublas -o "$out/$1"
}
build timeline_before timeline "$out/before_kernels" & p1=$!
build timeline_after timeline "$root/kernels"
wait "$p1"
build tiletrace_before tiletrace "$out/before_kernels" & p2=$!
build tiletrace_after tiletrace "$root/kernels"
wait "$p2"
