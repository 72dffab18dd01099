#!/bin/bash
# Session 2026-12-03f call 2: (1) the cluster_n probe at 128x8192x8192 (space.json beside this file: unswapped 64-
# and 128-row tiles in 1x1, 2x1, 1x2 and 2x2 clusters), first pass and a settled re-rank of every config within 10%;
# (2) tools/profile_layer2.sh at 2048^3 on v19's suite database, with the tensor pipe's active cycles collected.
# Reads results/h200/suite/v19/suite.db.xz, archived since 2026-12-04 (results/archived.tsv): to run this again, first
# `tools/results_archive.sh restore results/h200/suite/v19/suite.db.xz` and add it to the call's carry.
set -u
start=$(date +%s)
bash build-rel/dev/prep.sh
cd /work/main
R=/tmp/cn; mkdir -p $R
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,power.draw --format=csv,noheader > $R/gpu.txt
OUT=$R MPGEMM_BIN=build-rel/bin timeout 260 tools/suite_bench.sh results/h200/suite/cluster_n/space.json \
  128x8192x8192 > $R/bench.log 2>&1
echo "probe rc=$? $(( $(date +%s) - start )) s" | tee -a $R/gpu.txt
rm -rf $R/suite.db-shm $R/*.cubins; xz -T0 -6 $R/suite.db
mkdir -p $OUT/cluster_n && cp $R/* $OUT/cluster_n/ 2>/dev/null
P=/tmp/prof; mkdir -p $P
xz -dc results/h200/suite/v19/suite.db.xz > /tmp/p.db
left=$(( 570 - ($(date +%s) - start) ))
MPGEMM_BIN=build-rel/bin MPGEMM_PROFILE_DIR=$P timeout $left tools/profile_layer2.sh /tmp/p.db 2048 2048 2048 \
  > $P/profile.log 2>&1
echo "profile rc=$? $(( $(date +%s) - start )) s" | tee -a $R/gpu.txt
build-rel/bin/mpgemm-query /tmp/p.db --compare best,cublas > $P/compare_best_cublas.txt 2>&1
build-rel/bin/mpgemm-query /tmp/p.db --compare wmma_shared,wmma_cp_async > $P/compare_shared_cp_async.txt 2>&1
mkdir -p $OUT/profiles && cp $P/*.txt $P/*.csv $P/profile.log $OUT/profiles/ 2>/dev/null
cp $R/gpu.txt $OUT/
tail -25 $R/bench.log; cat $P/compare_best_cublas.txt; cat $R/gpu.txt
