#!/usr/bin/env bash
# On the H200 (device call, carry build/tl, built by build.sh): both builds of the timeline probe, logs under $OUT.
# run1/ was the first version (no settling, no K sweep, no first-issue stamp: git log shows its sources).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../../.."
out="${OUT:-/tmp/timeline}"
mkdir -p "$out"
sweep=(512x512:64,128,256,1024 1024x1024:64,128,256,512,2048)
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv \
  > "$out/gpu.txt"
build/tl/timeline_plain 15 20 0.5 - "${sweep[@]}" > "$out/plain.txt" 2>&1
build/tl/timeline_stamped 15 20 0.5 "$out/stamped.csv" "${sweep[@]}" > "$out/stamped.txt" 2>&1
nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv >> "$out/gpu.txt"
xz -9 "$out/stamped.csv"
