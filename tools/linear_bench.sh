#!/usr/bin/env bash
# A linear layer's GEMMs against the vendor (issue 58's benchmark): the suite space's leaders of another database
# (--leaders-from) tuned for one problem kind at a model's shapes, each shape's winner re-ranked side by side with
# cuBLAS (cublasGemmEx) and cuBLASLt (the best of its top 8) computing the same kind. Prints, per shape, the winner's
# ratio to each reference from the same rounds and to the faster of the two, then the geometric mean and the lowest
# shape over the shapes that have a winner. One device call holds it: sample the shapes (SHAPES) to fit.
#
# Usage: tools/linear_bench.sh LEADERS_DB [KIND] [SHAPES]
#   LEADERS_DB  a database whose winners lead (the suite's of record: xz -dkc results/suite/suite.db.xz > suite.db)
#   KIND        the problem kind (default mk_nk_bf16_bf16: y = x.W^T in BF16; mk_kn_bf16_bf16 is its dX,
#               km_kn_bf16_bf16 its dW, mk_nk_fp16_fp16 the FP16 forward)
#   SHAPES      a shape file or MxNxK,... (default configs/shapes/transformer.json)
#   $OUT        output folder (default /tmp/mpgemm_results/linear): KIND.db, KIND.log, KIND.csv
#   $MPGEMM_BIN the binaries (default build/bin); $MPGEMM_WORKER a worker to use instead of mpgemm-worker (tests)
#   $MPGEMM_LEADERS_KIND the kind whose leaders LEADERS_DB gives (--leaders-kind; default mk_kn_fp16_fp32, the
#               suite's: what led at the FP16 -> FP32 suite starts the search for the kind)
#   $MPGEMM_LINEAR_ARGS  more mpgemm-tune arguments (tools/split_args.sh quoting), e.g. "--leaders-within 0
#               --leaders-places 2": fewer leaders (29 configs instead of 104) so a device call holds more shapes
# Exit status: mpgemm-tune's, else mpgemm-query's, else 1 when no shape has a winner.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ $# -ge 1 ] && [ $# -le 3 ] || { echo "usage: $0 LEADERS_DB [KIND] [SHAPES]" >&2; exit 2; }
leaders="$1"
kind="${2:-mk_nk_bf16_bf16}"
shapes="${3:-configs/shapes/transformer.json}"
bin="${MPGEMM_BIN:-$root/build/bin}"
out="${OUT:-${TMPDIR:-/tmp}/mpgemm_results/linear}"
[ -r "$leaders" ] || { echo "linear_bench: cannot read $leaders" >&2; exit 2; }
case "$kind" in *[!a-z0-9_]*) echo "linear_bench: '$kind' is no problem kind name" >&2; exit 2 ;; esac
mkdir -p "$out" || exit 2
# shellcheck source=SCRIPTDIR/split_args.sh
source "$root/tools/split_args.sh"
extra=()
split_args extra MPGEMM_LINEAR_ARGS || exit 2
db="$out/$kind.db"
rm -rf "$db" "$db"-* "$db.cubins"
cd "$root" || exit 2

start=$(date +%s)
"$bin/mpgemm-tune" configs/sm90a_suite.json --problem "$kind" --shapes "$shapes" --leaders-from "$leaders" \
  --leaders-kind "${MPGEMM_LEADERS_KIND:-mk_kn_fp16_fp32}" \
  --rerank 5 --rerank-within 0.10 --graphs --db "$db" ${MPGEMM_WORKER:+--worker "$MPGEMM_WORKER"} "${extra[@]}" \
  > "$out/$kind.log" 2>&1
status=$?
echo "mpgemm-tune --problem $kind: exit $status in $(($(date +%s) - start)) s (log: $out/$kind.log)"
[ $status -eq 0 ] || { tail -n 20 "$out/$kind.log"; exit $status; }

# The winners view holds each shape's latest re-rank: both ratios from the same rounds (> 1: the winner is faster).
"$bin/mpgemm-query" "$db" --format csv --sql "SELECT M, N, K, config_name, ratio_to_cublas, ratio_to_cublaslt,
  min(ratio_to_cublas, coalesce(ratio_to_cublaslt, ratio_to_cublas)) AS ratio_to_faster
  FROM winners WHERE problem = '$kind' ORDER BY M, N, K" > "$out/$kind.csv" || exit $?
column -s, -t < "$out/$kind.csv"
awk -F, -v kind="$kind" 'NR > 1 && $7 > 0 { n++; s += log($7); if (!low || $7 < low) { low = $7; at = $1 "x" $2 "x" $3 } }
  END { if (!n) { print "no shape has a winner"; exit 1 }
        printf "%s: %d shapes, geometric mean %.3fx the faster reference, lowest %.3fx at %s\n", kind, n, exp(s / n), low, at }' \
  "$out/$kind.csv"
