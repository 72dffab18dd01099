#!/bin/bash
# Session 2026-12-03h call 1: (1) every gpu-labelled test binary through tools/gpu_tests.sh (new), on this session's
# build; (2) mpgemm-run --config best at 4096^3 on v19's suite database (the table's rows now resolved before the
# GPU); (3) the A-multicast probe (space.json beside this file) over five suite shapes, first pass and a settled
# re-rank of every config within 10%, the v19 winners at those shapes among its named points.
# Reads results/h200/suite/v19/suite.db.xz, archived since 2026-12-04 (results/archived.tsv): to run this again, first
# `tools/results_archive.sh restore results/h200/suite/v19/suite.db.xz` and add it to the call's carry.
set -u
start=$(date +%s)
bash build-rel/dev/prep.sh
cd /work/main
G=/tmp/gt; R=/tmp/am; mkdir -p $G $R
tools/gpu_tests.sh --bin build-rel/bin --out $G --budget 300 > $G/stdout.txt 2>&1
echo "gpu_tests rc=$? $(( $(date +%s) - start )) s" | tee -a $G/summary.txt
xz -dc results/h200/suite/v19/suite.db.xz > /tmp/s.db
timeout 60 build-rel/bin/mpgemm-run --db /tmp/s.db --space configs/sm90a_suite.json --config best --graphs \
  --M 4096 --N 4096 --K 4096 --format markdown --output $G/run_best_4096.md > $G/run_best.log 2>&1
echo "mpgemm-run rc=$? $(( $(date +%s) - start )) s" | tee -a $G/summary.txt
left=$(( 580 - ($(date +%s) - start) ))
OUT=$R MPGEMM_BIN=build-rel/bin timeout $left tools/suite_bench.sh results/h200/suite/a_multicast/space.json \
  1024x1024x1024,2048x2048x2048,4096x4096x256,4096x4096x4096,8192x8192x1024 > $R/bench.log 2>&1
echo "probe rc=$? $(( $(date +%s) - start )) s" | tee -a $G/summary.txt
rm -rf $R/suite.db-shm $R/*.cubins; for f in $R/suite.db $R/suite.db-wal; do [ -f $f ] && xz -T0 -6 $f; done
mkdir -p $OUT/gt $OUT/am
tar cJf $OUT/gt/gpu_test_logs.tar.xz -C $G . ; cp $G/summary.txt $G/run_best_4096.md $G/run_best.log $OUT/gt/
cp $R/* $OUT/am/ 2>/dev/null
tail -c 1500 $G/summary.txt | cut -c1-250; cat $G/run_best_4096.md; tail -25 $R/bench.log
