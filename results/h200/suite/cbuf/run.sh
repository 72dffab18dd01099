#!/usr/bin/env bash
# On the H200 (device call, carry build-dev): the staging-buffer probe, tools/suite_bench.sh over space.json (the
# 128 x 128 tma-epilogue tile, both schedules, 2-8 buffers per consumer, every ring depth that fits) at
# 4096x4096x256, 8192x8192x1024, 4096^3 and 2048^3. Outputs under $OUT/cbuf.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../../.."
bash build-dev/prep.sh
w="${OUT:-/tmp/cbuf}/cbuf" && mkdir -p "$w"
OUT="$w" MPGEMM_BIN=build/bin MPGEMM_SUITE_WITHIN=1.0 MPGEMM_SUITE_RERANK=20 timeout 400 tools/suite_bench.sh \
  results/h200/suite/cbuf/space.json 4096x4096x256,8192x8192x1024,4096x4096x4096,2048x2048x2048 > "$w/bench.log" 2>&1
echo "cbuf exit $?" >> "$w/bench.log"
rm -rf "$w/suite.db.cubins" "$w/suite.db-shm" "$w/suite.db-claims"
xz -T0 -6 "$w/suite.db"
