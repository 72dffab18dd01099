#!/usr/bin/env bash
# Transformer shapes M = 512, 2048, 8192 (prefill: the 24 shapes of configs/shapes/transformer.json with M >= 512)
# on one H200, in the two steps the table of record took, into one database:
#   1. the 153 configs of the suite space in only.txt (how it was chosen: README.md), 3 batches of 10 launches per
#      config, every config within 5% of a shape's first-pass best re-ranked;
#   2. the whole suite space at the three shapes lowest after step 1 (512x10240x8192, 512x8192x8192,
#      2048x8192x8192), resuming the database (step 1's configs are not measured again).
# From a clean clone, after tools/bootstrap.sh: bash results/transformer/prefill/run.sh
# Writes $OUT/suite.db, $OUT/step1_suite_bench.md and $OUT/suite_bench.md (default OUT:
# /tmp/mpgemm_results/transformer_prefill); binaries from $MPGEMM_BIN (default build/bin).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/../../.."
export OUT="${OUT:-${TMPDIR:-/tmp}/mpgemm_results/transformer_prefill}" MPGEMM_BIN="${MPGEMM_BIN:-build/bin}"
export MPGEMM_SUITE_WITHIN=0.05
mkdir -p "$OUT"
shapes=512x12288x4096,512x4096x4096,512x22016x4096,512x4096x11008,2048x12288x4096,2048x4096x4096,2048x22016x4096
shapes+=,2048x4096x11008,8192x12288x4096,8192x4096x4096,8192x22016x4096,8192x4096x11008,512x10240x8192
shapes+=,512x8192x8192,512x57344x8192,512x8192x28672,2048x10240x8192,2048x8192x8192,2048x57344x8192
shapes+=,2048x8192x28672,8192x10240x8192,8192x8192x8192,8192x57344x8192,8192x8192x28672
tools/suite_bench.sh configs/sm90a_suite.json "$shapes" -- --only "$(cat "$here/only.txt")" --runs 3 --iters 10
cp "$OUT/suite_bench.md" "$OUT/step1_suite_bench.md"
exec tools/suite_bench.sh configs/sm90a_suite.json 512x10240x8192,512x8192x8192,2048x8192x8192 -- --runs 3 --iters 10
