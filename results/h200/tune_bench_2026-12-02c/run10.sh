#!/bin/bash
# Call 10 (2026-12-02, third session): the Hopper cold step (kept in /tmp/hb and /tmp/cubins for call 11), then
# tune_wgmma_test's two tests that earlier calls never reached.
set -u
bash build-rel/dev/prep.sh
cd /work/main
mkdir -p /tmp/hb /tmp/c10
t0=$(date +%s)
s=$(date +%s)
OUT=/tmp/hb MPGEMM_BIN=build-rel/bin MPGEMM_BENCH_CACHE=/tmp/cubins MPGEMM_BENCH_WARM=0 MPGEMM_BENCH_AA=0 \
  timeout 330 tools/tune_bench.sh hopper > /tmp/c10/hopper_cold_bench.log 2>&1
echo "tune_bench hopper cold rc=$? $(( $(date +%s) - s )) s" >> /tmp/c10/summary.txt
cp /tmp/hb/tune_bench.md /tmp/hb/hopper_cold.log /tmp/hb/hopper_cold.result /tmp/c10/ 2>/dev/null
for f in BrokenBuildIsCaughtAsIncorrect DependentLaunchesVerifyAtTheIssueShapes; do
  left=$(( 575 - ($(date +%s) - t0) ))
  [ $left -gt 20 ] || { echo "$f not run: no time left" >> /tmp/c10/summary.txt; continue; }
  s=$(date +%s)
  timeout $left build-rel/bin/tune_wgmma_test --gtest_filter="TuneWgmma.$f" > "/tmp/c10/tune_wgmma_$f.log" 2>&1
  echo "tune_wgmma $f rc=$? $(( $(date +%s) - s )) s $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "/tmp/c10/tune_wgmma_$f.log" | tr '\n' ' ')" >> /tmp/c10/summary.txt
done
cp "$OUT/gpu.txt" /tmp/c10/gpu.txt
xz -T0 -6 -c /tmp/hb/hopper.db > /tmp/c10/hopper.db.xz
tar cf - -C /tmp c10 | xz -T0 -6 > "$OUT/c10.tar.xz"
cat /tmp/c10/summary.txt; cat /tmp/c10/tune_bench.md
