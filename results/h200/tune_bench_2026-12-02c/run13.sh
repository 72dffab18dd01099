#!/bin/bash
# Call 13: the model-guided step with the prior's winners seeded, judged side by side against call 11's exhaustive
# warm run (carried with call 10's cold run). Pass 1 compiles; passes 2-3 pick by the first pass (no re-rank of the
# model's top K), pass 4 re-ranks its top 3 after 250 ms of settling instead of 1000.
set -u
bash build-rel/dev/prep.sh
cd /work/main
mkdir -p /tmp/hb /tmp/c13
for f in hopper.db hopper_warm.db; do xz -dc build-rel/dev/c12in/$f.xz > /tmp/hb/$f; done
cp build-rel/dev/c12in/hopper_cold.result build-rel/dev/c12in/hopper_warm.result /tmp/hb/
cp "$OUT/gpu.txt" /tmp/c13/gpu.txt
for pass in 1 2 3 4; do
  s=$(date +%s)
  k=$([ $pass = 4 ] && echo 3 || echo 0)
  args=$([ $pass = 4 ] && echo "--rerank-settle-ms 250" || echo "")
  OUT=/tmp/hb MPGEMM_BIN=build-rel/bin MPGEMM_BENCH_CACHE=/tmp/cubins MPGEMM_BENCH_REUSE_COLD=1 \
    MPGEMM_BENCH_REUSE_WARM=1 MPGEMM_BENCH_AA=0 MPGEMM_BENCH_MODEL_RERANK=$k MPGEMM_BENCH_ARGS="$args" \
    timeout 150 tools/tune_bench.sh hopper > /tmp/c13/bench_pass$pass.log 2>&1
  echo "pass $pass (rerank $k, args '$args') rc=$? $(( $(date +%s) - s )) s" | tee -a /tmp/c13/summary.txt
  mkdir -p /tmp/c13/pass$pass
  cp /tmp/hb/*.log /tmp/hb/*.txt /tmp/hb/*.md /tmp/hb/*.csv /tmp/c13/pass$pass/ 2>/dev/null
  for d in hopper_model hopper_verdict; do [ -f /tmp/hb/$d.db ] && xz -T0 -6 -c /tmp/hb/$d.db > /tmp/c13/pass$pass/$d.db.xz; done
  grep "model-guided" /tmp/c13/pass$pass/tune_bench.md | sed 's/.*% of the space/  /' | cut -c1-400
  cat /tmp/c13/pass$pass/hopper_model_verdict.txt
done
tar cf - -C /tmp c13 | xz -T0 -6 > "$OUT/c13.tar.xz"
