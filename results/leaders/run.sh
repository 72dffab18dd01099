#!/usr/bin/env bash
# Tuning speed on the leaders workflow of issue 44 (tools/leaders_bench.sh): the suite space's leaders of the suite's
# database at five transformer shapes, re-ranked, cold then with every cubin cached; configs/sm86.json at 2048^3,
# cold then cached. With MPGEMM_BASE_BIN (an earlier build's mpgemm-tune, -worker and -query, e.g. of 24f7d83), the
# A/B of the cached runs instead, back to back on the same card.
# From a clean clone, after tools/bootstrap.sh --tools: bash results/leaders/run.sh   (about 1 minute; the A/B about
# 4 minutes). Outputs in $OUT (default /tmp/mpgemm_results/leaders); binaries from $MPGEMM_BIN (default build/bin).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/../.."
export OUT="${OUT:-${TMPDIR:-/tmp}/mpgemm_results/leaders}" MPGEMM_BIN="${MPGEMM_BIN:-build/bin}"
mkdir -p "$OUT/leaders"  # the bench clears $OUT/*.db: the leaders' database stays a folder down
xz -dkc results/suite/suite.db.xz > "$OUT/leaders/suite.db"
exec tools/leaders_bench.sh "$OUT/leaders/suite.db"
