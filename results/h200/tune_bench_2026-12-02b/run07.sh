#!/bin/bash
# Call 7 (right after call 6, same machine): the Hopper model-guided and exhaustive warm steps and the A/A, reusing
# call 6's cold run in /tmp/hb (database, cubin cache in /tmp/cubins, result file).
set -u
[ -e /work/main ] || bash build-rel/dev/prep.sh
cd /work/main
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > /tmp/hb/gpu_warm.txt
ls /tmp/hb /tmp/cubins | head -5
s=$(date +%s)
OUT=/tmp/hb MPGEMM_BIN=build-rel/bin MPGEMM_BENCH_CACHE=/tmp/cubins MPGEMM_BENCH_REUSE_COLD=1 \
  timeout 560 tools/tune_bench.sh hopper > /tmp/hb/bench_warm.log 2>&1
echo "tune_bench hopper warm rc=$? $(( $(date +%s) - s )) s" | tee -a /tmp/hb/bench_warm.log
mkdir -p /tmp/c7
cp /tmp/hb/*.log /tmp/hb/*.result /tmp/hb/*.txt /tmp/hb/*.md /tmp/hb/*.json /tmp/hb/aa.csv /tmp/c7/ 2>/dev/null
for d in hopper_warm hopper_model aa_1 aa_2; do [ -f /tmp/hb/$d.db ] && xz -T0 -6 -c /tmp/hb/$d.db > /tmp/c7/$d.db.xz; done
tar cf - -C /tmp c7 | xz -T0 -6 > "$OUT/c7.tar.xz"
cat /tmp/hb/bench_warm.log | tail -12; cat /tmp/hb/hopper_model_quality.txt
