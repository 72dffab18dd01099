#!/bin/bash
# Session 2026-12-03j: the first run of the transformer-layer shapes with M >= 512 tokens (prefill: 512, 2048,
# 8192 against the eight projections of configs/shapes/transformer.json, 24 shapes), over the 153 configs of the
# suite space named in only.txt (why those: NOTES.md), with the suite's settled re-rank. The first pass takes
# 3 batches of 10 launches per config (the defaults' 5 x 20 would take ~7 min at M = 8192 alone), the re-rank
# every config within 5% of a shape's first-pass best. Resumes the database if it is there. Everything under
# $OUT in one tar.
set -u
start=$(date +%s)
bash build-rel/dev/prep.sh
cd /work/main
R=/tmp/prefill; mkdir -p $R
# A second call resumes what a first one left here (its suite.db.xz and suite.db-wal.xz copied beside this script).
P=results/h200/transformer/prefill
for f in suite.db suite.db-wal; do [ -f $P/$f.xz ] && xz -dc $P/$f.xz > $R/$f; done
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $R/gpu.txt
# The shapes of configs/shapes/transformer.json with M >= 512, in its order.
S=512x12288x4096,512x4096x4096,512x22016x4096,512x4096x11008,2048x12288x4096,2048x4096x4096,2048x22016x4096,2048x4096x11008,8192x12288x4096,8192x4096x4096,8192x22016x4096,8192x4096x11008,512x10240x8192,512x8192x8192,512x57344x8192,512x8192x28672,2048x10240x8192,2048x8192x8192,2048x57344x8192,2048x8192x28672,8192x10240x8192,8192x8192x8192,8192x57344x8192,8192x8192x28672
left=$(( ${LIMIT:-570} - ($(date +%s) - start) ))
OUT=$R MPGEMM_BIN=build-rel/bin MPGEMM_SUITE_WITHIN=0.05 timeout $left tools/suite_bench.sh configs/sm90a_suite.json "$S" -- \
  --only "$(cat $P/only.txt)" --runs 3 --iters 10 > $R/bench.log 2>&1
echo "prefill rc=$? $(( $(date +%s) - start )) s" | tee -a $R/summary.txt
rm -rf $R/suite.db-shm $R/*.cubins
for f in $R/suite.db $R/suite.db-wal; do [ -f $f ] && xz -T0 -6 $f; done
tar cf $OUT/prefill.tar -C $R .
tail -45 $R/bench.log
cat $R/summary.txt
