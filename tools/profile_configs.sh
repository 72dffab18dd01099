#!/usr/bin/env bash
# Nsight Compute on named configs of a space at one shape: one kernel launch each (the verification launch), the
# Speed-of-Light, launch, occupancy, compute and warp-state sections, printed as one CSV per config into $OUT (or
# results/profiles) and summarised on stdout. Clocks are left alone (--clock-control none).
#   tools/profile_configs.sh SPACE M N K CONFIG_NAME...    ("cublas" after a name profiles cuBLAS's kernel instead)
# Environment: MPGEMM_BIN (default build-rel/bin), NCU (default: ncu on PATH or /usr/local/cuda/bin/ncu),
#              NCU_SECTIONS (space-separated section names replacing the default list).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ $# -ge 5 ] || { sed -n 2,7p "$0" >&2; exit 2; }
space="$1" M="$2" N="$3" K="$4"
shift 4
bin="${MPGEMM_BIN:-$root/build-rel/bin}"
out="${OUT:-$root/results/profiles}"
mkdir -p "$out"
ncu_bin="${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}"
[ -x "$ncu_bin" ] || { echo "profile_configs: ncu not found (set NCU=/path/to/ncu)" >&2; exit 1; }
sections=()
for s in ${NCU_SECTIONS:-SpeedOfLight LaunchStats Occupancy ComputeWorkloadAnalysis WarpStateStats}; do
  sections+=(--section "$s")
done
for name in "$@"; do
  db="$(mktemp -d)/p.db"
  filter=(-k regex:wgmma_gemm --launch-count 1)
  config="$name"
  if [ "$name" = cublas ]; then  # cuBLAS's first launch is its reference run; the config before brings it along
    filter=(-k regex:'^(nvjet|sm90|cutlass)' --launch-count 1)
    config="${last:?put cublas after a config name}"
  fi
  last="$config"
  "$ncu_bin" --clock-control none --target-processes all --csv --page details "${sections[@]}" \
    "${filter[@]}" "$bin/mpgemm-tune" "$root/$space" --only "=$config" --M "$M" --N "$N" --K "$K" --db "$db" --warmup 0 --runs 1 \
    --iters 1 >"$out/ncu_$name.csv" 2>"$out/ncu_$name.log" || {
    echo "profile_configs: ncu failed for $name (see $out/ncu_$name.log)" >&2
    continue
  }
  echo "== $name"
  grep -E '"(Duration|SM Frequency|Elapsed Cycles|Grid Size|Cluster Size|Registers Per Thread|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|DRAM Throughput|Achieved Occupancy|Issue Slots Busy|Executed Ipc Active)"' \
    "$out/ncu_$name.csv" | awk -F'","' '{print "  " $(NF-2) " = " $NF " " $(NF-1)}' | tr -d '"' || true
done
