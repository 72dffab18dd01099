#!/usr/bin/env bash
# The tuning-speed benchmark (issue 8), one run on a GPU: how fast mpgemm-tune gets through a space cold (nothing
# compiled, nothing measured) and warm (every cubin cached, new shapes), the share of the run the device sat
# idle, and an A/A check (the winner timed by two separate mpgemm-run processes, each re-ranking it with cuBLAS in
# balanced rounds). Prints a markdown table with the targets and PASS/MISS beside each figure; logs and databases
# stay in $OUT.
#
#   tools/tune_bench.sh [PART ...]      PART: sm86 | hopper (default: both)
#
#   $OUT                   output folder (default results/h200/tune_bench)
#   $MPGEMM_BIN            folder of the mpgemm binaries (default build/bin)
#   $MPGEMM_BENCH_HOPPER   the Hopper space (default configs/sm90a_bench.json: 1170 configs x 3 shapes)
#   $MPGEMM_BENCH_ARGS     more mpgemm-tune arguments for every run (e.g. "--no-screen")
#   $MPGEMM_BENCH_CACHE    folder for the cubin caches (default $OUT)
#   $MPGEMM_BENCH_WARM     0 skips the warm runs (the Hopper space's new shapes include 12288^3: ~10 minutes)
#   $MPGEMM_BENCH_AA_ROUNDS  timed rounds of each A/A re-rank (default 20)
#
# Targets (issue 8): >= 1000 configs x 3 shapes cold in <= 300 s with the device idle < 20% of the run; warm >= 10x
# faster than cold per (config, shape) pair; A/A within +-1%.
# Exit status: 0 when every run worked (whether or not a target was met); 1 otherwise, naming the step.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
out="${OUT:-$root/results/h200/tune_bench}"
bin="${MPGEMM_BIN:-$root/build/bin}"
hopper="${MPGEMM_BENCH_HOPPER:-configs/sm90a_bench.json}"
read -r -a extra <<<"${MPGEMM_BENCH_ARGS:-}"
parts=("$@")
((${#parts[@]})) || parts=(sm86 hopper)

die() {
  echo "tune_bench: $*" >&2
  exit 1
}
for t in mpgemm-tune mpgemm-run mpgemm-query; do [ -x "$bin/$t" ] || die "no $bin/$t (build first, or set MPGEMM_BIN)"; done
for p in "${parts[@]}"; do [ "$p" = sm86 ] || [ "$p" = hopper ] || die "unknown part '$p': sm86 or hopper"; done
command -v python3 >/dev/null || die "python3 is needed to rewrite the shapes of the warm run"
mkdir -p "$out"

# A copy of SPACE with every shape's sides scaled by 3/2 (multiples of 256): new shapes for the warm run.
new_shapes() {
  python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for s in d["shapes"]:
    for k in ("M", "N", "K"):
        s[k] = max(256, (s[k] * 3 // 2) // 256 * 256)
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
}

# One mpgemm-tune run; prints "seconds pairs idle_percent" from its summary line.
tune() {
  local name="$1" space="$2" db="$3" cache="$4"
  local log="$out/$name.log" start end
  start=$(date +%s.%N)
  "$bin/mpgemm-tune" "$space" --db "$db" --cubin-cache "$cache" --rerank 0 --top 3 "${extra[@]}" >"$log" 2>&1 ||
    die "$name: mpgemm-tune failed (log: $log): $(tail -n 3 "$log")"
  end=$(date +%s.%N)
  local line
  line=$(grep -E '\(config, shape\) pairs of [0-9]+ configs in' "$log" | tail -n 1) ||
    die "$name: no summary line in $log"
  local pairs idle
  pairs=$(sed -E 's/.*: ([0-9]+) \(config, shape\) pairs.*/\1/' <<<"$line")
  idle=$(sed -E 's/.*idle ([0-9]+)% .*/\1/' <<<"$line")
  echo "$(python3 -c "print(round($end - $start, 1))") $pairs $idle"
}

# The winner as one mpgemm-run process re-ranks it: its batches and cuBLAS's in balanced rounds (each one first,
# last and in the middle equally often) after a second of untimed rounds that brings the clock to where sustained
# load holds it (mpgemm-run --rerank 1; batches enqueued call by call, as the tuning runs time them). The re-rank
# is recorded, so each process gets its own copy of the database: the tuned one keeps its own winner, and neither
# process sees the other's re-rank. Prints "config ms ratio_to_cublas".
winner_ms() {
  local source="$1" size="$2" space="$3" db="$out/aa_$4.db" f
  rm -f "$db" "$db-wal" "$db-shm"
  for f in "" -wal; do [ ! -e "$source$f" ] || cp "$source$f" "$db$f"; done
  "$bin/mpgemm-run" --db "$db" --rerank 1 --rounds "${MPGEMM_BENCH_AA_ROUNDS:-20}" --no-cublaslt --space "$space" \
    --M "$size" --N "$size" --K "$size" --format csv \
    --cubin-cache "${MPGEMM_BENCH_CACHE:-$out}/$aa_part.cubins" 2>>"$out/aa.log" | tee -a "$out/aa.csv" |
    python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(sys.stdin)
        if r.get("status") == "ok" and r.get("median_ms") and r.get("ratio_to_cublas")]
print(rows[0]["config"], rows[0]["median_ms"], rows[0]["ratio_to_cublas"]) if rows else print("")'
}

report="$out/tune_bench.md"
{
  echo "| space | run | pairs | seconds | pairs/s | device idle | target | verdict |"
  echo "|---|---|--:|--:|--:|--:|---|---|"
} >"$report"
for part in "${parts[@]}"; do
  case "$part" in
    sm86) space=configs/sm86.json ;;
    hopper) space="$hopper" ;;
  esac
  db="$out/$part.db" cache="${MPGEMM_BENCH_CACHE:-$out}/$part.cubins"
  rm -rf "$db" "$db-claims" "$cache" "$out/${part}_warm.db" "$out/${part}_warm.db-claims"
  read -r cold_s cold_pairs cold_idle < <(tune "${part}_cold" "$space" "$db" "$cache")
  warm_s=0 warm_pairs=0 warm_idle=0
  if [ "${MPGEMM_BENCH_WARM:-1}" != 0 ]; then
    new_shapes "$space" "$out/${part}_warm.json"
    read -r warm_s warm_pairs warm_idle < <(tune "${part}_warm" "$out/${part}_warm.json" "$out/${part}_warm.db" "$cache")
  fi
  verdicts=$(python3 - "$part" "$cold_s" "$cold_pairs" "$cold_idle" "$warm_s" "$warm_pairs" "$warm_idle" <<'PY'
import sys
part, cs, cp, ci, ws, wp, wi = sys.argv[1], *map(float, sys.argv[2:])
crate, wrate = cp / cs, (wp / ws if ws > 0 else 0)
speed_ok = cp < 3000 or cs <= 300
print(f"| {part} | cold | {cp:.0f} | {cs:.1f} | {crate:.1f} | {ci:.0f}% | "
      f"{'<= 300 s, idle < 20%' if cp >= 3000 else 'idle < 20%'} | "
      f"{'PASS' if speed_ok and ci < 20 else 'MISS'} |")
if wp > 0:
    print(f"| {part} | warm (cached cubins, new shapes) | {wp:.0f} | {ws:.1f} | {wrate:.1f} | {wi:.0f}% | "
          f">= 10x cold's pairs/s ({wrate / crate:.1f}x) | {'PASS' if wrate >= 10 * crate else 'MISS'} |")
PY
)
  echo "$verdicts" >>"$report"
done

# A/A: the Hopper (else sm86) winner at the middle shape, timed by two separate processes.
aa_part="${parts[-1]}"
aa_space=$([ "$aa_part" = hopper ] && echo "$hopper" || echo configs/sm86.json)
aa_size=$(python3 -c "import json,sys; s=json.load(open('$aa_space'))['shapes']; print(s[len(s)//2]['M'])")
rm -f "$out/aa.csv"
read -r a_name a a_ratio < <(winner_ms "$out/$aa_part.db" "$aa_size" "$aa_space" 1) || true
read -r b_name b b_ratio < <(winner_ms "$out/$aa_part.db" "$aa_size" "$aa_space" 2) || true
# A failed A/A still shows the tuning runs' rows before it names the failure.
aa_die() {
  cat "$report"
  die "A/A: $*"
}
[ -n "${a_ratio:-}" ] && [ -n "${b_ratio:-}" ] || aa_die "mpgemm-run gave no time or no ratio to cuBLAS (log: $out/aa.log)"
[ "$a_name" = "$b_name" ] || aa_die "the two processes re-ranked different configs ($a_name, $b_name)"
# Judged on the winner's own time, as the issue asks; its ratio to cuBLAS, timed in the same rounds, is printed
# beside it (a power-capped clock moves both).
python3 - "$aa_part" "$aa_size" "$a_name" "$a" "$a_ratio" "$b" "$b_ratio" >>"$report" <<'PY'
import sys
part, size, name = sys.argv[1:4]
a, ra, b, rb = map(float, sys.argv[4:])
d = b / a - 1
print(f"| {part} | A/A at {size}^3, `{name}` re-ranked with cuBLAS in balanced rounds: {a:.4f} ms ({ra:.3f}x "
      f"cuBLAS), then {b:.4f} ms ({rb:.3f}x); ratio {100 * (rb / ra - 1):+.2f}% | | | | | "
      f"within +-1% ({100 * d:+.2f}%) | {'PASS' if abs(d) <= 0.01 else 'MISS'} |")
PY
cat "$report"
