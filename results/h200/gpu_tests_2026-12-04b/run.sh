#!/usr/bin/env bash
# On the H200 (device call, carry build-dev: build/bin's mpgemm-* and GPU test binaries, the timeline probe's
# before/plain builds in build/tl): the committed kernel's first GPU run. Every GPU test (tools/gpu_tests.sh), then
# the hoist's per-launch times at the five PDL shapes, kernel of 54d6007 against the committed one, two rounds.
# Output under $OUT/gpu_tests_2026-12-04b, tarred.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
bash build-dev/prep.sh
out="${OUT:-/tmp}"
w="$out/gpu_tests_2026-12-04b" && mkdir -p "$w"
results/h200/gpu_tests_call.sh "$w" 330
export MPGEMM_TL_ONLY=512x512x512,1024x1024x1024,16x4096x4096,2048x2048x2048,4096x4096x256
for round in 1 2; do
  timeout 60 build/tl/timeline_before 15 20 0.5 - > "$w/before_$round.txt" 2>&1
  timeout 60 build/tl/timeline_plain 15 20 0.5 - > "$w/after_$round.txt" 2>&1
done
tar cJf "$out/gpu_tests_2026-12-04b.tar.xz" -C "$out" gpu_tests_2026-12-04b
