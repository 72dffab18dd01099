set -u
mkdir -p /work && ln -sfn "$PWD" /work/main && mkdir -p build-rel/bin && cp -f build-rel/dev/* build-rel/bin/
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv > $OUT/gpu.txt 2>&1
for t in device_timing_test device_measure_test device_worker_test device_cublaslt_test worker_interleaved_test tune_points_test tune_faults_test tune_wgmma_test; do
  echo "=== $t" >> $OUT/gpu_tests.log
  timeout 150 build-rel/bin/$t >> $OUT/gpu_tests.log 2>&1; echo "rc $t $?" | tee -a $OUT/gpu_tests.log
done
grep -E "^\[  (PASSED|FAILED|SKIPPED) \]|FAILED  \]" $OUT/gpu_tests.log | sort | uniq -c | head -40
OUT=$OUT/bench MPGEMM_BIN=build-rel/bin timeout 200 tools/tune_bench.sh sm86; echo "bench rc $?"
tail -5 $OUT/bench/sm86_cold.log
