#!/bin/bash
# Session 2026-12-03h call 3: the first run of the transformer-layer shapes on the H200, the 24 with M <= 128
# tokens (decoding and small batches) of configs/shapes/transformer.json, over the suite space with the model
# strategy (150 configs per shape) and the suite's settled re-rank. Everything under $OUT in one tar.
set -u
start=$(date +%s)
bash build-rel/dev/prep.sh
cd /work/main
R=/tmp/tf; mkdir -p $R
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $R/gpu.txt
# The shapes of configs/shapes/transformer.json with M <= 128, in its order.
S=1x12288x4096,1x4096x4096,1x22016x4096,1x4096x11008,16x12288x4096,16x4096x4096,16x22016x4096,16x4096x11008,128x12288x4096,128x4096x4096,128x22016x4096,128x4096x11008,1x10240x8192,1x8192x8192,1x57344x8192,1x8192x28672,16x10240x8192,16x8192x8192,16x57344x8192,16x8192x28672,128x10240x8192,128x8192x8192,128x57344x8192,128x8192x28672
left=$(( 560 - ($(date +%s) - start) ))
OUT=$R MPGEMM_BIN=build-rel/bin timeout $left tools/suite_bench.sh configs/sm90a_suite.json "$S" -- \
  --strategy model --budget 150 > $R/bench.log 2>&1
echo "transformer rc=$? $(( $(date +%s) - start )) s" | tee -a $R/summary.txt
rm -rf $R/suite.db-shm $R/*.cubins
for f in $R/suite.db $R/suite.db-wal; do [ -f $f ] && xz -T0 -6 $f; done
tar cf $OUT/tf.tar -C $R .
tail -40 $R/bench.log
cat $R/summary.txt
