#!/usr/bin/env bash
# Every gpu-labelled test binary, one after another, within a time budget: what a device call runs before an issue
# that touches GPU code is resolved. The binaries are the files of tests/gpu/ (tests/<label>/<name>_test.cpp builds
# bin/<name>_test), so a new GPU test is run without editing this script.
#
# Usage: tools/gpu_tests.sh [--bin DIR] [--out DIR] [--budget SECONDS] [NAME_test ...]
#   --bin DIR         the built test binaries (default: $MPGEMM_BIN, else build/bin)
#   --out DIR         where the logs go (default: a new folder under /tmp): NAME_test.log per binary,
#                     summary.txt (a line per binary: exit code, seconds since the start, gtest's verdict lines),
#                     gpu.txt (nvidia-smi: name, uuid, driver, SM clock, power)
#   --budget SECONDS  stop starting binaries when less than 20 s of it is left (default $MPGEMM_TEST_BUDGET, else
#                     570: a device call's 600 s less the unpacking); each binary runs under timeout with what is
#                     left
#   NAME_test ...     only these (each must be a file of tests/gpu/)
# Exit: 0 when every chosen binary ran and exited 0; 1 when one failed, timed out or was not run for want of time;
# 2 for bad usage. Without a GPU every test reports SKIPPED and exits 0; the summary's last line says how many
# binaries skipped all their tests, so a device call that lost its GPU does not read as a pass.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${MPGEMM_BIN:-$root/build/bin}"
out=""
budget="${MPGEMM_TEST_BUDGET:-570}"
chosen=()
usage() { sed -n '6,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
bad_usage() { echo "gpu_tests: $*" >&2; exit 2; }
value_of() { [ $# -ge 2 ] && [ -n "$2" ] || bad_usage "$1 needs a value (see --help)"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) value_of "$@"; bin="$2"; shift 2 ;;
    --out) value_of "$@"; out="$2"; shift 2 ;;
    --budget) value_of "$@"; budget="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) bad_usage "unknown option $1 (see --help)" ;;
    *) chosen+=("$1"); shift ;;
  esac
done

[[ "$budget" =~ ^[0-9]+$ ]] || bad_usage "the budget takes whole seconds, not '$budget'"
all=()
for f in "$root"/tests/gpu/*_test.cpp; do all+=("$(basename "$f" .cpp)"); done
if [ ${#chosen[@]} -eq 0 ]; then
  chosen=("${all[@]}")
else
  for t in "${chosen[@]}"; do
    [ -f "$root/tests/gpu/$t.cpp" ] || { echo "gpu_tests: $t is no GPU test (tests/gpu has: ${all[*]})" >&2; exit 2; }
  done
fi
for t in "${chosen[@]}"; do
  [ -x "$bin/$t" ] || { echo "gpu_tests: $bin/$t is not built (cmake --build build, or --bin DIR)" >&2; exit 2; }
done
[ -n "$out" ] || out="$(mktemp -d /tmp/mpgemm_gpu_tests.XXXXXX)"
mkdir -p "$out" || exit 2
summary="$out/summary.txt"
: > "$summary"

if command -v nvidia-smi > /dev/null; then
  nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,power.draw --format=csv,noheader > "$out/gpu.txt" 2>&1
else
  echo "no nvidia-smi on this machine" > "$out/gpu.txt"
fi

start=$(date +%s)
failed=0
all_skipped=0
for t in "${chosen[@]}"; do
  left=$(( budget - ($(date +%s) - start) ))
  if [ $left -lt 20 ]; then
    echo "$t not run: out of time ($left s of the ${budget} s budget left)" | tee -a "$summary"
    failed=1
    continue
  fi
  timeout -k 10 "$left" "$bin/$t" > "$out/$t.log" 2>&1
  rc=$?
  # gtest's totals ("[  PASSED  ] 3 tests.", "[  SKIPPED ] 1 test, listed below:"), not its per-test lines
  verdict=$(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?[,.]' "$out/$t.log" | tr '\n' ' ')
  [ $rc -eq 124 ] || [ $rc -eq 137 ] && verdict="timed out after $left s; $verdict"
  echo "$t rc=$rc $(( $(date +%s) - start )) s: $verdict" | tee -a "$summary"
  [ $rc -eq 0 ] || failed=1
  grep -qE '^\[  PASSED  \] 0 tests\.' "$out/$t.log" && grep -qE '^\[  SKIPPED \] [0-9]+ tests?,' "$out/$t.log" &&
    all_skipped=$(( all_skipped + 1 ))
done
cat "$out/gpu.txt" >> "$summary"
echo "${#chosen[@]} binaries, $all_skipped of them skipped every test$( [ $all_skipped -gt 0 ] && echo " (no GPU, or too few GPUs for them)"); logs in $out" | tee -a "$summary"
exit $failed
