#!/bin/bash
# Call 6 (2026-12-02, second session): the Hopper cold step (kept in /tmp/hb for call 7), tune_bench sm86 whole,
# then every gpu-labelled test binary of this build.
set -u
bash build-rel/dev/prep.sh
cd /work/main
mkdir -p "$OUT/tests" /tmp/hb /tmp/c6
t0=$(date +%s)
s=$(date +%s)
OUT=/tmp/hb MPGEMM_BIN=build-rel/bin MPGEMM_BENCH_CACHE=/tmp/cubins MPGEMM_BENCH_WARM=0 MPGEMM_BENCH_AA=0 \
  timeout 330 tools/tune_bench.sh hopper > /tmp/c6/hopper_cold_bench.log 2>&1
echo "tune_bench hopper cold rc=$? $(( $(date +%s) - s )) s" >> /tmp/c6/summary.txt
s=$(date +%s)
OUT=/tmp/c6/sm86 MPGEMM_BIN=build-rel/bin MPGEMM_BENCH_CACHE=/tmp/cubins timeout 90 tools/tune_bench.sh sm86 > /tmp/c6/sm86_bench.log 2>&1
echo "tune_bench sm86 rc=$? $(( $(date +%s) - s )) s" >> /tmp/c6/summary.txt
for t in device_timing_test device_measure_test device_cublaslt_test worker_interleaved_test device_worker_test tune_faults_test tune_gpus_real_test libcore_gemm_test export_cpp_launch_test tune_points_test tune_wgmma_test; do
  left=$(( 570 - ($(date +%s) - t0) ))
  [ $left -gt 20 ] || { echo "$t not run: no time left" >> /tmp/c6/summary.txt; continue; }
  s=$(date +%s)
  timeout $left "build-rel/bin/$t" > "/tmp/c6/$t.log" 2>&1
  rc=$?
  echo "$t rc=$rc $(( $(date +%s) - s )) s $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "/tmp/c6/$t.log" | tr '\n' ' ')" >> /tmp/c6/summary.txt
done
cp "$OUT/gpu.txt" /tmp/c6/gpu.txt
cp /tmp/hb/tune_bench.md /tmp/hb/hopper_cold.log /tmp/hb/hopper_cold.result /tmp/c6/ 2>/dev/null
xz -T0 -6 -c /tmp/hb/hopper.db > /tmp/c6/hopper.db.xz
rm -f /tmp/c6/sm86/*-claims; rm -rf /tmp/c6/sm86/*.cubins
tar cf - -C /tmp c6 | xz -T0 -6 > "$OUT/c6.tar.xz"
cat /tmp/c6/summary.txt; cat /tmp/c6/tune_bench.md; cat /tmp/c6/sm86/tune_bench.md
