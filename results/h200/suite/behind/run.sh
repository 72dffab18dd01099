#!/usr/bin/env bash
# On the H200 (device call, carry build-dev): the behind-epilogue probe. First the GPU test of the new epilogue
# (tune_wgmma_test, its Behind case), then tools/suite_bench.sh over space.json at seven suite shapes with the 40
# behind configs, their 16 tma twins (the same cooperative 128 x 128 and 128 x 64 tiles, stages and buffers) and
# v23's winners of the seven shapes (v23_winners.txt), all in one run against the same references. Outputs under
# $OUT/behind. EPILOGUE "behind" is not on main: first `git apply results/h200/suite/behind/behind.patch`, build, and
# bundle the binaries into build-dev.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../../.."
bash build-dev/prep.sh
w="${OUT:-/tmp/behind}/behind" && mkdir -p "$w"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > "$w/gpu.txt"
timeout 150 build/bin/tune_wgmma_test --gtest_filter='*Behind*' > "$w/gpu_test.log" 2>&1
echo "gpu test exit $?" >> "$w/gpu_test.log"
only="_behind,_bm128_bn128_bk64_s5_c2_coop_cl1x1_m8_tma4,_bm128_bn128_bk64_s6_c2_coop_cl1x1_m8_tma2"
only+=",_bm128_bn64_bk64_s6_c2_coop_cl1x1_m8_tma4,_bm128_bn64_bk64_s8_c2_coop_cl1x1_m8_tma2"
only+=",$(cat results/h200/suite/behind/v23_winners.txt)"
shapes=4096x4096x256,8192x8192x1024,4096x4096x4096,2048x2048x2048,3000x3000x3000,8192x8192x8192,1024x1024x1024
OUT="$w" MPGEMM_BIN=build/bin MPGEMM_SUITE_RERANK=8 timeout 380 tools/suite_bench.sh results/h200/suite/behind/space.json \
  "$shapes" -- --only "$only" > "$w/bench.log" 2>&1
echo "behind exit $?" >> "$w/bench.log"
rm -rf "$w/suite.db.cubins" "$w/suite.db-shm" "$w/suite.db-claims"
xz -T0 -6 "$w/suite.db"
tar cJf "${OUT:-/tmp/behind}/behind.tar.xz" -C "${OUT:-/tmp/behind}" behind
