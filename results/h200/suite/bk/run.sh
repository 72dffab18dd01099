#!/usr/bin/env bash
# On the H200 (device call, carry build-dev: the bundle of build/bin, build/tl): the timeline probe before and after
# the first unit's hoist (two rounds in turns, then the stamped build), then the deep-stage space at the three
# latency-bound shapes through tools/suite_bench.sh. Outputs tarred into $OUT/bk.tar.xz.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../../.."
bash build-dev/prep.sh
out="${OUT:-/tmp/bk}"
w="$out/bk" && mkdir -p "$w"
sweep=(512x512:64,128,256,1024 1024x1024:64,128,256,512,2048)
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > "$w/gpu.txt"
for round in 1 2; do
  build/tl/timeline_before 15 20 0.5 - "${sweep[@]}" > "$w/before_$round.txt" 2>&1
  build/tl/timeline_plain 15 20 0.5 - "${sweep[@]}" > "$w/after_$round.txt" 2>&1
done
build/tl/timeline_stamped 15 20 0.5 "$w/stamped.csv" "${sweep[@]}" > "$w/stamped.txt" 2>&1
xz -9 "$w/stamped.csv"
OUT="$w/suite" MPGEMM_BIN=build/bin tools/suite_bench.sh results/h200/suite/bk/space.json \
  512x512x512,1024x1024x1024,16x4096x4096 > "$w/suite_bench.log" 2>&1
echo "suite_bench exit $?" >> "$w/suite_bench.log"
tar cJf "$out/bk.tar.xz" -C "$out" bk
