#!/bin/bash
# Session 2026-12-02d call 6: cuBLAS at 8192x2048x4096 right after 10 s of 16384x4096x8192 (clock_after_idle.cu's
# second mode); the worker tests; tune_bench's model-guided step with the revised hold (keeping warm from 2 ms
# after a request in slices of ~2 ms, settling after verification), compiling then cached, with the A/A.
# Reads results/h200/tune_bench_2026-12-02c/call10_cold_tests/hopper.db.xz and results/h200/tune_bench_2026-12-02c/call11_warm_model_aa/hopper_warm.db.xz, archived since 2026-12-04 (results/archived.tsv): to run this again, first
# `tools/results_archive.sh restore results/h200/tune_bench_2026-12-02c/call10_cold_tests/hopper.db.xz results/h200/tune_bench_2026-12-02c/call11_warm_model_aa/hopper_warm.db.xz` and add them to the call's carry.
set -u
start=$(date +%s)
bash build-rel/dev/prep.sh
cd /work/main
R=/tmp/c6; mkdir -p $R /tmp/hb
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $R/gpu.txt
/tmp/w/bin/clock_after_idle 8192 2048 4096 $R/after_16384x4096x8192_8192x2048x4096 16384 4096 8192 10000 > $R/clock.log 2>&1
xz -9 $R/after_*.csv
for t in device_worker_test worker_interleaved_test; do
  timeout 100 build-rel/bin/$t > $R/$t.log 2>&1; echo "$t rc=$? $(( $(date +%s) - start )) s" | tee -a $R/summary.txt
done
D=results/h200/tune_bench_2026-12-02c
xz -dc $D/call10_cold_tests/hopper.db.xz > /tmp/hb/hopper.db
xz -dc $D/call11_warm_model_aa/hopper_warm.db.xz > /tmp/hb/hopper_warm.db
cp $D/call10_cold_tests/hopper_cold.result $D/call11_warm_model_aa/hopper_warm.result /tmp/hb/
for pass in 1 2; do
  [ $(( $(date +%s) - start )) -lt 230 ] || { echo "pass $pass skipped: out of time" >> $R/summary.txt; break; }
  s=$(date +%s)
  OUT=/tmp/hb MPGEMM_BIN=build-rel/bin MPGEMM_BENCH_CACHE=/tmp/cubins MPGEMM_BENCH_REUSE_COLD=1 \
    MPGEMM_BENCH_REUSE_WARM=1 timeout 120 tools/tune_bench.sh hopper > $R/bench_pass$pass.log 2>&1
  echo "pass $pass rc=$? $(( $(date +%s) - s )) s" | tee -a $R/summary.txt
  mkdir -p $R/pass$pass
  cp /tmp/hb/*.log /tmp/hb/*.txt /tmp/hb/*.md /tmp/hb/*.csv $R/pass$pass/ 2>/dev/null
  rm -f $R/pass$pass/hopper_warm.db.times.csv
  [ -f /tmp/hb/hopper_model.db ] && xz -T0 -6 -c /tmp/hb/hopper_model.db > $R/pass$pass/hopper_model.db.xz
  grep "model-guided\|A/A" $R/pass$pass/tune_bench.md | cut -c1-420 >> $R/summary.txt
  cat $R/pass$pass/hopper_model_verdict.txt >> $R/summary.txt
done
tar cf - -C /tmp c6 | xz -T0 -6 > "$OUT/c6.tar.xz"
cat $R/summary.txt
