#!/bin/bash
# Call 11 (right after call 10, same machine): the Hopper model-guided and exhaustive warm steps, the side-by-side
# verdict of the model's picks and the A/A, reusing call 10's cold run (/tmp/hb, cubins in /tmp/cubins).
set -u
[ -e /work/main ] || bash build-rel/dev/prep.sh
cd /work/main
mkdir -p /tmp/c11
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > /tmp/c11/gpu.txt
ls /tmp/hb | head -5; ls /tmp/cubins | wc -l
s=$(date +%s)
OUT=/tmp/hb MPGEMM_BIN=build-rel/bin MPGEMM_BENCH_CACHE=/tmp/cubins MPGEMM_BENCH_REUSE_COLD=1 \
  timeout 570 tools/tune_bench.sh hopper > /tmp/c11/bench_warm.log 2>&1
echo "tune_bench hopper warm rc=$? $(( $(date +%s) - s )) s" | tee -a /tmp/c11/bench_warm.log
cp /tmp/hb/*.log /tmp/hb/*.result /tmp/hb/*.txt /tmp/hb/*.md /tmp/hb/*.json /tmp/hb/*.csv /tmp/c11/ 2>/dev/null
for d in hopper hopper_warm hopper_model hopper_verdict aa_1 aa_2; do [ -f /tmp/hb/$d.db ] && xz -T0 -6 -c /tmp/hb/$d.db > /tmp/c11/$d.db.xz; done
tar cf - -C /tmp c11 | xz -T0 -6 > "$OUT/c11.tar.xz"
tail -12 /tmp/c11/bench_warm.log; cat /tmp/hb/hopper_model_quality.txt /tmp/hb/hopper_model_verdict.txt
