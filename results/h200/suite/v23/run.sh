#!/usr/bin/env bash
# On the H200 (device call, carry build-dev): v23 of the ten-shape suite, the shipped configs/sm90a_suite.json (BK 128
# and 256 for unsplit swapped tiles since v22) over only.txt: v22's 211 configs that are in it (208) and its 216
# deep-stage configs (198 of them new), resuming v22's database (../v22/run2/suite.db.xz: same kernel, same
# parameters, so the same result keys), so only the new configs are measured before every shape is re-ranked on
# this card. Outputs tarred into $OUT/v23.tar.xz. v22's database is archived since: to run this again, first
# `tools/results_archive.sh restore results/h200/suite/v22/run2` here and add that path to the call's carry.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../../.."
bash build-dev/prep.sh
out="${OUT:-/tmp/v23}"
w="$out/v23" && mkdir -p "$w/suite"
xz -dc results/h200/suite/v22/run2/suite.db.xz > "$w/suite/suite.db"
OUT="$w/suite" MPGEMM_BIN=build/bin timeout 540 tools/suite_bench.sh configs/sm90a_suite.json \
  configs/shapes/suite10.json -- --only "$(cat results/h200/suite/v23/only.txt)" > "$w/suite_bench.log" 2>&1
echo "suite_bench exit $?" >> "$w/suite_bench.log"
rm -rf "$w/suite/suite.db.cubins" "$w/suite/suite.db-shm"
xz -T0 -6 "$w/suite/suite.db"
tar cJf "$out/v23.tar.xz" -C "$out" v23
