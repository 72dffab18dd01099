#!/usr/bin/env bash
# Scale-out on one host with two H200s (tools/scale_bench.sh): configs/sm90a_bench.json (1172 configs x 2048^3,
# 4096^3, 8192^3) tuned on one GPU (--gpus 0) and on both (--gpus all) from one cubin cache filled beforehand, so
# both runs measure the same pairs with nothing to compile.
# From a clean clone, after tools/bootstrap.sh: bash results/scale/run.sh   (about 10 minutes)
# Writes $OUT/scale_bench.md, one_gpu.db and all_gpus.db (default OUT: /tmp/mpgemm_results/scale); binaries from
# $MPGEMM_BIN (default build/bin). Exit status: tools/scale_bench.sh's.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/../.."
export OUT="${OUT:-${TMPDIR:-/tmp}/mpgemm_results/scale}" MPGEMM_BIN="${MPGEMM_BIN:-build/bin}"
mkdir -p "$OUT"
exec tools/scale_bench.sh all
