#!/bin/bash
# Call 8: measure protocol 6 (each shape's preparation settles the card for 1 s). From call 6's cold Hopper database
# (carried), step 1 runs the model-guided run (compiling its configs) and the exhaustive warm run (compiling the
# rest), step 2 the model-guided run again with every cubin cached, judged against step 1's warm run. Then the
# gpu-labelled tests that the protocol change touches.
set -u
bash build-rel/dev/prep.sh
cd /work/main
mkdir -p /tmp/hb /tmp/c8
xz -dc build-rel/dev/c6/hopper.db.xz > /tmp/hb/hopper.db
cp build-rel/dev/c6/hopper_cold.result /tmp/hb/
t0=$(date +%s)
s=$(date +%s)
OUT=/tmp/hb MPGEMM_BIN=build-rel/bin MPGEMM_BENCH_CACHE=/tmp/cubins MPGEMM_BENCH_REUSE_COLD=1 MPGEMM_BENCH_AA=0 \
  timeout 420 tools/tune_bench.sh hopper > /tmp/c8/step1.log 2>&1
echo "step 1 rc=$? $(( $(date +%s) - s )) s" >> /tmp/c8/summary.txt
cp /tmp/hb/tune_bench.md /tmp/c8/step1_tune_bench.md; cp /tmp/hb/hopper_model.log /tmp/c8/step1_model.log
cp /tmp/hb/hopper_model_quality.txt /tmp/c8/step1_model_quality.txt
xz -T0 -c /tmp/hb/hopper_model.db > /tmp/c8/step1_model.db.xz
s=$(date +%s)
OUT=/tmp/hb MPGEMM_BIN=build-rel/bin MPGEMM_BENCH_CACHE=/tmp/cubins MPGEMM_BENCH_REUSE_COLD=1 MPGEMM_BENCH_REUSE_WARM=1 \
  MPGEMM_BENCH_AA=0 timeout 120 tools/tune_bench.sh hopper > /tmp/c8/step2.log 2>&1
echo "step 2 rc=$? $(( $(date +%s) - s )) s" >> /tmp/c8/summary.txt
for t in device_worker_test worker_interleaved_test device_timing_test device_measure_test device_cublaslt_test tune_faults_test libcore_gemm_test tune_points_test export_cpp_launch_test; do
  left=$(( 575 - ($(date +%s) - t0) ))
  [ $left -gt 15 ] || { echo "$t not run: no time left" >> /tmp/c8/summary.txt; continue; }
  s=$(date +%s)
  timeout $left "build-rel/bin/$t" > "/tmp/c8/$t.log" 2>&1
  rc=$?
  echo "$t rc=$rc $(( $(date +%s) - s )) s $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "/tmp/c8/$t.log" | tr '\n' ' ')" >> /tmp/c8/summary.txt
done
cp "$OUT/gpu.txt" /tmp/c8/gpu.txt
cp /tmp/hb/*.log /tmp/hb/*.result /tmp/hb/*.md /tmp/hb/hopper_model_quality.txt /tmp/c8/ 2>/dev/null
for d in hopper_warm hopper_model; do [ -f /tmp/hb/$d.db ] && xz -T0 -6 -c /tmp/hb/$d.db > /tmp/c8/$d.db.xz; done
tar cf - -C /tmp c8 | xz -T0 -6 > "$OUT/c8.tar.xz"
cat /tmp/c8/summary.txt; cat /tmp/c8/step1_tune_bench.md; cat /tmp/hb/tune_bench.md; cat /tmp/c8/step1_model_quality.txt /tmp/hb/hopper_model_quality.txt
tail -3 /tmp/hb/hopper_model.log
