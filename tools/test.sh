#!/usr/bin/env bash
# Every test: build if needed, then CTest runs the unit, nvrtc and gpu labels. Without a GPU the gpu tests are
# reported as skipped ("Not Run (Skipped)"), never as passed. Extra arguments go to ctest (e.g. -L unit).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/tools/bootstrap.sh"
cd "$root/build"
exec ctest --output-on-failure -j "$(nproc)" "$@"
