#!/usr/bin/env bash
# Tuning speed on one H200 (tools/tune_bench.sh hopper): configs/sm90a_bench.json (1172 configs x 3 shapes) tuned
# cold (nothing compiled or measured), then warm at three new shapes (every cubin cached) exhaustively and with the
# model strategy (58 configs per shape, the cold database as its prior, its top 5 and every config within 4%
# re-ranked by time and by cycles), the model's picks judged side by side against the exhaustive optimum, and an
# A/A check of the winner in two processes.
# From a clean clone, after tools/bootstrap.sh: bash results/tune_speed/run.sh   (about 15 minutes)
# Writes $OUT/tune_bench.md and the databases (default OUT: /tmp/mpgemm_results/tune_speed); binaries from
# $MPGEMM_BIN (default build/bin). Exit status: tools/tune_bench.sh's.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/../.."
export OUT="${OUT:-${TMPDIR:-/tmp}/mpgemm_results/tune_speed}" MPGEMM_BIN="${MPGEMM_BIN:-build/bin}"
mkdir -p "$OUT"
exec tools/tune_bench.sh hopper
