#!/bin/bash
# Session 2026-12-02e call 2: the inputs filled on all cores, the host copy of cuBLAS's output only when asked,
# cuBLASLt's heuristics screened before the full timing; the GPU tests those touch; tune_bench's model-guided step
# (compiling, no A/A; cached with the model run re-ranking its top 5; the same with 200 ms of settling before each
# re-rank instead of 1 s), judged against call 11's warm run, with nvidia-smi sampling the SM clock.
# Reads results/h200/tune_bench_2026-12-02c/call10_cold_tests/hopper.db.xz and results/h200/tune_bench_2026-12-02c/call11_warm_model_aa/hopper_warm.db.xz, archived since 2026-12-04 (results/archived.tsv): to run this again, first
# `tools/results_archive.sh restore results/h200/tune_bench_2026-12-02c/call10_cold_tests/hopper.db.xz results/h200/tune_bench_2026-12-02c/call11_warm_model_aa/hopper_warm.db.xz` and add them to the call's carry.
set -u
start=$(date +%s)
bash build-rel/dev/prep.sh
cd /work/main
R=/tmp/e2; mkdir -p $R /tmp/hb
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $R/gpu.txt
for t in device_worker_test worker_interleaved_test device_cublaslt_test device_measure_test device_timing_test; do
  timeout 100 build-rel/bin/$t > $R/$t.log 2>&1; echo "$t rc=$? $(( $(date +%s) - start )) s" | tee -a $R/summary.txt
done
D=results/h200/tune_bench_2026-12-02c
xz -dc $D/call10_cold_tests/hopper.db.xz > /tmp/hb/hopper.db
xz -dc $D/call11_warm_model_aa/hopper_warm.db.xz > /tmp/hb/hopper_warm.db
cp $D/call10_cold_tests/hopper_cold.result $D/call11_warm_model_aa/hopper_warm.result /tmp/hb/
for pass in 1 2 3; do
  [ $(( $(date +%s) - start )) -lt 420 ] || { echo "pass $pass skipped: out of time" >> $R/summary.txt; break; }
  s=$(date +%s)
  nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv,noheader -lms 5 > $R/clock_pass$pass.csv 2>&1 &
  smi=$!
  extra="MPGEMM_BENCH_AA=0"; [ $pass = 2 ] && extra="MPGEMM_BENCH_MODEL_RERANK=5"
  [ $pass = 3 ] && extra="MPGEMM_BENCH_MODEL_RERANK=5 MPGEMM_BENCH_MODEL_RERANK_SETTLE=200"
  env $extra OUT=/tmp/hb MPGEMM_BIN=build-rel/bin MPGEMM_BENCH_CACHE=/tmp/cubins MPGEMM_BENCH_REUSE_COLD=1 \
    MPGEMM_BENCH_REUSE_WARM=1 timeout 160 tools/tune_bench.sh hopper > $R/bench_pass$pass.log 2>&1
  echo "pass $pass rc=$? $(( $(date +%s) - s )) s" | tee -a $R/summary.txt
  kill $smi; xz -9 $R/clock_pass$pass.csv
  mkdir -p $R/pass$pass
  cp /tmp/hb/*.log /tmp/hb/*.txt /tmp/hb/*.md /tmp/hb/*.csv $R/pass$pass/ 2>/dev/null
  rm -f $R/pass$pass/hopper_warm.db.times.csv
  [ -f /tmp/hb/hopper_model.db ] && xz -T0 -6 -c /tmp/hb/hopper_model.db > $R/pass$pass/hopper_model.db.xz
  grep "model-guided\|A/A" $R/pass$pass/tune_bench.md | cut -c1-420 >> $R/summary.txt
  cat $R/pass$pass/hopper_model_verdict.txt >> $R/summary.txt
done
tar cf - -C /tmp e2 | xz -T0 -6 > "$OUT/e2.tar.xz"
cat $R/summary.txt
