#!/usr/bin/env bash
# On the H200 (device call, carry build-dev): the K-across-a-cluster probe (space.json, 75 configs at 512^3,
# 1024^3, 2048^3 and 16x4096x4096), then the v23 winners of the same four shapes from the shipped suite space, each
# with its own cuBLAS and cuBLASLt references, in the same call. Outputs tarred into $OUT/kcluster.tar.xz.
# The space needs SPLIT_MODE "cluster", which main does not have: first `git apply
# results/h200/suite/kcluster/k_cluster.patch`, build, and bundle the binaries into build-dev (README's recipe).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../../.."
bash build-dev/prep.sh
out="${OUT:-/tmp/kcluster}"
w="$out/kcluster" && mkdir -p "$w/probe" "$w/v23"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > "$w/gpu.txt"
shapes=512x512x512,1024x1024x1024,2048x2048x2048,16x4096x4096
OUT="$w/probe" MPGEMM_BIN=build/bin timeout 300 tools/suite_bench.sh results/h200/suite/kcluster/space.json "$shapes" \
  > "$w/probe/bench.log" 2>&1
echo "probe exit $?" >> "$w/probe/bench.log"
winners="=wgmma_bm64_bn64_bk64_s12_c2_pingpong_cl1x1_m8_direct_pers_l2p128_pdl"
winners+=",=wgmma_bm128_bn64_bk64_s9_c2_coop_cl1x1_m8_rows_pers_l2p128_pdl"
winners+=",=wgmma_bm128_bn128_bk64_s7_c2_pingpong_cl1x1_m8_direct_pers_pdl"
winners+=",=wgmma_bm16_bn64_bk256_s5_c1_coop_cl1x1_m8_direct_pers_swab_l2p128_pdl"
OUT="$w/v23" MPGEMM_BIN=build/bin timeout 150 tools/suite_bench.sh configs/sm90a_suite.json "$shapes" -- \
  --only "$winners" > "$w/v23/bench.log" 2>&1
echo "v23 winners exit $?" >> "$w/v23/bench.log"
for d in probe v23; do
  rm -rf "$w/$d/suite.db.cubins" "$w/$d/suite.db-shm"
  xz -T0 -6 "$w/$d/suite.db"
done
tar cJf "$out/kcluster.tar.xz" -C "$out" kcluster
