#!/usr/bin/env bash
# On the H200 (device call, carry build-dev): the tma epilogue in rounds, A/B. The binaries of
# `bash results/h200/suite/next_unit/build.sh <v23 db> DIR BASE` (before: kernels of BASE, after: this commit's),
# copied to build-dev/nu/, timed before and after in turns, twice each: the ten v23 winners (timeline) and
# 4096x4096x256's four variants (tiletrace, plain). Then every GPU test (tools/gpu_tests.sh) with build-dev's
# binaries of this commit. Logs under $OUT/tma_rounds, tarred. The change is not on main: apply
# tma_rounds.patch and build (build/bin and build.sh's "after") first.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../../.."
bash build-dev/prep.sh
o="${OUT:-/tmp/tma_rounds}" && w="$o/tma_rounds" && mkdir -p "$w"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > "$w/gpu.txt"
results/h200/suite/next_unit/ab_rounds.sh "$w"
results/h200/gpu_tests_call.sh "$w" 330
tar cJf "$o/tma_rounds.tar.xz" -C "$o" tma_rounds
for f in "$w"/t*.txt; do echo "== $(basename "$f")"; grep -E "per launch|x[0-9]+ +max" "$f" | sed 's/max |ours - cuBLAS| [0-9.e+-]*; //'; done
tail -14 "$w/gpu_tests.log"
