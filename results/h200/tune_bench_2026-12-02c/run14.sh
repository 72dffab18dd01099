#!/bin/bash
# Call 14: the committed tune_bench.sh (747edf0) on the model step with the prior's winners seeded, picking by its
# first pass, judged side by side against call 11's exhaustive warm run (carried with call 10's cold run): pass 1
# compiles, pass 2 has every cubin cached; the A/A in pass 2.
set -u
bash build-rel/dev/prep.sh
cd /work/main
mkdir -p /tmp/hb /tmp/c14
for f in hopper.db hopper_warm.db; do xz -dc build-rel/dev/c12in/$f.xz > /tmp/hb/$f; done
cp build-rel/dev/c12in/hopper_cold.result build-rel/dev/c12in/hopper_warm.result /tmp/hb/
cp "$OUT/gpu.txt" /tmp/c14/gpu.txt
for pass in 1 2; do
  s=$(date +%s)
  k=0
  args=""; aa=$([ $pass = 2 ] && echo 1 || echo 0)
  OUT=/tmp/hb MPGEMM_BIN=build-rel/bin MPGEMM_BENCH_CACHE=/tmp/cubins MPGEMM_BENCH_REUSE_COLD=1 \
    MPGEMM_BENCH_REUSE_WARM=1 MPGEMM_BENCH_AA=$aa MPGEMM_BENCH_MODEL_RERANK=$k MPGEMM_BENCH_ARGS="$args" \
    timeout 150 tools/tune_bench.sh hopper > /tmp/c14/bench_pass$pass.log 2>&1
  echo "pass $pass (rerank $k, args '$args') rc=$? $(( $(date +%s) - s )) s" | tee -a /tmp/c14/summary.txt
  mkdir -p /tmp/c14/pass$pass
  cp /tmp/hb/*.log /tmp/hb/*.txt /tmp/hb/*.md /tmp/hb/*.csv /tmp/c14/pass$pass/ 2>/dev/null
  for d in hopper_model hopper_verdict; do [ -f /tmp/hb/$d.db ] && xz -T0 -6 -c /tmp/hb/$d.db > /tmp/c14/pass$pass/$d.db.xz; done
  grep "model-guided" /tmp/c14/pass$pass/tune_bench.md | sed 's/.*% of the space/  /' | cut -c1-400
  cat /tmp/c14/pass$pass/hopper_model_verdict.txt
done
tar cf - -C /tmp c14 | xz -T0 -6 > "$OUT/c14.tar.xz"
grep "A/A" /tmp/c14/pass2/tune_bench.md | cut -c1-300
