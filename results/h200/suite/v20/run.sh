#!/bin/bash
# Session 2026-12-03h call 2: the ten-shape suite with configs/sm90a_suite.json now offering the tma epilogue 4
# staging buffers per consumer (1654 configs; results/h200/suite/a_multicast/ found 4 buffers 4.5% ahead of 2 at
# 4096x4096x256 in settled rounds). Everything under $OUT in one tar (a call returns at most 8 files).
set -u
start=$(date +%s)
bash build-rel/dev/prep.sh
cd /work/main
R=/tmp/v20; mkdir -p $R
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $R/gpu.txt
left=$(( 585 - ($(date +%s) - start) ))
echo "suite: $left s left" | tee -a $R/summary.txt
OUT=$R MPGEMM_BIN=build-rel/bin timeout $left tools/suite_bench.sh > $R/v20_bench.log 2>&1
echo "suite rc=$? $(( $(date +%s) - start )) s" | tee -a $R/summary.txt
rm -rf $R/suite.db-shm $R/*.cubins
for f in $R/suite.db $R/suite.db-wal; do [ -f $f ] && xz -T0 -6 $f; done
tar cf $OUT/v20.tar -C $R .
cp $R/suite_bench.md $OUT/ 2>/dev/null
tail -30 $R/v20_bench.log
cat $R/summary.txt
