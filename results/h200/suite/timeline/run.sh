#!/usr/bin/env bash
# On the H200 (device call, carry build/tl): both builds of the timeline probe, logs under $OUT.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../../.."
out="${OUT:-/tmp/timeline}"
mkdir -p "$out"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv \
  > "$out/gpu.txt"
build/tl/timeline_plain 15 20 > "$out/plain.txt" 2>&1
build/tl/timeline_stamped 15 20 "$out/stamped.csv" > "$out/stamped.txt" 2>&1
build/tl/timeline_plain 15 20 > "$out/plain2.txt" 2>&1
nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv >> "$out/gpu.txt"
xz -9 "$out/stamped.csv"
