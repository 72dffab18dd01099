#!/usr/bin/env bash
# libmpgemm's host cost per call on one H200 (mpgemm-lib-bench): one gemm() checked against cuBLAS, then gemm()
# timed on the host against a bare cuLaunchKernelEx of the same kernel with the same prepared arguments, at 4096^3,
# 512^3 and 16x4096x4096, from the suite's database (../suite/suite.db.xz) and from its mpgemm-export JSON at 4096^3.
# From a clean clone, after tools/bootstrap.sh: bash results/library/run.sh
# Writes $OUT/libbench_*.log (default OUT: /tmp/mpgemm_results/library); binaries from $MPGEMM_BIN (default
# build/bin). Exit status: 0 when every bench ran, else the first failing one's (3: no GPU).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/../.."
out="${OUT:-${TMPDIR:-/tmp}/mpgemm_results/library}"
bin="${MPGEMM_BIN:-build/bin}"
mkdir -p "$out"
xz -dc results/suite/suite.db.xz > "$out/suite.db"
for s in 4096x4096x4096 512x512x512 16x4096x4096; do
  IFS=x read -r m n k <<< "$s"
  "$bin/mpgemm-lib-bench" "$out/suite.db" --M "$m" --N "$n" --K "$k" 2>&1 | tee "$out/libbench_$s.log"
done
"$bin/mpgemm-export" "$out/suite.db" --format json -o "$out/suite_export.json"
"$bin/mpgemm-lib-bench" "$out/suite_export.json" --M 4096 --N 4096 --K 4096 2>&1 | tee "$out/libbench_json_4096.log"
