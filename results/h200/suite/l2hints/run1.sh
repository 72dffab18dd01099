#!/bin/bash
# Session 2026-12-03c call 1: the L2-hints probe (the v18 winners of seven shapes with L2_HINTS none / c_first /
# c_first_ab_last, first pass and settled re-rank side by side), then the hinted GPU test space and the worker tests.
set -u
start=$(date +%s)
bash build-rel/dev/prep.sh
cd /work/main
R=/tmp/l2h; mkdir -p $R
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,power.limit --format=csv,noheader > $R/gpu.txt
only=$(cat results/h200/suite/l2hints/only.txt)
OUT=$R MPGEMM_BIN=build-rel/bin timeout 330 tools/suite_bench.sh results/h200/suite/l2hints/space.json \
  8192x8192x1024,3000x3000x3000,4096x4096x4096,2048x2048x2048,4096x4096x256,8192x8192x8192,128x8192x8192 \
  -- --only "$only" > $R/bench.log 2>&1
echo "probe rc=$? $(( $(date +%s) - start )) s" >> $R/gpu.txt
rm -f $R/suite.db-shm; xz -T0 -6 $R/suite.db
cp $R/gpu.txt $R/bench.log $R/suite.db.xz $R/suite_bench.md "$OUT/"
t0=$(date +%s)
timeout 200 build-rel/bin/tune_wgmma_test --gtest_filter='*L2Hints*:*Broken*' > $OUT/tune_wgmma_l2hints.log 2>&1
echo "tune_wgmma_test rc=$? $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
t0=$(date +%s)
timeout 60 build-rel/bin/device_worker_test > $OUT/device_worker_test.log 2>&1
echo "device_worker_test rc=$? $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
cat $OUT/gpu.txt; tail -30 $R/bench.log; tail -5 $OUT/tune_wgmma_l2hints.log
