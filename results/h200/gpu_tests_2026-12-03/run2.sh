#!/bin/bash
# Session 2026-12-03b call 2: every gpu-labelled test binary on the session's final build (the worker's kept-shape
# fix, cycles ranked in C++), logs only under $OUT.
set -u
start=$(date +%s)
bash build-rel/dev/prep.sh
cd /work/main
R=$OUT/gpu_tests; mkdir -p $R
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $R/gpu.txt
for t in device_worker_test worker_interleaved_test device_cublaslt_test device_timing_test device_measure_test \
         tune_points_test tune_faults_test libcore_gemm_test export_cpp_launch_test tune_gpus_real_test tune_wgmma_test; do
  left=$(( 560 - ($(date +%s) - start) ))
  [ $left -gt 20 ] || { echo "$t not run: out of time" | tee -a $R/summary.txt; continue; }
  timeout $left build-rel/bin/$t > $R/$t.log 2>&1
  echo "$t rc=$? $(( $(date +%s) - start )) s: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $R/$t.log | tr '\n' ' ')" | tee -a $R/summary.txt
done
