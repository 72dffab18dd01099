#!/bin/bash
# Session 2026-12-03c call 3: (1) the L2 hints of three 128 x 128 pingpong configs side by side in a settled re-rank
# at 8192x8192x1024 and 4096^3 (every config re-ranked, 40 rounds at least); (2) every gpu-labelled test binary on
# the session's final build.
set -u
start=$(date +%s)
bash build-rel/dev/prep.sh
cd /work/main
R=/tmp/l2r; mkdir -p $R
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $R/gpu.txt
OUT=$R MPGEMM_BIN=build-rel/bin MPGEMM_SUITE_WITHIN=1.0 MPGEMM_SUITE_RERANK=9 MPGEMM_SUITE_ROUNDS=40 timeout 200 \
  tools/suite_bench.sh results/h200/suite/l2hints/space.json 8192x8192x1024,4096x4096x4096 \
  -- --only "$(cat results/h200/suite/l2hints/only_rerank.txt)" > $R/bench.log 2>&1
echo "rerank rc=$? $(( $(date +%s) - start )) s" >> $R/gpu.txt
rm -f $R/suite.db-shm; xz -T0 -6 $R/suite.db
mkdir -p $OUT/l2r && cp $R/gpu.txt $R/bench.log $R/suite.db.xz $OUT/l2r/
G=/tmp/gt; mkdir -p $G
for t in device_worker_test worker_interleaved_test device_cublaslt_test device_timing_test device_measure_test \
         tune_points_test tune_faults_test libcore_gemm_test export_cpp_launch_test tune_gpus_real_test tune_wgmma_test; do
  left=$(( 570 - ($(date +%s) - start) ))
  [ $left -gt 20 ] || { echo "$t not run: out of time" | tee -a $G/summary.txt; continue; }
  timeout $left build-rel/bin/$t > $G/$t.log 2>&1
  echo "$t rc=$? $(( $(date +%s) - start )) s: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $G/$t.log | tr '\n' ' ')" | tee -a $G/summary.txt
done
cat $R/gpu.txt >> $G/summary.txt
tar cJf $OUT/gpu_test_logs.tar.xz -C $G .
cp $G/summary.txt $OUT/
