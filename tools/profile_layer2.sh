#!/usr/bin/env bash
# The writeup's profile_layer2.sh for mpgemm: Nsight Compute on each published variant, the best tuned config (of
# any family) and cuBLAS. Each kernel's report is kept as results/profiles/<label>.ncu-rep (open it in Nsight
# Compute), and its counters as results/profiles/<label>.csv and in the database (table profile_metrics), so
# `mpgemm-query DB --compare wmma_naive,wmma_shared` shows which counter moved and mpgemm-report draws them.
#
# Usage: tools/profile_layer2.sh [DB] [M N K]       (defaults: results/results.db, 2048 2048 2048)
# Needs a GPU and ncu (Nsight Compute 2025.3+); clocks are left alone (--clock-control none).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
db="${1:-$root/results/results.db}"
M="${2:-2048}"; N="${3:-2048}"; K="${4:-2048}"
bin="${MPGEMM_BIN:-$root/build/bin}"
out="${MPGEMM_PROFILE_DIR:-$root/results/profiles}"
mkdir -p "$out"
ncu_bin="${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}"
[ -x "$ncu_bin" ] || { echo "profile_layer2: ncu not found (set NCU=/path/to/ncu)" >&2; exit 1; }

# The writeup's counters: global load sectors (plain loads and cp.async LDGSTS), long-scoreboard stalls, tensor
# (HMMA) pipe utilisation, L1 hit rate, DRAM throughput, issue active, registers per thread. The HMMA counter
# counts instructions against a peak of warp-level MMAs, so a wgmma kernel, whose warpgroup instructions each do
# far more work, reads low there (2.5% at 2048^3 on the H200 for a kernel whose tensor pipe was 80% busy); the
# tensor pipe's active cycles, which measure every kind of MMA alike, come too.
metrics=l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum
metrics+=,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio
metrics+=,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct
metrics+=,sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active
metrics+=,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active
metrics+=,l1tex__t_sector_hit_rate.pct
metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,smsp__issue_active.avg.pct_of_peak_sustained_active
metrics+=,launch__registers_per_thread
metrics+=,gpu__time_duration.sum

run="$bin/mpgemm-run --db $db --M $M --N $N --K $K --warmup 0 --runs 1 --iters 1"
# mpgemm-run --config X runs X then nothing else of ours; its worker first launches cuBLAS's reference GEMM, so
# a filter on our kernel's name picks our verification launch and the first launch overall is cuBLAS.
# Every family's kernel is <family>_gemm (kernels/<family>.cuh): wmma_gemm, wgmma_gemm, ...
kernel_filter() { echo "regex:(^|[^A-Za-z0-9_])$1_gemm"; }
# ncu's CSV names the GPU only by its ordinal: the name comes from nvidia-smi, for the GPU mpgemm-run measures on
# (its device 0: the first of CUDA_VISIBLE_DEVICES when set, an index or a UUID, which nvidia-smi -i takes too).
gpu="${CUDA_VISIBLE_DEVICES:-0}"; gpu="${gpu%%,*}"
device=""
if command -v nvidia-smi >/dev/null; then
  device=$(nvidia-smi --query-gpu=name --format=csv,noheader -i "$gpu" 2>/dev/null | head -n 1 || true)
fi
device_args=(); [ -n "$device" ] && device_args=(--device "$device")
# ncu writes the report, then prints its counters as CSV from it (the details page: one row per counter).
profile() {  # label, config selector, ncu kernel filter args...
  local label="$1" config="$2"; shift 2
  echo "profile_layer2: $label" >&2
  "$ncu_bin" --clock-control none --target-processes all --metrics "$metrics" --export "$out/$label.ncu-rep" \
    --force-overwrite "$@" $run --config "$config" >"$out/$label.log" 2>&1 || {
    echo "profile_layer2: ncu failed for $label (see $out/$label.log)" >&2; return 1; }
  "$ncu_bin" --import "$out/$label.ncu-rep" --csv --page details >"$out/$label.csv" 2>>"$out/$label.log" || {
    echo "profile_layer2: ncu could not read back $out/$label.ncu-rep (see $out/$label.log)" >&2; return 1; }
  "$bin/mpgemm-profile" "$db" "$out/$label.csv" --label "$label" --M "$M" --N "$N" --K "$K" ${device_args[@]+"${device_args[@]}"}
}

for point in wmma_naive wmma_shared wmma_cp_async; do
  profile "$point" "$point" -k "$(kernel_filter wmma)" --launch-count 1
done
# The best config of any family and arch (best_per_shape), with its family for the kernel filter.
best_row=$("$bin/mpgemm-query" "$db" --format csv --sql \
  "SELECT family, config_name FROM best_per_shape WHERE M = $M AND N = $N AND K = $K ORDER BY median_ms LIMIT 1" |
  sed -n 2p)
if [ -n "$best_row" ]; then
  best_family="${best_row%%,*}"
  profile best "${best_row#*,}" -k "$(kernel_filter "$best_family")" --launch-count 1
else
  echo "profile_layer2: no tuned config for ${M}x${N}x${K} in $db; skipping 'best'" >&2
fi
profile cublas wmma_cp_async --launch-count 1

# One CSV with every label's counters, for the results folder.
"$bin/mpgemm-query" "$db" profiles --format csv >"$out/all_counters.csv"
echo "profile_layer2: reports (.ncu-rep) and counters in $out, counters in $db (mpgemm-query $db --compare" \
     "wmma_naive,wmma_shared; mpgemm-report $db)" >&2
