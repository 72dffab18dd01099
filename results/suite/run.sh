#!/usr/bin/env bash
# The ten-shape suite on one H200: configs/sm90a_suite.json over configs/shapes/suite10.json, each shape's configs
# within 10% of its first-pass best re-ranked against cuBLAS and cuBLASLt, every batch a CUDA graph replay.
# From a clean clone, after tools/bootstrap.sh:
#   bash results/suite/run.sh                   the whole space (2818 configs; about 20 min; a rerun resumes $OUT)
#   bash results/suite/run.sh --record-configs  only the 406 configs the table of record tuned (only.txt)
# Writes $OUT/suite.db and $OUT/suite_bench.md (default OUT: /tmp/mpgemm_results/suite); binaries from $MPGEMM_BIN
# (default build/bin). Exit status: tools/suite_bench.sh's.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/../.."
export OUT="${OUT:-${TMPDIR:-/tmp}/mpgemm_results/suite}" MPGEMM_BIN="${MPGEMM_BIN:-build/bin}"
mkdir -p "$OUT"
extra=()
[ "${1:-}" = --record-configs ] && extra=(-- --only "$(cat "$here/only.txt")")
exec tools/suite_bench.sh configs/sm90a_suite.json configs/shapes/suite10.json "${extra[@]}"
