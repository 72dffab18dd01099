#!/usr/bin/env bash
# The coordinator's overhead per measurement, on the CPU (issue 44): the leaders workflow replayed from the suite's
# database of record, each candidate taking --replay-delay-ms as a GPU measurement would. Prints the run's summary,
# the coordinator's and the lane's accounts, and one line a later change can be compared with:
#   overhead: W s wall - P pairs x D ms = X ms per (config, shape) pair
# No GPU, no NVRTC: the replay backend answers from the recording. Not a timed unit test: a figure to compare.
#
# Usage: tools/coordinator_bench.sh [SHAPES]
#   SHAPES            comma-separated MxNxK of the suite (default: 4096x4096x4096,512x512x512,128x8192x8192)
#   $MPGEMM_BIN       the binaries (default build/bin)
#   $DELAY_MS         per candidate (default 20)
#   $OUT              output folder (default /tmp/mpgemm_results/coordinator): replay.log, rp.db, suite.db
# Exit status: the tuner's.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
shapes="${1:-4096x4096x4096,512x512x512,128x8192x8192}"
bin="${MPGEMM_BIN:-$root/build/bin}"
delay="${DELAY_MS:-20}"
out="${OUT:-${TMPDIR:-/tmp}/mpgemm_results/coordinator}"
mkdir -p "$out" || exit 2
rm -f "$out"/rp.db "$out"/rp.db-*
[ -s "$out/suite.db" ] || xz -dkc "$root/results/suite/suite.db.xz" > "$out/suite.db" || exit 2
cd "$root" || exit 2
start=$(date +%s.%N)
"$bin/mpgemm-tune" configs/sm90a_suite.json --shapes "$shapes" --leaders-from "$out/suite.db" \
  --replay "$out/suite.db" --replay-delay-ms "$delay" --rerank 0 --db "$out/rp.db" > "$out/replay.log" 2>&1
rc=$?
end=$(date +%s.%N)
grep -E '^(exhaustive|coordinator|lane [0-9]|hint)' "$out/replay.log"
[ $rc -eq 0 ] || { echo "coordinator_bench: mpgemm-tune exited $rc (see $out/replay.log)" >&2; exit $rc; }
pairs=$(sed -nE 's/^exhaustive: ([0-9]+) \(config, shape\) pairs.*/\1/p' "$out/replay.log" | head -1)
measured=$("$bin/mpgemm-query" "$out/rp.db" --sql "SELECT count(*) AS n FROM measurements" --format csv | tail -1)
awk -v a="$start" -v b="$end" -v p="${pairs:-0}" -v m="${measured:-0}" -v d="$delay" 'BEGIN {
  w = b - a
  printf "overhead: %.1f s wall - %d measured x %d ms = %.1f ms per (config, shape) pair (%d pairs)\n",
         w, m, d, (p > 0 ? 1000 * (w - m * d / 1000) / p : 0), p }'
exit 0
