#!/usr/bin/env bash
# Device side, shared by the run scripts of results/h200/ that run every GPU test: records the GPU in DIR/gpu.txt
# (unless the caller already has) and runs tools/gpu_tests.sh on build/bin (unpacked by build-dev/prep.sh
# beforehand), with logs under DIR/tests and its summary and exit status in DIR/gpu_tests.log.
# Usage: results/h200/gpu_tests_call.sh DIR BUDGET_SECONDS   (DIR an absolute path)
set -uo pipefail
[ $# -eq 2 ] || { echo "usage: $0 DIR BUDGET_SECONDS" >&2; exit 2; }
w="$1"
budget="$2"
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
mkdir -p "$w"
[ -e "$w/gpu.txt" ] || nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm --format=csv > "$w/gpu.txt"
tools/gpu_tests.sh --bin build/bin --out "$w/tests" --budget "$budget" > "$w/gpu_tests.log" 2>&1
echo "gpu_tests exit $?" >> "$w/gpu_tests.log"
