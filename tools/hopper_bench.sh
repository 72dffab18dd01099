#!/usr/bin/env bash
# The Hopper benchmark (issue 7), one run on an H200: tune a space at 2048^3, 4096^3 and 8192^3, then print per
# shape the fastest verified config (any family, any arch), its TFLOP/s, cuBLAS's, cuBLASLt's best of its top 8
# heuristic algorithms, and both ratios, as a markdown table; keep the logs and CSVs of everything beside it.
#
#   tools/hopper_bench.sh [SPACE.json] [-- EXTRA mpgemm-tune ARGUMENTS]
#
#   SPACE.json            default configs/sm90a_focus.json (configs/sm90a.json, every lever of the family, has
#                         thousands of configs: hours exhaustively, until the tuner has search strategies)
#   $OUT                  output folder (default /tmp/mpgemm_results/hopper); the database is $OUT/<space>.db, resumed if present
#   $MPGEMM_BIN           folder of the mpgemm binaries (default build/bin; built with tools/bootstrap.sh if absent)
#   $MPGEMM_BENCH_SIZES   cube sizes to tune (default "2048 4096 8192")
#   $MPGEMM_BENCH_RERUN   1 (default): also re-measure each shape's best with mpgemm-run --config best; 0: skip
#   $MPGEMM_BENCH_PAIRED  how many of each shape's fastest configs to re-time side by side with cuBLAS after a long
#                         warm-up (tools/paired_rerank.sh; default 3, 0 skips): the ratios to believe when the
#                         card's clock drifts under its power cap between cuBLAS's reference timing and the tuning
#
# Exit status: 0 when every step worked and every shape has a verified config; 1 otherwise (the step is named).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

space="configs/sm90a_focus.json"
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
  space="$1"
  shift
