#!/bin/bash
# Session 2026-12-02d call 2: GPU tests of the worker and tuner with the clock hold, then the model-guided step of
# tune_bench twice compiling and once cached (A/A with 200 rounds in the last), judged against call 11's warm run.
# Reads results/h200/tune_bench_2026-12-02c/call10_cold_tests/hopper.db.xz and results/h200/tune_bench_2026-12-02c/call11_warm_model_aa/hopper_warm.db.xz, archived since 2026-12-04 (results/archived.tsv): to run this again, first
# `tools/results_archive.sh restore results/h200/tune_bench_2026-12-02c/call10_cold_tests/hopper.db.xz results/h200/tune_bench_2026-12-02c/call11_warm_model_aa/hopper_warm.db.xz` and add them to the call's carry.
set -u
start=$(date +%s)
bash build-rel/dev/prep.sh
cd /work/main
R=/tmp/c2; mkdir -p $R /tmp/hb
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $R/gpu.txt
for t in device_worker_test worker_interleaved_test device_timing_test tune_points_test tune_faults_test tune_gpus_real_test; do
  timeout 200 build-rel/bin/$t > $R/$t.log 2>&1; echo "$t rc=$? $(( $(date +%s) - start )) s" | tee -a $R/summary.txt
done
D=results/h200/tune_bench_2026-12-02c
xz -dc $D/call10_cold_tests/hopper.db.xz > /tmp/hb/hopper.db
xz -dc $D/call11_warm_model_aa/hopper_warm.db.xz > /tmp/hb/hopper_warm.db
cp $D/call10_cold_tests/hopper_cold.result $D/call11_warm_model_aa/hopper_warm.result /tmp/hb/
for pass in 1 2 3; do
  [ $(( $(date +%s) - start )) -lt 430 ] || { echo "pass $pass skipped: out of time" >> $R/summary.txt; break; }
  s=$(date +%s)
  cache=/tmp/cubins$pass; [ $pass = 3 ] && cache=/tmp/cubins2
  aa=$([ $pass = 3 ] && echo 1 || echo 0)
  OUT=/tmp/hb MPGEMM_BIN=build-rel/bin MPGEMM_BENCH_CACHE=$cache MPGEMM_BENCH_REUSE_COLD=1 \
    MPGEMM_BENCH_REUSE_WARM=1 MPGEMM_BENCH_AA=$aa timeout 150 tools/tune_bench.sh hopper > $R/bench_pass$pass.log 2>&1
  echo "pass $pass rc=$? $(( $(date +%s) - s )) s" | tee -a $R/summary.txt
  mkdir -p $R/pass$pass
  cp /tmp/hb/*.log /tmp/hb/*.txt /tmp/hb/*.md /tmp/hb/*.csv $R/pass$pass/ 2>/dev/null
  [ -f /tmp/hb/hopper_model.db ] && xz -T0 -6 -c /tmp/hb/hopper_model.db > $R/pass$pass/hopper_model.db.xz
  grep "model-guided\|A/A" $R/pass$pass/tune_bench.md | cut -c1-400 >> $R/summary.txt
  cat $R/pass$pass/hopper_model_verdict.txt >> $R/summary.txt
done
tar cf - -C /tmp c2 | xz -T0 -6 > "$OUT/c2.tar.xz"
cat $R/summary.txt
