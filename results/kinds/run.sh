#!/usr/bin/env bash
# Issue 58's benchmarks of the linear layer's GEMMs (tools/linear_bench.sh), over ten of the 48 shapes of
# configs/shapes/transformer.json (M = 16 to 8192, every layer; one device call holds them) with the suite's 29 leading
# configs (--leaders-within 0 --leaders-places 2), each shape's winner re-ranked beside cuBLAS and cuBLASLt computing
# the same kind; with MPGEMM_BASE_BIN (an earlier build's binaries, e.g. of d1fac12), first the default kind's A/B of
# the suite's ten winners (tools/winners_ab.sh).
#   KINDS  the kinds, in order (default mk_nk_bf16_bf16). For a layer y = x.W^T of forward GEMM (M, N, K):
#          mk_nk_*  the forward (M, N, K); mk_kn_*  dX = dY.W, the GEMM (M, K, N); km_kn_*  dW = dY^T.x, the GEMM
#          (N, K, M), at the layers with M >= 128
# From a clean clone, after tools/bootstrap.sh: bash results/kinds/run.sh (about 3 minutes a kind on an H100).
# Outputs in $OUT (default /tmp/mpgemm_results/kinds); binaries from $MPGEMM_BIN (default build/bin).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/../.." || exit 2
out="${OUT:-${TMPDIR:-/tmp}/mpgemm_results/kinds}"
export MPGEMM_BIN="${MPGEMM_BIN:-build/bin}"
mkdir -p "$out/leaders" || exit 2
xz -dkc results/suite/suite.db.xz > "$out/leaders/suite.db" || exit 2
status=0
if [ -n "${MPGEMM_BASE_BIN:-}" ]; then
  OUT="$out/ab" tools/winners_ab.sh "$MPGEMM_BASE_BIN" "$out/leaders/suite.db" > "$out/winners_ab.txt" 2>&1 || status=1
  tail -n 3 "$out/winners_ab.txt"
fi
forward="16x12288x4096,128x4096x11008,512x22016x4096,2048x4096x4096,8192x12288x4096,16x57344x8192,128x8192x8192,512x10240x8192,2048x8192x28672,8192x57344x8192"
for kind in ${KINDS:-mk_nk_bf16_bf16}; do
  shapes=$(python3 - "$kind" "$forward" <<'PY'
import sys
kind, forward = sys.argv[1], [tuple(map(int, s.split("x"))) for s in sys.argv[2].split(",")]
pick = {"mk_nk": lambda m, n, k: (m, n, k), "mk_kn": lambda m, n, k: (m, k, n),
        "km_kn": lambda m, n, k: (n, k, m) if m >= 128 else None}[kind[:5]]
print(",".join("x".join(map(str, s)) for s in (pick(*f) for f in forward) if s))
PY
  ) || { echo "kinds: no layer shapes for $kind" >&2; status=1; continue; }
  OUT="$out" MPGEMM_LINEAR_ARGS="${MPGEMM_LINEAR_ARGS:---leaders-within 0 --leaders-places 2}" \
    tools/linear_bench.sh "$out/leaders/suite.db" "$kind" "$shapes" > "$out/linear_$kind.txt" 2>&1 || status=1
  tail -n 14 "$out/linear_$kind.txt"
done
exit $status
