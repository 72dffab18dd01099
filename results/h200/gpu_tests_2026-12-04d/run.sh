#!/usr/bin/env bash
# On the H200 (device call, carry build-dev: build/bin's mpgemm-* and GPU test binaries built from this commit, plus
# bin/mpgemm-export-old, mpgemm-export built with the export line before c1fc8ba): every GPU test (tools/gpu_tests.sh),
# which now includes ExportCppLaunch.SplitAndStreamKWinnersComputeTheProduct; then that test again with the old
# export swapped in, to show that it fails where the old export gives a stream-K winner no workspace. Output under
# $OUT/gpu_tests_2026-12-04d, tarred.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
bash build-dev/prep.sh
out="${OUT:-/tmp}"
w="$out/gpu_tests_2026-12-04d" && mkdir -p "$w"
results/h200/gpu_tests_call.sh "$w" 420
# The mutation: the old export, the same test binary.
cp build/bin/mpgemm-export build/bin/mpgemm-export-new
cp build/bin/mpgemm-export-old build/bin/mpgemm-export
timeout 180 build/bin/export_cpp_launch_test --gtest_filter='*SplitAndStream*' > "$w/old_export.log" 2>&1
echo "export_cpp_launch_test with the old export: exit $?" >> "$w/old_export.log"
cp build/bin/mpgemm-export-new build/bin/mpgemm-export
tar cJf "$out/gpu_tests_2026-12-04d.tar.xz" -C "$out" gpu_tests_2026-12-04d
tail -20 "$w/gpu_tests.log"; tail -25 "$w/old_export.log"
