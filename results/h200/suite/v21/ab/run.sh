#!/bin/bash
# Session 2026-12-03i call 4: at 128x8192x8192 and 8192x8192x1024, v21's re-ranks did not time the promotion-128
# winner beside its promotion-256 twin (outside the 64 re-ranked, and outside the 10% window); here, on a copy of v21's
# database, each of the four shapes whose winner is a newly offered config is re-ranked with that winner, its
# promotion-256 twin and v20's winner side by side (mpgemm-run --rerank 1 --rerank-also ..., batches as graphs, the
# suite's rounds). (Comment corrected after the run; the commands are as they ran.)
# Reads results/h200/suite/v21/suite.db.xz, archived since 2026-12-04 (results/archived.tsv): to run this again, first
# `tools/results_archive.sh restore results/h200/suite/v21/suite.db.xz` and add it to the call's carry.
set -u
start=$(date +%s)
bash build-rel/dev/prep.sh
cd /work/main
R=/tmp/ab; mkdir -p $R
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $R/gpu.txt
xz -dc results/h200/suite/v21/suite.db.xz > $R/ab.db
P=wgmma_bm64_bn128_bk64_s9_c1_coop_cl1x1_m8_direct_pers
ab() {  # M N K NAME,NAME,...
  timeout 100 build-rel/bin/mpgemm-run --db $R/ab.db --space configs/sm90a_suite.json --M $1 --N $2 --K $3 \
    --graphs --rerank 1 --rounds 20 --rerank-also "$4" >> $R/ab.log 2>&1
  echo "$1x$2x$3 rc=$? $(( $(date +%s) - start )) s" | tee -a $R/summary.txt
}
ab 128 8192 8192 ${P}_l2p128,${P},${P}_pdlx,${P}_l2p128_pdlx
Q=wgmma_bm16_bn64_bk64_s12_c2_pingpong_cl1x1_m8_direct_pers_sk2_swab
ab 16 4096 4096 ${Q}_l2p128_pdl,${Q}_pdl
Q=wgmma_bm32_bn64_bk64_s12_c1_coop_cl1x1_m8_direct_pers_swab
ab 512 512 512 ${Q}_l2p128_pdl,${Q}_pdl
Q=wgmma_bm64_bn256_bk64_s5_c2_pingpong_cl1x1_m8_direct_pers
ab 8192 8192 1024 ${Q}_l2p128,${Q},wgmma_bm128_bn128_bk64_s5_c2_pingpong_cl1x1_m8_tma4_pers_l2p128
build-rel/bin/mpgemm-query $R/ab.db --format csv --sql "SELECT r.M, r.N, r.K, rc.place, c.name, rc.median_ms,
  r.cublas_median_ms, r.cublaslt_median_ms, rc.tied FROM reranks r JOIN rerank_configs rc ON rc.rerank_id = r.id
  JOIN configs c ON c.id = rc.config_id WHERE r.id > 20 ORDER BY r.id, rc.place" > $R/ab_reranks.csv 2>> $R/ab.log
xz -T0 $R/ab.db  # (not kept in the repository: a copy of v21's database plus these re-ranks; ab_reranks.csv has them)
tar cf $OUT/ab.tar -C /tmp ab
cat $R/summary.txt; cat $R/ab_reranks.csv; tail -5 $R/ab.log
