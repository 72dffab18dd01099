#!/bin/bash
# Session 2026-12-03i call 1, the B stream of the decoding shapes: (1) b_stream.cu (built here with the command in its
# header, carried as build-rel/bin/b_stream): how fast TMA reads B in the family's boxes and order, on its own;
# (2) space.json beside this file (L2 promotion 0/128/256 on the swapped 16-row tiles) through tools/suite_bench.sh at
# the three shapes of its "shapes"; (3) Nsight Compute on the M = 1 winner of 1x57344x8192 and cuBLAS's kernel there.
set -u
start=$(date +%s)
bash build-rel/dev/prep.sh
cd /work/main
R=/tmp/bs; mkdir -p $R/bench $R/ncu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,power.limit --format=csv > $R/gpu.txt 2>&1
timeout 120 build-rel/bin/b_stream 15 10 > $R/b_stream.txt 2>&1
echo "b_stream rc=$? $(( $(date +%s) - start )) s" | tee -a $R/summary.txt
OUT=$R/bench MPGEMM_BIN=build-rel/bin timeout 240 tools/suite_bench.sh results/h200/ceilings/b_stream/space.json \
  1x57344x8192,1x8192x28672,16x57344x8192 > $R/bench/bench.log 2>&1
echo "bench rc=$? $(( $(date +%s) - start )) s" | tee -a $R/summary.txt
OUT=$R/ncu MPGEMM_BIN=build-rel/bin NCU_SECTIONS="SpeedOfLight MemoryWorkloadAnalysis MemoryWorkloadAnalysis_Tables LaunchStats" \
  timeout 150 tools/profile_configs.sh configs/sm90a_suite.json 1 57344 8192 \
  wgmma_bm16_bn64_bk64_s12_c1_coop_cl1x1_m8_direct_pers_swab cublas > $R/ncu/summary.txt 2>&1
echo "ncu rc=$? $(( $(date +%s) - start )) s" | tee -a $R/summary.txt
rm -rf $R/bench/suite.db-shm $R/bench/*.cubins
for f in $R/bench/suite.db $R/bench/suite.db-wal; do [ -f $f ] && xz -T0 -6 $f; done
tar cJf $OUT/b_stream_call1.tar.xz -C $R .
cat $R/gpu.txt $R/b_stream.txt; tail -30 $R/bench/bench.log; cat $R/ncu/summary.txt | head -40
