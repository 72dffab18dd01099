#!/usr/bin/env bash
# One batch on an H200 for the Hopper family: the GPU tests, then a space tuned at its shapes with the best config
# per shape next to cuBLAS. Everything goes to $OUT (default results/device) and a short summary to stdout.
#   tools/device_hopper_check.sh [SPACE] [BIN_DIR]     (defaults configs/sm90a_focus.json, build-rel/bin)
# Environment: MPGEMM_TESTS="test_a test_b" picks the GPU test binaries (default: every one of tests/gpu, run by
#              tools/gpu_tests.sh within MPGEMM_TEST_BUDGET seconds, default 1800);
#              MPGEMM_TUNE_ARGS adds mpgemm-tune arguments (e.g. "--M 4096 --N 4096 --K 4096"; quotes keep a word
#              together, tools/split_args.sh; a value that does not split stops the script with exit 2);
#              MPGEMM_TUNE_TIMEOUT caps the tune (seconds; what finished stays in the database).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
space="${1:-configs/sm90a_focus.json}"
bin="${2:-$root/build-rel/bin}"
out="${OUT:-$root/results/device}"
mkdir -p "$out"
cd "$root"
log() { echo "== $* ==" | tee -a "$out/summary.log"; }
# shellcheck source=SCRIPTDIR/split_args.sh
source "$root/tools/split_args.sh"
tune_args=()
split_args tune_args MPGEMM_TUNE_ARGS || {
  echo "device_hopper_check: MPGEMM_TUNE_ARGS does not split into words (above)" >&2
  exit 2
}
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu \
    --format=csv
} 2>&1 | tee "$out/gpu.txt"

tests="${MPGEMM_TESTS:-}"
log "GPU tests: ${tests:-every one of tests/gpu}"
# shellcheck disable=SC2086
MPGEMM_TEST_BUDGET="${MPGEMM_TEST_BUDGET:-1800}" tools/gpu_tests.sh --bin "$bin" --out "$out/gpu_tests" $tests 2>&1 | cut -c1-300 | tee -a "$out/summary.log"
echo "gpu_tests.sh exit ${PIPESTATUS[0]}" | tee -a "$out/summary.log"

log "tune $space ${MPGEMM_TUNE_ARGS:-}"
start=$(date +%s)
timeout "${MPGEMM_TUNE_TIMEOUT:-1800}" "$bin/mpgemm-tune" "$space" --db "$out/h200.db" --top 5 "${tune_args[@]}" \
  >"$out/tune.log" 2>&1
echo "exit $? after $(($(date +%s) - start)) s" | tee -a "$out/tune.log" "$out/summary.log"
tail -40 "$out/tune.log" | tee -a "$out/summary.log"
"$bin/mpgemm-query" "$out/h200.db" best --format markdown 2>&1 | tee -a "$out/summary.log"
"$bin/mpgemm-query" "$out/h200.db" --sql "SELECT status, count(*) AS n FROM measurements GROUP BY status" 2>&1 |
  tee -a "$out/summary.log"
"$bin/mpgemm-query" "$out/h200.db" measurements --format csv >"$out/measurements.csv" 2>&1
