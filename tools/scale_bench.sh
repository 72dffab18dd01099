#!/usr/bin/env bash
# The scale-out benchmark (issue 10), one run on a host with several GPUs: the Hopper space at three shapes tuned
# on one GPU (--gpus 0) and on all of them (--gpus all), from one cubin cache filled beforehand, so that both runs
# measure the same pairs with nothing to compile and the ratio is the measuring pipeline's. Prints a markdown
# table (seconds, pairs/s, speed-up against the target) and each run's winner per shape, and whether they agree.
#
#   tools/scale_bench.sh [compile | measure | all]     (default all)
#     compile   fill the cubin cache only (--compile-only; no GPU needed)
#     measure   the two timed runs, the cache filled already
#
#   $OUT                  output folder (default results/h200x2/scale_bench)
#   $MPGEMM_BIN           folder of the mpgemm binaries (default build/bin)
#   $MPGEMM_SCALE_SPACE   the space (default configs/sm90a_bench.json: 1172 configs x 3 shapes)
#   $MPGEMM_SCALE_CACHE   the cubin cache (default $OUT/bench.cubins)
#   $MPGEMM_SCALE_ARGS    more mpgemm-tune arguments for both runs (e.g. "--budget 400")
#
# Target (issue 10): all GPUs >= 1.8x faster than one (two H200s), and the same winners.
# Exit status: 0 when both runs worked (whether or not the target was met); 1 otherwise.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
out="${OUT:-$root/results/h200x2/scale_bench}"
bin="${MPGEMM_BIN:-$root/build/bin}"
space="${MPGEMM_SCALE_SPACE:-configs/sm90a_bench.json}"
cache="${MPGEMM_SCALE_CACHE:-$out/bench.cubins}"
read -r -a extra <<<"${MPGEMM_SCALE_ARGS:-}"
step="${1:-all}"

die() {
  echo "scale_bench: $*" >&2
  exit 1
}
for t in mpgemm-tune mpgemm-query; do [ -x "$bin/$t" ] || die "no $bin/$t (build first, or set MPGEMM_BIN)"; done
case "$step" in compile | measure | all) ;; *) die "unknown step '$step': compile, measure or all" ;; esac
mkdir -p "$out"

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

winners() { "$bin/mpgemm-query" "$1" winners --format csv | tail -n +2 | cut -d, -f1-4 | sort; }
winners "$out/one_gpu.db" >"$out/winners_one.csv"
winners "$out/all_gpus.db" >"$out/winners_all.csv"

report="$out/scale_bench.md"
python3 - "$one_s" "$one_pairs" "$all_s" "$all_pairs" "$gpus" "$out" "$space" >"$report" <<'PY'
import sys
one_s, one_p, all_s, all_p, gpus, out, space = sys.argv[1:]
one_s, all_s, one_p, all_p = float(one_s), float(all_s), int(one_p), int(all_p)
speedup = one_s / all_s
print(f"Scale-out: {space}, {one_p} (config, shape) pairs, cubins cached\n")
print("| run | GPUs | pairs | seconds | pairs/s | speed-up | target | verdict |")
print("| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |")
print(f"| --gpus 0 | 1 | {one_p} | {one_s:.1f} | {one_p / one_s:.1f} | 1.00 | | |")
verdict = "PASS" if speedup >= 1.8 else "MISS"
print(f"| --gpus all | {gpus} | {all_p} | {all_s:.1f} | {all_p / all_s:.1f} | {speedup:.2f} | >= 1.8 | {verdict} |")
a = open(f"{out}/winners_one.csv").read().splitlines()
b = open(f"{out}/winners_all.csv").read().splitlines()
print("\n| shape | winner on one GPU | winner on all GPUs | same |")
print("| --- | --- | --- | --- |")
for x, y in zip(a, b):
    xs, ys = x.split(","), y.split(",")
    print(f"| {'x'.join(xs[:3])} | {xs[3]} | {ys[3]} | {'yes' if xs[3] == ys[3] else 'no'} |")
if len(a) != len(b):
    print(f"\n{len(a)} winners on one GPU, {len(b)} on all")
PY
cat "$report"
