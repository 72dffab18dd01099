#!/bin/bash
# Session 2026-12-03i call 2: (1) suite v21: configs/sm90a_suite.json with L2 promotion 128 offered to swapped and
# 64-row tiles (2602 configs), v20's database resumed (only the new configs are measured; every shape re-ranked);
# (2) the transformer shapes with M <= 128: results/h200/ceilings/b_stream/space_tf.json added to the first transformer
# run's database (results/h200/transformer/m128/), all 24 shapes re-ranked. Everything under $OUT in one tar.
# Reads results/h200/suite/v20/suite.db.xz and results/h200/transformer/m128/suite.db.xz, archived since 2026-12-04 (results/archived.tsv): to run this again, first
# `tools/results_archive.sh restore results/h200/suite/v20/suite.db.xz results/h200/transformer/m128/suite.db.xz` and add them to the call's carry.
set -u
start=$(date +%s)
bash build-rel/dev/prep.sh
cd /work/main
R=/tmp/v21; T=/tmp/tf2; mkdir -p $R $T
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $R/gpu.txt
xz -dc results/h200/suite/v20/suite.db.xz > $R/suite.db
xz -dc results/h200/transformer/m128/suite.db.xz > $T/suite.db
OUT=$R MPGEMM_BIN=build-rel/bin timeout 330 tools/suite_bench.sh > $R/v21_bench.log 2>&1
echo "suite rc=$? $(( $(date +%s) - start )) s" | tee -a $R/summary.txt
S=1x12288x4096,1x4096x4096,1x22016x4096,1x4096x11008,16x12288x4096,16x4096x4096,16x22016x4096,16x4096x11008,128x12288x4096,128x4096x4096,128x22016x4096,128x4096x11008,1x10240x8192,1x8192x8192,1x57344x8192,1x8192x28672,16x10240x8192,16x8192x8192,16x57344x8192,16x8192x28672,128x10240x8192,128x8192x8192,128x57344x8192,128x8192x28672
left=$(( 585 - ($(date +%s) - start) ))
OUT=$T MPGEMM_BIN=build-rel/bin timeout $left tools/suite_bench.sh results/h200/ceilings/b_stream/space_tf.json "$S" \
  > $T/bench.log 2>&1
echo "transformer rc=$? $(( $(date +%s) - start )) s" | tee -a $R/summary.txt
for d in $R $T; do
  rm -rf $d/suite.db-shm $d/*.cubins
  for f in $d/suite.db $d/suite.db-wal; do [ -f $f ] && xz -T0 -6 $f; done
done
tar cf $OUT/call2.tar -C /tmp v21 tf2
tail -22 $R/v21_bench.log; tail -34 $T/bench.log | cut -c1-220
cat $R/summary.txt
