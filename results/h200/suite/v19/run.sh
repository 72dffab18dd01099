#!/bin/bash
# Session 2026-12-03d call 2: the ten-shape suite on this session's final build (kernels' SASS unchanged since v18),
# a fresh figure for the closing note.
set -u
start=$(date +%s)
bash build-rel/dev/prep.sh
cd /work/main
R=/tmp/v19; mkdir -p $R
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $R/gpu.txt
left=$(( 585 - ($(date +%s) - start) ))
echo "suite: $left s left" | tee -a $R/summary.txt
OUT=$R MPGEMM_BIN=build-rel/bin timeout $left tools/suite_bench.sh > $R/v19_bench.log 2>&1
echo "suite rc=$? $(( $(date +%s) - start )) s" | tee -a $R/summary.txt
rm -f $R/suite.db-shm
for f in $R/suite.db $R/suite.db-wal; do [ -f $f ] && xz -T0 -6 $f; done
cp -r $R/. "$OUT/"
tail -30 $R/v19_bench.log
cat $R/summary.txt
