#!/usr/bin/env bash
# The main job: build what tuning needs if needed (tools/bootstrap.sh --tools: mpgemm-tune, -worker, -query and
# -run, not the tests), then tune configs/sm86.json into results/results.db.
# Without a GPU mpgemm-tune runs the compile-only pass (every config compiled for sm_86, resources recorded).
# Extra arguments go to mpgemm-tune, e.g. tools/tune.sh --M 4096 --N 4096 --K 4096.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/tools/bootstrap.sh" --tools
cd "$root"
exec "$root/build/bin/mpgemm-tune" configs/sm86.json "$@"
