#!/usr/bin/env bash
# Re-times the fastest configs of a database side by side with cuBLAS (mpgemm-run --paired), so their ratios to
# cuBLAS are not biased by the SM clock drifting under the power cap between cuBLAS's one reference timing and the
# candidates' (the tuner times cuBLAS once per shape, before the candidates). While it runs, nvidia-smi samples
# power, SM clock and temperature every 100 ms; the summary gives their mean over the run.
#
#   tools/paired_rerank.sh DB M N K [TOP]
#
#   TOP                   how many of the fastest verified configs at that shape to re-time (default 5)
#   $OUT                  output folder (default /tmp/mpgemm_results/paired); files paired_<M>x<N>x<K>.{md,csv,log}
#   $MPGEMM_BIN           folder of the mpgemm binaries (default build/bin)
#   $MPGEMM_PAIRED_RUNS   timed batches per config, each paired with a cuBLAS batch (default 10)
#   $MPGEMM_PAIRED_ARGS   more mpgemm-run arguments, e.g. "--warmup 2000 --iters 50": a long warm-up brings the
#                         card to the clock its power cap holds under GEMM load before the first timed batch
#                         (quotes keep a word together: tools/split_args.sh)
#
# Exit status: 0 when every config was re-timed, 1 otherwise.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
die() {
  echo "paired_rerank: $*" >&2
  exit 1
}
[ $# -ge 4 ] || die "usage: tools/paired_rerank.sh DB M N K [TOP]"
db="$1" m="$2" n="$3" k="$4" top="${5:-5}"
for v in "$m" "$n" "$k" "$top"; do [[ "$v" =~ ^[1-9][0-9]*$ ]] || die "M, N, K and TOP must be positive integers, got '$v'"; done
[ -f "$db" ] || die "no database at $db"
bin="${MPGEMM_BIN:-$root/build/bin}"
runs="${MPGEMM_PAIRED_RUNS:-10}"
# shellcheck source=SCRIPTDIR/split_args.sh
source "$root/tools/split_args.sh"
extra=()
split_args extra MPGEMM_PAIRED_ARGS || die "MPGEMM_PAIRED_ARGS does not split into words (above)"
out="${OUT:-${TMPDIR:-/tmp}/mpgemm_results/paired}"
for t in mpgemm-run mpgemm-query; do [ -x "$bin/$t" ] || die "$bin/$t is missing (build with tools/bootstrap.sh)"; done
mkdir -p "$out"
shape="${m}x${n}x${k}"
log="$out/paired_${shape}.log" csv="$out/paired_${shape}.csv" md="$out/paired_${shape}.md" smi="$out/paired_${shape}_smi.csv"
: >"$log"

# The TOP fastest verified configs at the shape, fastest first (the view measurements: one row per measurement).
names="$("$bin/mpgemm-query" "$db" --format csv --sql "SELECT c.name FROM measurements m JOIN configs c ON c.id = m.config_id
  WHERE m.M = $m AND m.N = $n AND m.K = $k AND m.status = 'ok' GROUP BY c.name ORDER BY MIN(m.median_ms) LIMIT $top" | tail -n +2)"
[ -n "$names" ] || die "no verified config at $shape in $db"

smi_pid=""
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=timestamp,power.draw,clocks.sm,temperature.gpu,clocks_event_reasons.active \
    --format=csv,noheader,nounits -lms 100 >"$smi" 2>/dev/null &
  smi_pid=$!
fi

echo "config,status,ms,cublas_ms,ratio" >"$csv"
failed=0
while IFS= read -r name; do
  name="${name%\"}" name="${name#\"}"
  [ -n "$name" ] || continue
  echo "== $name" >>"$log"
  row="$("$bin/mpgemm-run" --config "$name" --db "$db" --M "$m" --N "$n" --K "$k" --paired --runs "$runs" \
    --no-cublaslt --format csv "${extra[@]}" 2>>"$log" | tee -a "$log" | awk -F, -v name="$name" '$2 == name' | head -n 1)" || true
  if [ -z "$row" ]; then
    echo "$name,failed,,," >>"$csv"
    failed=1
    continue
  fi
  # Columns of mpgemm-run's table: kernel,config,status,ms,GFLOPS,pct_cublas,pct_cublaslt,gain,max_abs_err,max_rel_err,cublas_ms
  echo "$row" | awk -F, '{ printf "%s,%s,%s,%s,%.4f\n", $2, $3, $4, $11, ($4 > 0 ? $11 / $4 : 0) }' >>"$csv"
done <<<"$names"

if [ -n "$smi_pid" ]; then kill "$smi_pid" 2>/dev/null || true; fi
{
  echo "# Paired re-timing at $shape ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
  echo
  echo "The $top fastest verified configs of \`$(basename "$db")\` at $shape, each re-timed by \`mpgemm-run --paired"
  echo "--runs $runs ${MPGEMM_PAIRED_ARGS:-}\`: $runs batches of the config alternating with $runs of cuBLAS (a b, b a, ...); ratio ="
  echo "cuBLAS ms / config ms from those batches' medians."
  echo
  echo "| config | status | ms | cuBLAS ms (paired) | × cuBLAS |"
  echo "|---|---|--:|--:|--:|"
  tail -n +2 "$csv" | awk -F, '{ printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5 }'
  if [ -s "$smi" ]; then
    echo
    awk -F', *' '{ p += $2; c += $3; t += $4; n++ } END { if (n) printf "nvidia-smi over the run (%d samples): mean power %.0f W, mean SM clock %.0f MHz, mean temperature %.0f C\n", n, p / n, c / n, t / n }' "$smi"
  fi
} >"$md"
cat "$md"
exit "$failed"
