#!/bin/bash
# Session 2026-12-03f call 3: every gpu-labelled test binary on the final build (c4f0084: the tune input checks
# moved into tune/tune_input for --dry-run, the library's folder check); mpgemm-lib-bench on v19's suite database.
# Reads results/h200/suite/v19/suite.db.xz, archived since 2026-12-04 (results/archived.tsv): to run this again, first
# `tools/results_archive.sh restore results/h200/suite/v19/suite.db.xz` and add it to the call's carry.
set -u
start=$(date +%s)
bash build-rel/dev/prep.sh
cd /work/main
G=/tmp/gt; mkdir -p $G
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,power.draw --format=csv,noheader > $G/gpu.txt
xz -dc results/h200/suite/v19/suite.db.xz > /tmp/s.db
timeout 90 build-rel/bin/mpgemm-lib-bench /tmp/s.db --M 4096 --N 4096 --K 4096 > $G/lib_bench.txt 2>&1
echo "lib-bench rc=$? $(( $(date +%s) - start )) s" | tee -a $G/summary.txt
for t in device_worker_test worker_interleaved_test device_cublaslt_test device_timing_test device_measure_test \
         tune_points_test tune_faults_test libcore_gemm_test export_cpp_launch_test tune_gpus_real_test tune_wgmma_test; do
  left=$(( 570 - ($(date +%s) - start) ))
  [ $left -gt 20 ] || { echo "$t not run: out of time" | tee -a $G/summary.txt; continue; }
  timeout $left build-rel/bin/$t > $G/$t.log 2>&1
  echo "$t rc=$? $(( $(date +%s) - start )) s: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $G/$t.log | tr '\n' ' ')" | tee -a $G/summary.txt
done
cat $G/gpu.txt >> $G/summary.txt
tar cJf $OUT/gpu_test_logs.tar.xz -C $G .
cp $G/summary.txt $G/lib_bench.txt $OUT/
cat $G/lib_bench.txt
