#!/usr/bin/env bash
# Transformer shapes M = 1, 16, 128 (decoding and small batches: the 24 shapes of configs/shapes/transformer.json
# with M <= 128) on one H200, in the two steps the table of record took, into one database:
#   1. the suite space with the model strategy, 150 configs per shape, and the suite's settled re-rank;
#   2. space_l2p.json (66 configs: L2 promotion 0, 128 and 256 for the swapped 16-row and unswapped 64-row tiles),
#      every config at every shape, then every shape re-ranked again.
# From a clean clone, after tools/bootstrap.sh: bash results/transformer/decode/run.sh
# Writes $OUT/suite.db and $OUT/suite_bench.md (default OUT: /tmp/mpgemm_results/transformer_decode); binaries from
# $MPGEMM_BIN (default build/bin). Exit status: the second step's.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/../../.."
export OUT="${OUT:-${TMPDIR:-/tmp}/mpgemm_results/transformer_decode}" MPGEMM_BIN="${MPGEMM_BIN:-build/bin}"
mkdir -p "$OUT"
shapes=1x12288x4096,1x4096x4096,1x22016x4096,1x4096x11008,16x12288x4096,16x4096x4096,16x22016x4096,16x4096x11008
shapes+=,128x12288x4096,128x4096x4096,128x22016x4096,128x4096x11008,1x10240x8192,1x8192x8192,1x57344x8192
shapes+=,1x8192x28672,16x10240x8192,16x8192x8192,16x57344x8192,16x8192x28672,128x10240x8192,128x8192x8192
shapes+=,128x57344x8192,128x8192x28672
tools/suite_bench.sh configs/sm90a_suite.json "$shapes" -- --strategy model --budget 150 > "$OUT/step1.log" 2>&1 ||
  echo "step 1 (model strategy) exited $? ($OUT/step1.log); step 2 goes on" >&2
exec tools/suite_bench.sh "$here/space_l2p.json" "$shapes"
