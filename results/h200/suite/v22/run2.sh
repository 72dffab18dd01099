#!/usr/bin/env bash
# On the H200 (device call, carry build-dev), after run.sh ran out of time: v22 of the ten-shape suite over only.txt
# (tools/suite_bench.sh) in a call of its own, the GPU tests having run in another (../../gpu_tests_2026-12-04b/).
# Outputs tarred into $OUT/v22.tar.xz.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../../.."
bash build-dev/prep.sh
out="${OUT:-/tmp/v22}"
w="$out/v22" && mkdir -p "$w"
OUT="$w/suite" MPGEMM_BIN=build/bin timeout 560 tools/suite_bench.sh results/h200/suite/v22/space.json \
  configs/shapes/suite10.json -- --only "$(cat results/h200/suite/v22/only.txt)" > "$w/suite_bench.log" 2>&1
echo "suite_bench exit $?" >> "$w/suite_bench.log"
rm -rf "$w/suite/suite.db.cubins"
tar cJf "$out/v22.tar.xz" -C "$out" v22
