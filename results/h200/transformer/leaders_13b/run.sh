#!/bin/bash
# Session 2026-12-03j, third call: the GPU tests of this build, then the first run of mpgemm-tune --leaders-from on
# a GPU: the prefill GEMMs of a 13B-class layer (hidden 5120, FFN 13824, no grouped heads) at 2048 tokens, never
# tuned before, over the configs that led at the ten-shape suite's v21 database (the defaults: within 3% of a
# shape's first-pass best, or placed up to 8th in its re-rank), with the suite's settled re-rank. Same first pass
# as the prefill runs (3 batches of 10 launches). Everything under $OUT in one tar.
# Reads results/h200/suite/v21/suite.db.xz, archived since 2026-12-04 (results/archived.tsv): to run this again, first
# `tools/results_archive.sh restore results/h200/suite/v21/suite.db.xz` and add it to the call's carry.
set -u
start=$(date +%s)
bash build-rel/dev/prep.sh
cd /work/main
R=/tmp/l13; mkdir -p $R/gt
MPGEMM_BIN=build-rel/bin tools/gpu_tests.sh --bin build-rel/bin --out $R/gt --budget 300 > $R/gpu_tests.log 2>&1
echo "gpu_tests rc=$? $(( $(date +%s) - start )) s" | tee -a $R/summary.txt
xz -dc results/h200/suite/v21/suite.db.xz > /tmp/v21.db
S=2048x15360x5120,2048x5120x5120,2048x27648x5120,2048x5120x13824
left=$(( ${LIMIT:-575} - ($(date +%s) - start) ))
OUT=$R MPGEMM_BIN=build-rel/bin MPGEMM_SUITE_WITHIN=0.05 timeout $left tools/suite_bench.sh configs/sm90a_suite.json "$S" -- \
  --leaders-from /tmp/v21.db --runs 3 --iters 10 > $R/bench.log 2>&1
echo "leaders rc=$? $(( $(date +%s) - start )) s" | tee -a $R/summary.txt
rm -rf $R/suite.db-shm $R/*.cubins $R/suite.db-claims
for f in $R/suite.db $R/suite.db-wal; do [ -f $f ] && xz -T0 -6 $f; done
tar cf $OUT/l13.tar -C $R .
tail -3 $R/gt/summary.txt
grep -E "^\| 2048|Geometric" $R/suite_bench.md
head -3 $R/suite_tune.log | cut -c1-300
cat $R/summary.txt
