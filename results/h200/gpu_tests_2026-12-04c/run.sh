#!/usr/bin/env bash
# On the H200 (device call, carry build-dev: build/bin's mpgemm-* and GPU test binaries built from this commit):
# every GPU test (tools/gpu_tests.sh) after this session's changes (the export of stream-K winners; the kernel as of
# a44112b). Output under $OUT/gpu_tests_2026-12-04c, tarred.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
bash build-dev/prep.sh
out="${OUT:-/tmp}"
w="$out/gpu_tests_2026-12-04c" && mkdir -p "$w"
results/h200/gpu_tests_call.sh "$w" 420
tar cJf "$out/gpu_tests_2026-12-04c.tar.xz" -C "$out" gpu_tests_2026-12-04c
tail -20 "$w/gpu_tests.log"
