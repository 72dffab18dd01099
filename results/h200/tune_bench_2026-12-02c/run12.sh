#!/bin/bash
# Call 12: the model-guided step with the prior's winners seeded and its top 3 re-ranked, judged side by side
# against call 11's exhaustive warm run (carried with call 10's cold run, both from GPU-a7c27df2). Pass 1 compiles
# the cubins the model run and the verdict need; pass 2 is the same with every cubin cached (the figure).
set -u
bash build-rel/dev/prep.sh
cd /work/main
mkdir -p /tmp/hb /tmp/c12
for f in hopper.db hopper_warm.db; do xz -dc build-rel/dev/c12in/$f.xz > /tmp/hb/$f; done
cp build-rel/dev/c12in/hopper_cold.result build-rel/dev/c12in/hopper_warm.result /tmp/hb/
cp "$OUT/gpu.txt" /tmp/c12/gpu.txt
for pass in 1 2; do
  s=$(date +%s)
  aa=$([ $pass = 2 ] && echo 1 || echo 0)
  OUT=/tmp/hb MPGEMM_BIN=build-rel/bin MPGEMM_BENCH_CACHE=/tmp/cubins MPGEMM_BENCH_REUSE_COLD=1 \
    MPGEMM_BENCH_REUSE_WARM=1 MPGEMM_BENCH_AA=$aa timeout 250 tools/tune_bench.sh hopper > /tmp/c12/bench_pass$pass.log 2>&1
  echo "pass $pass rc=$? $(( $(date +%s) - s )) s" | tee -a /tmp/c12/summary.txt
  mkdir -p /tmp/c12/pass$pass
  cp /tmp/hb/*.log /tmp/hb/*.txt /tmp/hb/*.md /tmp/hb/*.csv /tmp/c12/pass$pass/ 2>/dev/null
  for d in hopper_model hopper_verdict; do [ -f /tmp/hb/$d.db ] && xz -T0 -6 -c /tmp/hb/$d.db > /tmp/c12/pass$pass/$d.db.xz; done
done
tar cf - -C /tmp c12 | xz -T0 -6 > "$OUT/c12.tar.xz"
cat /tmp/c12/summary.txt; tail -6 /tmp/c12/bench_pass2.log; cat /tmp/c12/pass*/hopper_model_verdict.txt
