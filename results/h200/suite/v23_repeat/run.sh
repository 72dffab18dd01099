#!/usr/bin/env bash
# On the H200 (device call, carry build-dev): v23's ten winners (only.txt) re-measured on a fresh database with the
# product's own benchmark, tools/suite_bench.sh (first pass over the ten configs at every shape, then the settled
# re-rank of each shape against cuBLAS and cuBLASLt's best of 8): does v23's 1.065 reproduce on another card?
# Outputs under $OUT/v23_repeat, tarred.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../../.."
bash build-dev/prep.sh
out="${OUT:-/tmp/v23_repeat}"
w="$out/v23_repeat" && mkdir -p "$w/suite"
OUT="$w/suite" MPGEMM_BIN=build/bin timeout 540 tools/suite_bench.sh configs/sm90a_suite.json \
  configs/shapes/suite10.json -- --only "$(cat results/h200/suite/v23_repeat/only.txt)" > "$w/suite_bench.log" 2>&1
echo "suite_bench exit $?" >> "$w/suite_bench.log"
rm -rf "$w/suite/suite.db.cubins" "$w/suite/suite.db-shm"
xz -T0 -6 "$w/suite/suite.db"
tar cJf "$out/v23_repeat.tar.xz" -C "$out" v23_repeat
tail -30 "$w/suite_bench.log"
