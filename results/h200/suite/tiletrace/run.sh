#!/usr/bin/env bash
# On the H200 (device call, carry build-dev): the tile trace probe's two builds (build.sh, copied to build-dev/tt/)
# at 4096x4096x256, plain then stamped, twice each in turns; logs and the stamped runs' CSV under $OUT/tiletrace.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../../.."
out="${OUT:-/tmp/tiletrace}/tiletrace" && mkdir -p "$out"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > "$out/gpu.txt"
for round in 1 2; do
  build-dev/tt/tiletrace_plain 15 20 1.0 - > "$out/plain_$round.txt" 2>&1
  build-dev/tt/tiletrace_stamped 15 20 1.0 "$out/stamped_$round.csv" > "$out/stamped_$round.txt" 2>&1
done
cat "$out"/plain_*.txt "$out"/stamped_*.txt
