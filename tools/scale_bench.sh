#!/usr/bin/env bash
# The scale-out benchmark (issue 10), one run on a host with several GPUs: the Hopper space at three shapes tuned
# on one GPU (--gpus 0) and on all of them (--gpus all), from one cubin cache filled beforehand, so that both runs
# measure the same pairs with nothing to compile and the ratio is the measuring pipeline's. Prints a markdown
# table (seconds, pairs/s, speed-up against the target) and each run's winner per shape: whether they are the same
# config, and whether each lies inside the other run's tie band (its latest re-rank's configs within --tie-band of
# the fastest, which the fixed rule chose among), since a 1-2% effect of the process can reorder tied configs.
#
#   tools/scale_bench.sh [compile | measure | report | all]     (default all)
#     compile   fill the cubin cache only (--compile-only; no GPU needed)
#     measure   the two timed runs, the cache filled already
#     report    only compare the winners of $OUT/one_gpu.db and $OUT/all_gpus.db (no GPU needed)
#
#   $OUT                  output folder (default /tmp/mpgemm_results/scale_bench)
#   $MPGEMM_BIN           folder of the mpgemm binaries (default build/bin)
#   $MPGEMM_SCALE_SPACE   the space (default configs/sm90a_bench.json: 1172 configs x 3 shapes)
#   $MPGEMM_SCALE_CACHE   the cubin cache (default $OUT/bench.cubins)
#   $MPGEMM_SCALE_ARGS    more mpgemm-tune arguments for both runs (e.g. "--budget 400"; quotes keep a word together,
#                         tools/split_args.sh)
#
# Target (issue 10): all GPUs >= 1.8x faster than one (two H200s), and the same winners.
# Exit status: 0 when both runs worked (whether or not the target was met); 1 otherwise.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
out="${OUT:-${TMPDIR:-/tmp}/mpgemm_results/scale_bench}"
bin="${MPGEMM_BIN:-$root/build/bin}"
space="${MPGEMM_SCALE_SPACE:-configs/sm90a_bench.json}"
cache="${MPGEMM_SCALE_CACHE:-$out/bench.cubins}"
step="${1:-all}"

die() {
  echo "scale_bench: $*" >&2
  exit 1
}
# shellcheck source=SCRIPTDIR/split_args.sh
source "$root/tools/split_args.sh"
extra=()
split_args extra MPGEMM_SCALE_ARGS || die "MPGEMM_SCALE_ARGS does not split into words (above)"
case "$step" in compile | measure | report | all) ;; *) die "unknown step '$step': compile, measure, report or all" ;; esac
tools=(mpgemm-query)
[ "$step" = report ] || tools+=(mpgemm-tune)
for t in "${tools[@]}"; do [ -x "$bin/$t" ] || die "no $bin/$t (build first, or set MPGEMM_BIN)"; done
mkdir -p "$out"

# Each shape's winner, the configs tied with it and every config of its re-rank, as CSV rows
# "MxNxK,winner,tied names,re-ranked names" (names separated by spaces).
winners() {
  "$bin/mpgemm-query" "$1" --format csv --sql "SELECT w.M || 'x' || w.N || 'x' || w.K AS shape,
      w.config_name AS winner,
      (SELECT group_concat(c.name, ' ') FROM rerank_configs AS rc JOIN configs AS c ON c.id = rc.config_id
       WHERE rc.rerank_id = w.rerank_id AND rc.tied = 1) AS tied,
      (SELECT group_concat(c.name, ' ') FROM rerank_configs AS rc JOIN configs AS c ON c.id = rc.config_id
       WHERE rc.rerank_id = w.rerank_id) AS reranked
    FROM winners AS w ORDER BY w.M, w.N, w.K" | tail -n +2
}

