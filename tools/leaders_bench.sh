#!/usr/bin/env bash
# Tuning speed on the workflow the README recommends for a model's new shapes (issue 44): the suite space's leaders
# of another database (--leaders-from) at five transformer shapes, re-ranked, once cold (compiling as it goes) and
# once more on a fresh database with every cubin cached; then configs/sm86.json at 2048^3, cold and cached. Prints,
# per run, its wall time, the idle line, the coordinator's and each lane's account, the worker's own account and the
# hint, and each shape's winner in both leaders runs (A/A: the same winners, their times within a few percent).
# With $MPGEMM_BASE_BIN (the binaries of an earlier commit) it runs the A/B instead: each build's caches filled by
# its own --compile-only (untimed: an earlier build's cache keys differ from this one's), then the two cached runs
# with each build, back to back on the same card, and the ratios of the wall times (base / this). Cold runs are left
# out there: one call holds at most 600 s.
#
# Usage: tools/leaders_bench.sh LEADERS_DB [SHAPES]
#   LEADERS_DB  a database whose winners lead (the suite's of record: xz -dkc results/suite/suite.db.xz > suite.db)
#   SHAPES      comma-separated MxNxK (default: five of configs/shapes/transformer.json)
#   $OUT        output folder (default /tmp/mpgemm_results/leaders): cold.log, warm.log, sm86.log, the databases
#   $MPGEMM_BIN the binaries (default build/bin)
#   $MPGEMM_BASE_BIN  optional: an earlier build's binaries: the A/B of the cached runs instead (above)
# Exit status: 0 when every run ended 0, else the first failing run's.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 LEADERS_DB [SHAPES]" >&2; exit 2; }
leaders="$1"
shapes="${2:-1x12288x4096,16x4096x4096,128x22016x4096,512x4096x11008,2048x12288x4096}"
bin="${MPGEMM_BIN:-$root/build/bin}"
base="${MPGEMM_BASE_BIN:-}"
out="${OUT:-${TMPDIR:-/tmp}/mpgemm_results/leaders}"
[ -r "$leaders" ] || { echo "leaders_bench: cannot read $leaders" >&2; exit 2; }
mkdir -p "$out" || exit 2
rm -rf "$out"/*.db "$out"/*.db-* "$out"/*.db.cubins "$out/cubins" "$out/cubins86" "$out/base-cubins"
cd "$root" || exit 2
status=0
run() {  # NAME BIN ARGS...: one tune with BIN's mpgemm-tune, its wall time in NAME.wall
  local name="$1" with="$2"; shift 2
  local start end rc
  start=$(date +%s.%N)
  "$with/mpgemm-tune" "$@" --db "$out/$name.db" > "$out/$name.log" 2>&1
  rc=$?
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f\n", b - a }' > "$out/$name.wall"
  [ $rc -eq 0 ] || { echo "leaders_bench: $name exited $rc (see $out/$name.log)" >&2; [ $status -eq 0 ] && status=$rc; }
}
leaders_args=(configs/sm90a_suite.json --shapes "$shapes" --leaders-from "$leaders" --rerank 5 --graphs
              --rerank-within 0.10 --cubin-cache "$out/cubins")
sm86_args=(configs/sm86.json --shapes 2048x2048x2048 --cubin-cache "$out/cubins86")
if [ -z "$base" ]; then
  run cold "$bin" "${leaders_args[@]}"
  run warm "$bin" "${leaders_args[@]}"
  run sm86 "$bin" "${sm86_args[@]}"
  run sm86-warm "$bin" "${sm86_args[@]}"
  names=(cold warm sm86 sm86-warm)
else
  base_leaders=("${leaders_args[@]:0:${#leaders_args[@]}-1}" "$out/base-cubins/cubins")
  base_sm86=("${sm86_args[@]:0:${#sm86_args[@]}-1}" "$out/base-cubins/cubins86")
  # configs/sm86.json's cubins for the card's arch (a GPU run compiles for it), not the space's sm_86.
  cc="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ')"
  arch86=(); [ -n "$cc" ] && arch86=(--arch "sm_$cc")
  run fill "$bin" "${leaders_args[@]}" --compile-only
  run fill86 "$bin" "${sm86_args[@]}" --compile-only "${arch86[@]}"
  run base-fill "$base" "${base_leaders[@]}" --compile-only
  run base-fill86 "$base" "${base_sm86[@]}" --compile-only "${arch86[@]}"
  run base-warm "$base" "${base_leaders[@]}"
  run warm "$bin" "${leaders_args[@]}"
  run base-sm86-warm "$base" "${base_sm86[@]}"
  run sm86-warm "$bin" "${sm86_args[@]}"
  names=(fill base-fill base-warm warm base-sm86-warm sm86-warm)
fi
for name in "${names[@]}"; do
  echo "== $name: $(cat "$out/$name.wall") s"
  grep -E '^(exhaustive|coordinator|lane [0-9]|hint|run [0-9]+ )' "$out/$name.log"
  grep -E 'mpgemm-worker\[[0-9]+\]: [0-9]+ measurement' "$out/$name.log" | tail -1
done
echo "== winners (cold or base, then warm)"
for name in cold base-warm warm; do
  [ -e "$out/$name.db" ] && "$bin/mpgemm-query" "$out/$name.db" best --format csv 2>/dev/null | cut -d, -f1-6,12
done
if [ -n "$base" ]; then
  for pair in warm sm86-warm; do
    awk -v a="$(cat "$out/base-$pair.wall")" -v b="$(cat "$out/$pair.wall")" -v n="$pair" \
      'BEGIN { printf "== %s: base %.1f s / this %.1f s = %.2fx\n", n, a, b, a / b }'
  done
fi
exit $status
