set -u
mkdir -p /work && ln -sfn "$PWD" /work/main && mkdir -p build-rel/bin && cp -f build-rel/dev/* build-rel/bin/
mkdir -p $OUT/l
nvidia-smi > $OUT/l/smi.txt 2>&1
date -u > $OUT/l/times.txt
timeout 220 build-rel/bin/tune_wgmma_test --gtest_filter=*SplitK* > $OUT/l/tune_wgmma_split.log 2>&1; echo "split rc $?" >> $OUT/l/times.txt
date -u >> $OUT/l/times.txt
OUT=$PWD/suite_out MPGEMM_BIN=$PWD/build-rel/bin timeout 340 tools/suite_bench.sh > $OUT/l/suite.log 2>&1; echo "suite rc $?" >> $OUT/l/times.txt
date -u >> $OUT/l/times.txt
ls -la suite_out >> $OUT/l/times.txt
cp suite_out/*.md suite_out/*.csv suite_out/*.log suite_out/*.txt $OUT/l/ 2>/dev/null
cp suite_out/suite.db $OUT/l/ 2>/dev/null
tar czf $OUT/all.tgz -C $OUT l && rm -rf $OUT/l
