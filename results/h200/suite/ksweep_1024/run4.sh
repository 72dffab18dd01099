#!/bin/bash
# Session 2026-12-03b call 4: 1024 x 1024 x K for K = 64 ... 4096, the 1024^3 winner and its neighbours (one tile
# per block, one or two consumers on it), so the time splits into a fixed cost per launch and a main-loop rate.
set -u
start=$(date +%s)
bash build-rel/dev/prep.sh
cd /work/main
R=/tmp/ks; mkdir -p $R
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $R/gpu.txt
only=wgmma_bm64_bn128_bk64_s9_c2_pingpong_cl1x1_m8_rows_pers_pdl,wgmma_bm64_bn128_bk64_s9_c1_coop_cl1x1_m8_rows_pers_pdl
only=$only,wgmma_bm128_bn64_bk64_s8_c2_coop_cl1x1_m8_tma2_pers_l2p128_pdl,wgmma_bm128_bn128_bk64_s7_c2_pingpong_cl1x1_m8_rows_pers_l2p128_pdl
only=$only,wgmma_bm64_bn128_bk64_s9_c1_coop_cl1x1_m8_direct_pers_pdl
OUT=$R MPGEMM_BIN=build-rel/bin MPGEMM_SUITE_WITHIN= timeout 300 tools/suite_bench.sh configs/sm90a_suite.json \
  1024x1024x64,1024x1024x128,1024x1024x256,1024x1024x512,1024x1024x1024,1024x1024x2048,1024x1024x4096 \
  -- --only $only > $R/bench.log 2>&1
echo "suite rc=$? $(( $(date +%s) - start )) s" >> $R/gpu.txt
rm -f $R/suite.db-shm; xz -T0 -6 $R/suite.db
cp $R/gpu.txt $R/bench.log $R/suite.db.xz $R/suite_bench.md $R/suite_tune.log "$OUT/"
tail -22 $R/bench.log
