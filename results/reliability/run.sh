#!/usr/bin/env bash
# The reliability bench (tools/reliability_bench.sh), CPU only: the kill, concurrency, damage and hostile-input cases
# of the tree, each counted as survived or lost. From a clean clone, after tools/bootstrap.sh (the build with tests):
#   bash results/reliability/run.sh       (about 90 s on 2 cores)
# Keeps the logs in $OUT (default /tmp/mpgemm_results/reliability). Exit status: tools/reliability_bench.sh's.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/../.."
export OUT="${OUT:-${TMPDIR:-/tmp}/mpgemm_results/reliability}"
mkdir -p "$OUT"
exec tools/reliability_bench.sh
