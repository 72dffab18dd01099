#!/usr/bin/env bash
# On the H200 (device call, carry build-dev: mpgemm-tune, mpgemm-worker, tune_wgmma_test and the timeline probe's
# before/plain builds of the final kernel): after the fix of the deep-stage test's one spilling config (the hoisted
# first unit kept 7 registers live in the producer), the deep-stage GPU test and the broken-build test again, and the
# hoist's per-launch times again at the five PDL shapes. Output under $OUT/recheck.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
bash build-dev/prep.sh
w="${OUT:-/tmp}/recheck" && mkdir -p "$w"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm --format=csv > "$w/gpu.txt"
timeout 90 build/bin/tune_wgmma_test --gtest_filter='*DeepStages*:*BrokenBuild*' > "$w/tune_wgmma_test.log" 2>&1
echo "tune_wgmma_test exit $?" >> "$w/tune_wgmma_test.log"
export MPGEMM_TL_ONLY=512x512x512,1024x1024x1024,16x4096x4096,2048x2048x2048,4096x4096x256
for round in 1 2; do
  build/tl/timeline_before 15 20 0.5 - > "$w/before_$round.txt" 2>&1
  build/tl/timeline_plain 15 20 0.5 - > "$w/after_$round.txt" 2>&1
done
