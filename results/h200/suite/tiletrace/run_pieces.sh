#!/usr/bin/env bash
# On the H200 (device call, carry build-dev): run 3 of the tile trace, with each tma epilogue piece's steps stamped
# too (`MPGEMM_TT_PIECES=1 build.sh ...`, binaries copied to build-dev/tt/): plain then stamped, twice each.
# Logs under $OUT/tiletrace_pieces, tarred.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../../.."
o="${OUT:-/tmp/tt}" && w="$o/tiletrace_pieces" && mkdir -p "$w"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > "$w/gpu.txt"
for round in 1 2; do
  build-dev/tt/tiletrace_plain 15 20 1.0 - > "$w/plain_$round.txt" 2>&1
  build-dev/tt/tiletrace_stamped 15 20 1.0 "$w/stamped_$round.csv" > "$w/stamped_$round.txt" 2>&1
done
tar cJf "$o/tiletrace_pieces.tar.xz" -C "$o" tiletrace_pieces
cat "$w"/stamped_*.txt | grep -v "^4096"
