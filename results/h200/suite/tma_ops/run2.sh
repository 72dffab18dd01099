#!/usr/bin/env bash
# On the H200 (device call, carry build/tl, built by ../timeline/build.sh): the deep-stage experiment against the
# plain build, in turns, at the three shapes whose winners have small tiles. Output under $OUT.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../../.."
out="${OUT:-/tmp/tma_ops}"
mkdir -p "$out"
export MPGEMM_TL_ONLY=512x512x512,1024x1024x1024,16x4096x4096
sweep=(512x512:64,128,256,1024 1024x1024:64,128,256,512,2048)
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt"
for round in 1 2 3; do
  build/tl/timeline_plain 15 20 0.5 - "${sweep[@]}" > "$out/plain_$round.txt" 2>&1
  build/tl/timeline_deep 15 20 0.5 - "${sweep[@]}" > "$out/deep_$round.txt" 2>&1
done
