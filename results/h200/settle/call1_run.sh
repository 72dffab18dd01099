#!/bin/bash
# Session 2026-12-02d call 1: clock after idle (two shapes), A/A of the 4096^3 winner 10 times (20 and 200 rounds).
set -u
mkdir -p /tmp/w && tar xJf build-rel/dev/bins.tar.xz -C /tmp/w
B=/tmp/w/bin R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $R/gpu.txt
$B/clock_after_idle 4096 4096 4096 $R/idle_4096 > $R/idle.log 2>&1
$B/clock_after_idle 8192 2048 4096 $R/idle_8192x2048x4096 >> $R/idle.log 2>&1
# A/A: the pingpong point tuned at 4096^3, then re-ranked alone by separate processes
$B/mpgemm-tune configs/sm90a_bench.json --M 4096 --N 4096 --K 4096 --only =wgmma_pingpong --db /tmp/aa.db --cubin-cache /tmp/cubins --no-cublaslt > $R/aa_tune.log 2>&1
for i in 1 2 3 4 5 6 7 8 9 10; do
  for rounds in 20 200; do
    cp /tmp/aa.db /tmp/aa_${i}_${rounds}.db
    $B/mpgemm-run --db /tmp/aa_${i}_${rounds}.db --rerank 1 --rounds $rounds --no-cublaslt --space configs/sm90a_bench.json --M 4096 --N 4096 --K 4096 --format csv --cubin-cache /tmp/cubins 2>>$R/aa.log | sed "s/^/$i,$rounds,/" >> $R/aa.csv
    python3 -c "import sqlite3,sys; [print('$i,$rounds,'+','.join(map(str,r))) for r in sqlite3.connect('/tmp/aa_${i}_${rounds}.db').execute('select * from rerank_samples')]" >> $R/aa_samples.txt 2>>$R/aa.log
  done
done
cd $OUT && tar cJf r.tar.xz r && rm -rf r
