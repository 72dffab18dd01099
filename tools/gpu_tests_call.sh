#!/usr/bin/env bash
# One GPU-test pass for a device call: records the GPU in DIR/gpu.txt (unless the caller already has) and runs
# tools/gpu_tests.sh on BIN_DIR (default build/bin), with the logs under DIR/tests and its summary and exit status
# in DIR/gpu_tests.log.
# Usage: tools/gpu_tests_call.sh DIR BUDGET_SECONDS [BIN_DIR]
set -uo pipefail
[ $# -eq 2 ] || [ $# -eq 3 ] || { echo "usage: $0 DIR BUDGET_SECONDS [BIN_DIR]" >&2; exit 2; }
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mkdir -p "$1"
w="$(cd "$1" && pwd)" || exit 2
budget="$2"
bin="$(cd "${3:-$root/build/bin}" && pwd)" || exit 2
cd "$root" || exit 2
[ -e "$w/gpu.txt" ] || nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm --format=csv > "$w/gpu.txt"
tools/gpu_tests.sh --bin "$bin" --out "$w/tests" --budget "$budget" > "$w/gpu_tests.log" 2>&1
echo "gpu_tests exit $?" >> "$w/gpu_tests.log"
