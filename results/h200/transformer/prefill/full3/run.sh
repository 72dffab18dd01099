#!/bin/bash
# Session 2026-12-03j, second call: was the prefill run's 153-config subset what held M = 512 and 2048 below the
# better reference? The whole suite space (2602 configs) at the three lowest shapes of that run, resuming its
# database (the 153 are not measured again; the re-rank takes every config within 5% of the best). Same first
# pass as the prefill run (3 batches of 10 launches). Everything under $OUT in one tar.
set -u
start=$(date +%s)
bash build-rel/dev/prep.sh
cd /work/main
R=/tmp/full3; mkdir -p $R
P=results/h200/transformer/prefill
xz -dc $P/suite.db.xz > $R/suite.db
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $R/gpu.txt
S=512x10240x8192,512x8192x8192,2048x8192x8192
left=$(( ${LIMIT:-570} - ($(date +%s) - start) ))
OUT=$R MPGEMM_BIN=build-rel/bin MPGEMM_SUITE_WITHIN=0.05 timeout $left tools/suite_bench.sh configs/sm90a_suite.json "$S" -- \
  --runs 3 --iters 10 > $R/bench.log 2>&1
echo "full3 rc=$? $(( $(date +%s) - start )) s" | tee -a $R/summary.txt
rm -rf $R/suite.db-shm $R/*.cubins $R/suite.db-claims
for f in $R/suite.db $R/suite.db-wal; do [ -f $f ] && xz -T0 -6 $f; done
tar cf $OUT/full3.tar -C $R .
tail -25 $R/bench.log
cat $R/summary.txt
