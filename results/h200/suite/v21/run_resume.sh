#!/bin/bash
# Session 2026-12-03i call 3: call 2 (run.sh beside this file) ran out of time in both of its runs; this resumes
# them from the databases it brought back (carried in build-rel/dev/call2.tar): (1) the transformer run's last 5
# shapes (their first pass done, their re-ranks not); (2) suite v21, the same command as call 2 (7 shapes' new configs
# still to measure, then every shape re-ranked). Everything under $OUT in one tar.
set -u
start=$(date +%s)
bash build-rel/dev/prep.sh
cd /work/main
mkdir -p /tmp/c2 && tar xf build-rel/dev/call2.tar -C /tmp/c2
R=/tmp/v21; T=/tmp/tf2; mkdir -p $R $T
for d in v21 tf2; do
  xz -dc /tmp/c2/$d/suite.db.xz > /tmp/$d/suite.db
  [ -f /tmp/c2/$d/suite.db-wal.xz ] && xz -dc /tmp/c2/$d/suite.db-wal.xz > /tmp/$d/suite.db-wal
  cp /tmp/c2/$d/suite_tune.log /tmp/$d/
done
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $R/gpu3.txt
S=128x22016x4096,128x10240x8192,128x8192x8192,128x57344x8192,128x8192x28672
OUT=$T MPGEMM_BIN=build-rel/bin timeout 150 tools/suite_bench.sh results/h200/ceilings/b_stream/space_tf.json "$S" \
  > $T/bench3.log 2>&1
echo "transformer rc=$? $(( $(date +%s) - start )) s" | tee -a $R/summary3.txt
left=$(( 585 - ($(date +%s) - start) ))
OUT=$R MPGEMM_BIN=build-rel/bin timeout $left tools/suite_bench.sh > $R/v21_bench3.log 2>&1
echo "suite rc=$? $(( $(date +%s) - start )) s" | tee -a $R/summary3.txt
for d in $R $T; do
  rm -rf $d/suite.db-shm $d/*.cubins
  for f in $d/suite.db $d/suite.db-wal; do [ -f $f ] && xz -T0 -6 $f; done
done
tar cf $OUT/call3.tar -C /tmp v21 tf2
tail -22 $R/v21_bench3.log; tail -34 $T/bench3.log | cut -c1-220
cat $R/summary3.txt
