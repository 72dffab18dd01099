#!/bin/bash
# Session 2026-12-03b call 6 (kshare.patch applied): SCHEDULE kshare. First its GPU test (every config of tests/data/spaces/wgmma_kshare.json
# verified against cuBLAS at four shapes), then the probe space at one-tile-per-SM shapes and two controls.
set -u
start=$(date +%s)
bash build-rel/dev/prep.sh
cd /work/main
R=/tmp/kp; mkdir -p $R
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $R/gpu.txt
timeout 240 build-rel/bin/tune_wgmma_test --gtest_filter='*KShare*' > $R/kshare_test.log 2>&1
echo "kshare test rc=$? $(( $(date +%s) - start )) s: $(grep -E '^\[  (PASSED|FAILED) ' $R/kshare_test.log | tr '\n' ' ')" >> $R/gpu.txt
left=$(( 470 - ($(date +%s) - start) ))
OUT=$R MPGEMM_BIN=build-rel/bin timeout $left tools/suite_bench.sh results/h200/suite/kshare/space.json \
  512x512x512,1024x1024x1024,1024x1024x4096,2048x2048x2048,4096x4096x256,128x8192x8192 > $R/bench.log 2>&1
echo "suite rc=$? $(( $(date +%s) - start )) s" >> $R/gpu.txt
rm -f $R/suite.db-shm; xz -T0 -6 $R/suite.db
cp $R/gpu.txt $R/kshare_test.log $R/bench.log $R/suite.db.xz $R/suite_bench.md $R/suite_tune.log "$OUT/"
cat $R/gpu.txt; tail -16 $R/bench.log
