#!/usr/bin/env bash
# The default kind's A/B of two builds (issue 58: "the mission's problem unchanged"): the winners of a database
# (default: the suite's of record) tuned at their shapes by each build in turn, each shape's winners re-ranked
# together beside cuBLAS and cuBLASLt in the same rounds (--rerank with all of them, --graphs). Prints, per shape and
# config, each build's ratio to cuBLAS from its re-rank and their quotient (this build / the base), then the
# geometric mean of the quotient of each shape's own winner and the largest deviation.
#
# Usage: tools/winners_ab.sh BASE_BIN [WINNERS_DB]
#   BASE_BIN    the other build's binaries (mpgemm-tune, mpgemm-worker), e.g. of the commit before a kernel change
#   WINNERS_DB  whose `winners` view names the configs and shapes (default: results/suite/suite.db.xz, unpacked)
#   $OUT        output folder (default /tmp/mpgemm_results/winners_ab): ab_new.db, ab_base.db, their logs, ab.csv
#   $MPGEMM_BIN this build (default build/bin); $MPGEMM_AB_ORDER the runs in order (default "new base"; empty:
#               none, compare the databases already in $OUT)
# Exit status: 1 when a run failed or a winner has no ratio in either build; 0 otherwise (whether the deviations
# are within a target is printed, not the exit status).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 BASE_BIN [WINNERS_DB]" >&2; exit 2; }
base="$1"
bin="${MPGEMM_BIN:-$root/build/bin}"
out="${OUT:-${TMPDIR:-/tmp}/mpgemm_results/winners_ab}"
mkdir -p "$out" || exit 2
winners="${2:-}"
if [ -z "$winners" ]; then
  winners="$out/winners.db"
  xz -dkc "$root/results/suite/suite.db.xz" > "$winners" || exit 2
fi
for t in "$base/mpgemm-tune" "$bin/mpgemm-tune"; do [ -x "$t" ] || { echo "winners_ab: no $t" >&2; exit 2; }; done
cd "$root" || exit 2
read -r only shapes < <(python3 - "$winners" <<'PY'
import sqlite3, sys
rows = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True).execute(
    "SELECT DISTINCT config_name, M, N, K FROM winners ORDER BY M, N, K").fetchall()
print(",".join(sorted({"=" + r[0] for r in rows})), ",".join(sorted({f"{r[1]}x{r[2]}x{r[3]}" for r in rows})))
PY
)
[ -n "$only" ] || { echo "winners_ab: $winners has no winners" >&2; exit 1; }
status=0
for run in ${MPGEMM_AB_ORDER-new base}; do
  b="$bin"; [ "$run" = base ] && b="$base"
  rm -rf "$out/ab_$run.db" "$out/ab_$run.db"-* "$out/ab_$run.db.cubins"
  start=$(date +%s)
  "$b/mpgemm-tune" configs/sm90a_suite.json --shapes "$shapes" --only "$only" --graphs --rerank 64 \
    --db "$out/ab_$run.db" > "$out/ab_$run.log" 2>&1
  s=$?
  echo "$run ($b): mpgemm-tune exit $s in $(($(date +%s) - start)) s"
  [ $s -eq 0 ] || status=1
done
python3 - "$winners" "$out" <<'PY' || status=1
import math, sqlite3, sys
winners, out = sys.argv[1], sys.argv[2]
own = {(r[0], r[1], r[2]): r[3] for r in sqlite3.connect(f"file:{winners}?mode=ro", uri=True).execute(
    "SELECT DISTINCT M, N, K, config_name FROM winners")}
def ratios(db):
    q = """SELECT r.M, r.N, r.K, c.name, rc.ratio_to_cublas FROM rerank_configs rc JOIN reranks r ON r.id = rc.rerank_id
           JOIN configs c ON c.id = rc.config_id WHERE rc.status = 'ok' AND r.id IN
           (SELECT max(id) FROM reranks GROUP BY M, N, K)"""
    return {(m, n, k, name): x for m, n, k, name, x in sqlite3.connect(f"file:{db}?mode=ro", uri=True).execute(q)}
new, base = ratios(f"{out}/ab_new.db"), ratios(f"{out}/ab_base.db")
lines, own_q, all_q = ["M,N,K,config,winner_here,ratio_new,ratio_base,new_over_base"], [], []
for key in sorted(set(new) | set(base)):
    a, b = new.get(key), base.get(key)
    q = a / b if a and b else None
    is_own = own.get(key[:3]) == key[3]
    if q: (own_q if is_own else all_q).append(q)
    lines.append(",".join(map(str, [*key, int(is_own), a or "", b or "", f"{q:.4f}" if q else ""])))
open(f"{out}/ab.csv", "w").write("\n".join(lines) + "\n")
missing = [k for k, c in own.items() if not (new.get((*k, c)) and base.get((*k, c)))]
g = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
for l in lines: print(l)
every = own_q + all_q
print(f"each shape's own winner: {len(own_q)} of {len(own)}, geometric mean new/base {g(own_q):.4f}, "
      f"range {min(own_q, default=float('nan')):.4f}-{max(own_q, default=float('nan')):.4f}")
print(f"every (shape, config) pair: {len(every)}, geometric mean {g(every):.4f}, "
      f"largest deviation {max((abs(q - 1) for q in every), default=float('nan')):.2%} (target: within 1%)")
sys.exit(1 if missing else 0)
PY
exit $status
