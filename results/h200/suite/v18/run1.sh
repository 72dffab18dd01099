#!/bin/bash
# Session 2026-12-03b call 1: the worker's kept-shape fixes (take before letting go, a shape prepared twice in a
# row served from itself, at most 16 kept) under the GPU tests that touch them; then the ten-shape suite on this
# build (the re-rank sized by time since 13c0e8f), until the call's time runs short (the database resumes).
set -u
start=$(date +%s)
bash build-rel/dev/prep.sh
cd /work/main
R=/tmp/v18; mkdir -p $R
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $R/gpu.txt
for t in device_worker_test worker_interleaved_test device_cublaslt_test; do
  timeout 120 build-rel/bin/$t > $R/$t.log 2>&1; echo "$t rc=$? $(( $(date +%s) - start )) s" | tee -a $R/summary.txt
done
left=$(( 585 - ($(date +%s) - start) ))
echo "suite: $left s left" | tee -a $R/summary.txt
OUT=$R MPGEMM_BIN=build-rel/bin timeout $left tools/suite_bench.sh > $R/v18_bench.log 2>&1
echo "suite rc=$? $(( $(date +%s) - start )) s" | tee -a $R/summary.txt
rm -f $R/suite.db-shm
for f in $R/suite.db $R/suite.db-wal; do [ -f $f ] && xz -T0 -6 $f; done
cp -r $R/. "$OUT/"
tail -30 $R/v18_bench.log
cat $R/summary.txt
