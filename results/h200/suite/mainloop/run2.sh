#!/bin/bash
# Session 2026-12-03c call 2: the main loop's rate by tile shape (results/h200/suite/NOTES.md, "The main loop's rate
# by tile shape"): seven direct-epilogue configs, one tile per block, at K = 1024 and 4096, and the 64 x 128 tile at
# M = 128 ... 1024.
set -u
start=$(date +%s)
bash build-rel/dev/prep.sh
cd /work/main
R=/tmp/ml; mkdir -p $R
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,power.limit --format=csv,noheader > $R/gpu.txt
only=$(cat results/h200/suite/mainloop/only.txt)
OUT=$R MPGEMM_BIN=build-rel/bin MPGEMM_SUITE_WITHIN= timeout 400 tools/suite_bench.sh configs/sm90a_suite.json \
  1024x1024x1024,1024x1024x4096,512x1024x4096,256x1024x4096,128x1024x4096,1024x2048x1024,1024x2048x4096,2048x2048x1024,2048x2048x4096,2048x1536x1024,2048x1536x4096 \
  -- --only "$only" > $R/bench.log 2>&1
echo "probe rc=$? $(( $(date +%s) - start )) s" >> $R/gpu.txt
rm -f $R/suite.db-shm; xz -T0 -6 $R/suite.db
cp $R/gpu.txt $R/bench.log $R/suite.db.xz $R/suite_bench.md "$OUT/"
cat $OUT/gpu.txt; tail -5 $R/bench.log
