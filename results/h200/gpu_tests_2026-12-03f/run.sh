#!/bin/bash
# Session 2026-12-03f call 1: every gpu-labelled test binary on this session's build; mpgemm-lib-bench (its
# arguments now checked before the device) on v19's suite database; and which tensor-pipe counters ncu knows on
# this GPU's chip and on sm_86's (tools/profile_layer2.sh now collects sm__pipe_tensor_cycles_active).
# Reads results/h200/suite/v19/suite.db.xz, archived since 2026-12-04 (results/archived.tsv): to run this again, first
# `tools/results_archive.sh restore results/h200/suite/v19/suite.db.xz` and add it to the call's carry.
set -u
start=$(date +%s)
bash build-rel/dev/prep.sh
cd /work/main
G=/tmp/gt; mkdir -p $G
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,power.draw --format=csv,noheader > $G/gpu.txt
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for chip in gh100 ga102; do
  "$ncu" --query-metrics --chip $chip > $G/ncu_metrics_$chip.all 2>&1
  grep -E "^sm__(pipe_tensor|inst_executed_pipe_tensor)" $G/ncu_metrics_$chip.all > $G/ncu_tensor_metrics_$chip.txt
  rm -f $G/ncu_metrics_$chip.all
done
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
cp $G/summary.txt $G/lib_bench.txt $G/ncu_tensor_metrics_*.txt $OUT/
cat $G/ncu_tensor_metrics_*.txt $G/lib_bench.txt