# The winners of the two databases side by side; prints a markdown table and a summary line.
compare_winners() {
  for name in one_gpu all_gpus; do
    [ -f "$out/$name.db" ] || die "report: no $out/$name.db (run the measure step first)"
    winners "$out/$name.db" >"$out/winners_${name%_gpu*}.csv" || die "report: cannot read the winners of $out/$name.db"
  done
  python3 - "$out/winners_one.csv" "$out/winners_all.csv" <<'PY'
import csv, sys
def read(path):
    return {r[0]: (r[1], set(r[2].split()), set(r[3].split())) for r in csv.reader(open(path)) if len(r) == 4}
one, all_ = read(sys.argv[1]), read(sys.argv[2])
def band(a, b):  # is a's winner inside b's tie band?
    if a[0] in b[1]: return "yes"
    return "no" if a[0] in b[2] else "not in its re-rank"
print("| shape | winner on one GPU | winner on all GPUs | same | one GPU's inside all's tie band | all's inside one GPU's |")
print("| --- | --- | --- | --- | --- | --- |")
same = tied = 0
shapes = sorted(set(one) | set(all_), key=lambda s: [int(x) for x in s.split("x")])
for s in shapes:
    a, b = one.get(s), all_.get(s)
    if not a or not b:
        print(f"| {s} | {a[0] if a else '(none)'} | {b[0] if b else '(none)'} | no | - | - |")
        continue
    ab, ba = band(a, b), band(b, a)
    same += a[0] == b[0]
    tied += ab == "yes" and ba == "yes"
    print(f"| {s} | {a[0]} | {b[0]} | {'yes' if a[0] == b[0] else 'no'} | {ab} | {ba} |")
print(f"\nSame winner at {same} of {len(shapes)} shapes; each winner inside the other run's tie band at {tied} of "
      f"{len(shapes)}.")
PY
}

if [ "$step" = report ]; then
  compare_winners | tee "$out/winners_compare.md"
  exit 0
fi

if [ "$step" != measure ]; then
  start=$(date +%s.%N)
  "$bin/mpgemm-tune" "$space" --compile-only --arch sm_90a --db "$out/compile.db" --cubin-cache "$cache" \
    "${extra[@]}" >"$out/compile.log" 2>&1 || die "compile: mpgemm-tune failed: $(tail -n 3 "$out/compile.log")"
  echo "compiled into $cache in $(python3 -c "print(round($(date +%s.%N) - $start))") s"
  [ "$step" = compile ] && exit 0
fi

# One timed run; prints "seconds pairs".
tune() {
  local name="$1" gpus="$2" start end line
  rm -f "$out/$name.db" "$out/$name.db-wal" "$out/$name.db-shm"
  start=$(date +%s.%N)
  "$bin/mpgemm-tune" "$space" --gpus "$gpus" --db "$out/$name.db" --cubin-cache "$cache" --top 3 "${extra[@]}" \
    >"$out/$name.log" 2>&1 || die "$name: mpgemm-tune failed (log: $out/$name.log): $(tail -n 3 "$out/$name.log")"
  end=$(date +%s.%N)
  line=$(grep -E '\(config, shape\) pairs of [0-9]+ configs in' "$out/$name.log" | tail -n 1) ||
    die "$name: no summary line in $out/$name.log"
  echo "$(python3 -c "print(round($end - $start, 1))") $(sed -E 's/.*: ([0-9]+) \(config, shape\) pairs.*/\1/' <<<"$line")"
}

read -r one_s one_pairs < <(tune one_gpu 0)
read -r all_s all_pairs < <(tune all_gpus all)
gpus=$(grep -oE 'measuring on [0-9]+ GPUs' "$out/all_gpus.log" | grep -oE '[0-9]+' || echo 1)

report="$out/scale_bench.md"
python3 - "$one_s" "$one_pairs" "$all_s" "$all_pairs" "$gpus" "$space" >"$report" <<'PY'
import sys
one_s, one_p, all_s, all_p, gpus, space = sys.argv[1:]
one_s, all_s, one_p, all_p = float(one_s), float(all_s), int(one_p), int(all_p)
speedup = one_s / all_s
print(f"Scale-out: {space}, {one_p} (config, shape) pairs, cubins cached\n")
print("| run | GPUs | pairs | seconds | pairs/s | speed-up | target | verdict |")
print("| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |")
print(f"| --gpus 0 | 1 | {one_p} | {one_s:.1f} | {one_p / one_s:.1f} | 1.00 | | |")
verdict = "PASS" if speedup >= 1.8 else "MISS"
print(f"| --gpus all | {gpus} | {all_p} | {all_s:.1f} | {all_p / all_s:.1f} | {speedup:.2f} | >= 1.8 | {verdict} |")
PY
echo >>"$report"
compare_winners | tee "$out/winners_compare.md" >>"$report"
cat "$report"
