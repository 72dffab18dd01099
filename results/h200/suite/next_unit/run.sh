#!/usr/bin/env bash
# On the H200 (device call, carry build-dev): the next-unit A/B (build.sh's four binaries, copied to build-dev/nu/),
# before and after in turns, twice each: the ten v23 winners (timeline) and 4096x4096x256's four variants
# (tiletrace, plain). Logs under $OUT/next_unit, tarred. The change is not on main: build.sh's "after" needs
# `git apply results/h200/suite/next_unit/next_unit.patch` first.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../../.."
o="${OUT:-/tmp/next_unit}" && w="$o/next_unit" && mkdir -p "$w"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > "$w/gpu.txt"
results/h200/suite/next_unit/ab_rounds.sh "$w"
tar cJf "$o/next_unit.tar.xz" -C "$o" next_unit
for f in "$w"/*.txt; do echo "== $(basename "$f")"; grep -E "per launch|x[0-9]+ +max" "$f" | sed 's/max |ours - cuBLAS| [0-9.e+-]*; //'; done
