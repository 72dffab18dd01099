#!/usr/bin/env bash
# Device side, shared by the A/B probes that use build.sh's binaries (next_unit/, tma_rounds/): the before and after
# builds copied to build-dev/nu/ timed in turns, twice each: the ten v23 winners (timeline, 0.5 s of settling) and
# 4096x4096x256's four variants (tiletrace, 1 s), into DIR/{timeline,tiletrace}_{before,after}_{1,2}.txt.
# Usage: results/h200/suite/next_unit/ab_rounds.sh DIR
set -uo pipefail
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
w="$1"
cd "$(dirname "${BASH_SOURCE[0]}")/../../../.."
mkdir -p "$w"
for round in 1 2; do
  for build in before after; do
    build-dev/nu/timeline_$build 15 20 0.5 - > "$w/timeline_${build}_$round.txt" 2>&1
    build-dev/nu/tiletrace_$build 15 20 1.0 - > "$w/tiletrace_${build}_$round.txt" 2>&1
  done
done
