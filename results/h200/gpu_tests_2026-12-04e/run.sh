#!/usr/bin/env bash
# On the H200 (device call, carry build-dev: build/bin's mpgemm-* and GPU test binaries, built from the C++ of
# 4d2416e, which main has not changed since): every GPU test through results/h200/gpu_tests_call.sh, the helper that
# f625137 made of four scripts' shared steps and that had not yet run on a device. Output under
# $OUT/gpu_tests_2026-12-04e, tarred.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
bash build-dev/prep.sh
out="${OUT:-/tmp}"
w="$out/gpu_tests_2026-12-04e" && mkdir -p "$w"
results/h200/gpu_tests_call.sh "$w" 420
tar cJf "$out/gpu_tests_2026-12-04e.tar.xz" -C "$out" gpu_tests_2026-12-04e
tail -20 "$w/gpu_tests.log"
