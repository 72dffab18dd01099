#!/usr/bin/env bash
# The writeup's WMMA spaces on one GPU: configs/sm86.json (133 configs) at 2048^3 and configs/sm90.json (115 configs)
# at 2048^3 and 4096^3 tuned, the ladder tables printed by mpgemm-run --config best, the measurements exported as
# CSV, and (when Nsight Compute's ncu is on PATH) the counters of naive, shared, cp_async, the best config and cuBLAS.
# From a clean clone, after tools/bootstrap.sh: bash results/wmma/run.sh
# Writes the tables, CSVs, logs and databases to $OUT (default /tmp/mpgemm_results/wmma); binaries from $MPGEMM_BIN
# (default build/bin). To draw the pictures of report/ from the outputs: report/README.md.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/../.."
out="${OUT:-${TMPDIR:-/tmp}/mpgemm_results/wmma}"
bin="${MPGEMM_BIN:-build/bin}"
mkdir -p "$out"
"$bin/mpgemm-tune" configs/sm86.json --db "$out/h200.db" > "$out/tune_sm86_2048.log" 2>&1
"$bin/mpgemm-run" --config best --db "$out/h200.db" --format markdown --output "$out/writeup_table_2048.md"
"$bin/mpgemm-query" "$out/h200.db" measurements --format csv > "$out/sm86_space_2048_measurements.csv"
"$bin/mpgemm-tune" configs/sm90.json --db "$out/h200_sm90.db" > "$out/tune_sm90.log" 2>&1
for n in 2048 4096; do
  "$bin/mpgemm-run" --config best --space configs/sm90.json --db "$out/h200_sm90.db" --M $n --N $n --K $n \
    --format markdown --output "$out/sm90_space_table_$n.md"
done
"$bin/mpgemm-query" "$out/h200_sm90.db" measurements --format csv > "$out/sm90_space_measurements.csv"
if command -v ncu > /dev/null; then
  MPGEMM_BIN="$bin" MPGEMM_PROFILE_DIR="$out/profiles" tools/profile_layer2.sh "$out/h200.db" > "$out/profile.log" 2>&1
fi
