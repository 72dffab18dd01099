set -u
mkdir -p /work && ln -sfn "$PWD" /work/main && mkdir -p build-rel/bin && cp -f build-rel/dev/* build-rel/bin/
mkdir -p $OUT/p
export NCU_SECTIONS="SpeedOfLight LaunchStats MemoryWorkloadAnalysis WarpStateStats SchedulerStats"
OUT=$OUT/p timeout 400 tools/profile_configs.sh configs/sm90a_suite.json 16 4096 4096 \
  wgmma_bm64_bn64_bk64_s8_c1_coop_cl1x1_m8_direct_pers cublas wgmma_bm64_bn64_bk64_s8_c1_coop_cl1x1_m8_direct_pers_sk2 \
  wgmma_bm64_bn128_bk64_s9_c1_coop_cl1x1_m8_direct_pers_sk4 > $OUT/p/summary.txt 2>&1
tar czf $OUT/prof.tgz -C $OUT p && rm -rf $OUT/p
