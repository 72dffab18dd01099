#!/bin/bash
# Session 2026-12-03b call 3: the co-residence probe (space.json: one-consumer tiles, rings of 2-12 stages, PDL
# 0/1/2) at the microsecond shapes and 2048^3, through tools/suite_bench.sh so the references are in the same run.
set -u
start=$(date +%s)
bash build-rel/dev/prep.sh
cd /work/main
R=/tmp/cr; mkdir -p $R
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $R/gpu.txt
OUT=$R MPGEMM_BIN=build-rel/bin timeout 400 tools/suite_bench.sh results/h200/suite/coresident/space.json \
  512x512x512,1024x1024x1024,16x4096x4096,2048x2048x2048 > $R/bench.log 2>&1
echo "suite rc=$? $(( $(date +%s) - start )) s" >> $R/gpu.txt
rm -f $R/suite.db-shm; xz -T0 -6 $R/suite.db
cp $R/gpu.txt $R/bench.log $R/suite.db.xz $R/suite_bench.md $R/suite_tune.log $R/suite_winners.csv "$OUT/"
tail -25 $R/bench.log
