#!/usr/bin/env bash
# On the H200 (device call, carry build-dev: build.sh's two binaries copied to build-dev/cpa/): the ten v23 winners
# with TMA loads (before) and with cp.async loads (after), in turns, three rounds, plus K sweeps at 512 x 512 and
# 1024 x 1024. Logs under $OUT/cp_async, tarred.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../../.."
o="${OUT:-/tmp/cp_async}" && w="$o/cp_async" && mkdir -p "$w"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > "$w/gpu.txt"
for round in 1 2 3; do
  for build in before after; do
    timeout 120 build-dev/cpa/timeline_$build 15 20 0.5 - 512x512:64,128,256,1024 1024x1024:64,256,2048 \
      > "$w/timeline_${build}_$round.txt" 2>&1
    echo "exit $?" >> "$w/timeline_${build}_$round.txt"
  done
done
tar cJf "$o/cp_async.tar.xz" -C "$o" cp_async
for f in "$w"/timeline_*.txt; do echo "== $(basename "$f")"; grep -E "per launch|^exit" "$f"; done
