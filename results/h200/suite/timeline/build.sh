#!/usr/bin/env bash
# Builds the timeline probe here (no GPU needed) into OUTDIR: the suite database's winners exported as a C++ header,
# and these binaries (each the same host, timeline.cu, over other kernels):
#   timeline_plain    the product's kernels/ as they are now
#   timeline_stamped  the same with timeline.patch (every block stamps its phases)
#   timeline_before   kernels/ of commit 54d6007 (v21's kernel, before the first unit was hoisted above the
#                     dependency wait), the base of the two experiments below
#   timeline_two      54d6007 with two_issuers.patch (A's and B's copies issued from two warps)
#   timeline_deep     54d6007 with ../tma_ops/deep_stage.patch (two k-blocks per ring stage) for 512^3's, 1024^3's and
#                     16x4096x4096's winners with half their stages
# Usage: build.sh SUITE_DB OUTDIR
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
db="$1" out="$2"
base=54d6007
mkdir -p "$out"
"$root/build/bin/mpgemm-export" "$db" --format cpp --device "NVIDIA H200" -o "$out/winners.hpp"
cp "$here/timeline.cu" "$root/results/h200/ceilings/graph_timing.cuh" "$out/"
kernels_of() {  # kernels_of DIR COMMIT|- [PATCH]: a copy of kernels/ (of COMMIT, or the work tree) with PATCH applied
  rm -rf "$1" && mkdir -p "$1"
  if [ "$2" = - ]; then cp -r "$root/kernels/." "$1/"; else git -C "$root" archive "$2" kernels | tar -x -C "$1" --strip-components=1; fi
  if [ $# -ge 3 ]; then patch -s -d "$1" -p1 < "$3"; fi
}
kernels_of "$out/kernels_stamped" - "$here/timeline.patch"
kernels_of "$out/kernels_before" "$base"
kernels_of "$out/kernels_two" "$base" "$here/two_issuers.patch"
kernels_of "$out/kernels_deep" "$base" "$here/../tma_ops/deep_stage.patch"
mkdir -p "$out/deep"
sed -e 's/wgmma_gemm<32, 64, 12,/wgmma_gemm<32, 64, 6,/g' -e 's/wgmma_gemm<16, 64, 12,/wgmma_gemm<16, 64, 6,/g' \
    -e 's/wgmma_gemm<128, 64, 6,/wgmma_gemm<128, 64, 3,/g' "$out/winners.hpp" > "$out/deep/winners.hpp"
cp "$out/timeline.cu" "$out/graph_timing.cuh" "$out/deep/"
PATH=/usr/local/cuda/bin:$PATH
build() {  # build NAME SOURCE_DIR KERNELS [FLAGS...]
  local name="$1" src="$2" kernels="$3"
  shift 3
  nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I"$src" -I"$kernels" "$@" "$src/timeline.cu" -lcublas \
    -o "$out/timeline_$name"
}
build plain "$out" "$root/kernels" & p1=$!
build stamped "$out" "$out/kernels_stamped" -DMPGEMM_TIMELINE
wait "$p1"
build before "$out" "$out/kernels_before" & p2=$!
build two "$out" "$out/kernels_two"
wait "$p2"
build deep "$out/deep" "$out/kernels_deep" -DMPGEMM_KB_PER_STAGE=2
