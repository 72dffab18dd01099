#!/usr/bin/env bash
# Builds the cp.async A/B here (no GPU needed) into OUTDIR: the v23 winners exported as a header and two binaries of
# ../timeline/timeline.cu (the ten winners, each against cuBLAS, graph replays): timeline_before with kernels/ of
# BASE (default HEAD, TMA loads), timeline_after with the work tree's kernels/ (cp_async_loads.patch applied) and
# -DMPGEMM_CP_ASYNC_LOADS. Also writes each build's ptxas report (-Xptxas -v) beside it.
# Usage: build.sh SUITE_DB OUTDIR [BASE]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
db="$1" out="$2" base="${3:-HEAD}"
mkdir -p "$out/before_kernels"
"$root/build/bin/mpgemm-export" "$db" --format cpp --device "NVIDIA H200" -o "$out/winners.hpp"
cp "$here/../timeline/timeline.cu" "$root/results/h200/ceilings/graph_timing.cuh" "$out/"
git -C "$root" archive "$base" kernels | tar -x -C "$out/before_kernels" --strip-components=1
PATH=/usr/local/cuda/bin:$PATH
build() {  # build NAME KERNELS [FLAGS...]
  local name="$1" kernels="$2"
  shift 2
  nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Xptxas -v "$@" -I"$out" -I"$kernels" \
    "$out/timeline.cu" -lcublas -o "$out/$name" 2> "$out/$name.ptxas.txt"
}
build timeline_before "$out/before_kernels" & p1=$!
build timeline_after "$root/kernels" -DMPGEMM_CP_ASYNC_LOADS
wait "$p1"
