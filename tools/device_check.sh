#!/usr/bin/env bash
# One batch on a GPU machine: GPU tests, the writeup's space tuned on this GPU, the results table, the profiles.
# Logs and results go to $OUT (default results/device). Used for the H200 runs recorded in the README.
#   tools/device_check.sh [BIN_DIR]     (default build/bin)
# Environment: MPGEMM_TESTS="test_a test_b" picks the GPU test binaries (default: every one of tests/gpu, run by
#              tools/gpu_tests.sh within MPGEMM_TEST_BUDGET seconds, default 1800).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${1:-$root/build/bin}"
out="${OUT:-$root/results/device}"
mkdir -p "$out"
cd "$root"
db="$out/h200.db"
log() { echo "== $* ==" | tee -a "$out/summary.log"; }
export MPGEMM_BIN="$bin"
{
  date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv
} >"$out/gpu.txt" 2>&1

log "GPU tests"
# shellcheck disable=SC2086
MPGEMM_TEST_BUDGET="${MPGEMM_TEST_BUDGET:-1800}" tools/gpu_tests.sh --bin "$bin" --out "$out/gpu_tests" ${MPGEMM_TESTS:-} 2>&1 | cut -c1-300 | tee -a "$out/summary.log"
echo "gpu_tests.sh exit ${PIPESTATUS[0]}" | tee -a "$out/summary.log"

log "tune configs/sm86.json (writeup space) at 2048^3"
"$bin/mpgemm-tune" configs/sm86.json --db "$db" >"$out/tune_sm86.log" 2>&1
echo "exit $?" >>"$out/tune_sm86.log"; tail -18 "$out/tune_sm86.log" | tee -a "$out/summary.log"

log "results table"
"$bin/mpgemm-run" --config best --db "$db" --format markdown --output "$out/h200_2048.md" 2>&1 | tee -a "$out/summary.log"

if [ "${MPGEMM_SKIP_PROFILE:-0}" != 1 ]; then
  log "profiles"
  MPGEMM_PROFILE_DIR="$out/profiles" tools/profile_layer2.sh "$db" >"$out/profile.log" 2>&1
  echo "exit $?" >>"$out/profile.log"; tail -5 "$out/profile.log" | tee -a "$out/summary.log"
  for pair in wmma_naive,wmma_shared wmma_shared,wmma_cp_async wmma_cp_async,cublas; do
    "$bin/mpgemm-query" "$db" --compare "$pair" 2>&1 | tee -a "$out/summary.log"
  done
fi
"$bin/mpgemm-query" "$db" failures 2>&1 | head -20 | tee -a "$out/summary.log"