fi
if [ $# -gt 0 ] && [ "$1" = "--" ]; then shift; fi
extra=("$@")

out="${OUT:-${TMPDIR:-/tmp}/mpgemm_results/hopper}"
bin="${MPGEMM_BIN:-$root/build/bin}"
read -r -a sizes <<<"${MPGEMM_BENCH_SIZES:-2048 4096 8192}"
rerun="${MPGEMM_BENCH_RERUN:-1}"
paired="${MPGEMM_BENCH_PAIRED:-3}"
[[ "$paired" =~ ^[0-9]+$ ]] || { echo "hopper_bench: MPGEMM_BENCH_PAIRED must be a count" >&2; exit 1; }
[ "$rerun" = 0 ] || [ "$rerun" = 1 ] || { echo "hopper_bench: MPGEMM_BENCH_RERUN must be 0 or 1" >&2; exit 1; }

die() {
  echo "hopper_bench: $*" >&2
  exit 1
}

[ -f "$space" ] || die "no search space at $space (give its path as the first argument)"
((${#sizes[@]})) || die "MPGEMM_BENCH_SIZES is empty"
for s in "${sizes[@]}"; do
  [[ "$s" =~ ^[1-9][0-9]*$ ]] || die "MPGEMM_BENCH_SIZES must hold positive integers, got '$s'"
done

tools=(mpgemm-tune mpgemm-query)
[ "$rerun" = 1 ] && tools+=(mpgemm-run)
absent=()
for t in "${tools[@]}"; do [ -x "$bin/$t" ] || absent+=("$t"); done
if ((${#absent[@]})); then
  [ -z "${MPGEMM_BIN:-}" ] || die "MPGEMM_BIN=$bin lacks ${absent[*]}"
  echo "hopper_bench: building mpgemm (tools/bootstrap.sh)" >&2
  "$root/tools/bootstrap.sh" || die "the build failed"
fi

mkdir -p "$out" || die "cannot create $out"
name="$(basename "$space" .json)"
db="$out/$name.db"
summary="$out/${name}_bench.md"
failed=()

say() { echo "hopper_bench: $*" >&2; }

# Runs one step with its output appended to a log (a rerun keeps the earlier runs' lines); a failure is
# remembered (and its log's tail shown), not fatal, so the other shapes and the outputs still come.
step() {
  local what="$1" log="$2"
  shift 2
  say "$what (log: $log)"
  local rc=0
  echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) $what" >>"$log"
  "$@" >>"$log" 2>&1 || rc=$?
  echo "exit $rc" >>"$log"
  if [ "$rc" -ne 0 ]; then
    say "$what FAILED with exit $rc; the end of $log:"
    tail -n 15 "$log" >&2
    failed+=("$what (exit $rc)")
  fi
  return 0
}

{
  date -u +"%Y-%m-%dT%H:%M:%SZ"
  if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv
  else
    echo "nvidia-smi not found"
  fi
} >"$out/${name}_gpu.txt" 2>&1

# One tuning run when the space lists exactly the benchmark's shapes (each config compiled once for all of them);
# otherwise one run per shape with --M/--N/--K, which replace the space's shapes.
space_lists_sizes() {
  command -v python3 >/dev/null 2>&1 || return 1
  python3 - "$space" "${sizes[@]}" <<'PY'
import json, sys
space, sizes = sys.argv[1], sorted({int(s) for s in sys.argv[2:]})
try:
    shapes = json.load(open(space)).get("shapes", [])
    listed = sorted({(s["M"], s["N"], s["K"]) for s in shapes})
except Exception:
    sys.exit(1)
sys.exit(0 if listed == [(n, n, n) for n in sizes] else 1)
PY
}

if space_lists_sizes; then
  step "tune $space at its shapes (${sizes[*]} cubed)" "$out/${name}_tune.log" \
    "$bin/mpgemm-tune" "$space" --db "$db" "${extra[@]}"
else
  for n in "${sizes[@]}"; do
    step "tune $space at ${n}^3" "$out/${name}_tune_${n}.log" \
      "$bin/mpgemm-tune" "$space" --db "$db" --M "$n" --N "$n" --K "$n" "${extra[@]}"
  done
fi
[ -f "$db" ] || die "tuning left no database at $db; see the logs in $out"

if [ "$rerun" = 1 ]; then
  for n in "${sizes[@]}"; do
    step "re-measure the best at ${n}^3 with mpgemm-run" "$out/${name}_run_${n}.log" \
      "$bin/mpgemm-run" --config best --db "$db" --space "$space" --M "$n" --N "$n" --K "$n" --format markdown \
      --output "$out/${name}_run_${n}.md"
  done
fi

if [ "$paired" -gt 0 ]; then
  for n in "${sizes[@]}"; do
    # About a second of warm-up launches (both kernels, alternately) so the card is at its power-capped clock.
    warm=$((2000 * 4096 * 4096 * 4096 / (n * n * n)))
    [ "$warm" -ge 20 ] || warm=20
    [ "$warm" -le 20000 ] || warm=20000
    step "paired re-timing of the $paired fastest at ${n}^3" "$out/${name}_paired.log" \
      env OUT="$out/${name}_paired" MPGEMM_BIN="$bin" MPGEMM_PAIRED_RUNS=20 \
      MPGEMM_PAIRED_ARGS="--warmup $warm --iters 20" "$root/tools/paired_rerank.sh" "$db" "$n" "$n" "$n" "$paired"
  done
fi

# Every view as CSV beside the table, for plots and for the README.
for view in best_per_shape best references measurements failures compilations runs; do
  # shellcheck disable=SC2016  # $1.. expand in the inner shell
  step "export $view" "$out/${name}_exports.log" \
    sh -c '"$1" "$2" "$3" --format csv >"$4"' _ "$bin/mpgemm-query" "$db" "$view" "$out/${name}_${view}.csv"
done

best_md="$("$bin/mpgemm-query" "$db" best_per_shape --format markdown)" || die "mpgemm-query $db best_per_shape failed"

# Shapes with no verified config: the CSV's first three columns are M, N, K.
missing=()
for n in "${sizes[@]}"; do
  if ! awk -F, -v n="$n" 'NR > 1 && $1 == n && $2 == n && $3 == n { found = 1 } END { exit !found }' \
    "$out/${name}_best_per_shape.csv"; then
    missing+=("${n}^3")
  fi
done
if ((${#missing[@]})); then failed+=("no verified config at ${missing[*]}"); fi

gpu="$(sed -n 3p "$out/${name}_gpu.txt")"  # nvidia-smi's values line: name, driver, clocks, power
{
  echo "# $name benchmark"
  echo
  if [ -n "$gpu" ]; then
    echo "GPU (nvidia-smi: name, driver, SM clock, max SM clock, power, power limit): $gpu"
    echo
  fi
  echo "Tuned \`$space\` at $(printf '%s^3 ' "${sizes[@]}")into \`$db\`. Per shape, the fastest verified config of"
  echo "any family and arch (view best_per_shape), its TFLOP/s, cuBLAS's and cuBLASLt's (best of its top 8 heuristic"
  echo "algorithms, each verified against cuBLAS) timed in the same run, and the ratios config/cuBLAS and"
  echo "config/cuBLASLt (reference time / config time: above 1 is faster than the reference)."
  echo
  echo "$best_md"
  if [ "$rerun" = 1 ]; then
    for n in "${sizes[@]}"; do
      [ -f "$out/${name}_run_${n}.md" ] || continue
      echo
      echo "## Re-measured at ${n}^3 (mpgemm-run --config best)"
      echo
      cat "$out/${name}_run_${n}.md"
    done
  fi
  for n in "${sizes[@]}"; do
    f="$out/${name}_paired/paired_${n}x${n}x${n}.md"
    [ -f "$f" ] || continue
    echo
    sed 's/^# /## /' "$f"
  done
  if ((${#failed[@]})); then
    echo
    echo "## Problems"
    echo
    for f in "${failed[@]}"; do echo "- $f"; done
  fi
} >"$summary"

cat "$summary"
say "outputs in $out: ${name}_bench.md (this table), ${name}_*.csv, ${name}_*.log, $name.db"
if ((${#failed[@]})); then
  say "${#failed[@]} problem(s): ${failed[*]}"
  exit 1
fi
