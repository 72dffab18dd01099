#!/usr/bin/env bash
# On the H200 (device call, carry build/tl, built by build.sh): the plain and two-issuer builds, twice each, in turns.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../../.."
out="${OUT:-/tmp/timeline}"
mkdir -p "$out"
sweep=(512x512:64,128,256,1024 1024x1024:64,128,256,512,2048)
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv \
  > "$out/gpu.txt"
for round in 1 2; do
  build/tl/timeline_plain 15 20 0.5 - "${sweep[@]}" > "$out/plain_$round.txt" 2>&1
  build/tl/timeline_two 15 20 0.5 - "${sweep[@]}" > "$out/two_$round.txt" 2>&1
done
nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv >> "$out/gpu.txt"
