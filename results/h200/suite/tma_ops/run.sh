#!/usr/bin/env bash
# On the H200 (device call, carry build/tl): the TMA intake probe, output under $OUT.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../../.."
out="${OUT:-/tmp/tma_ops}"
mkdir -p "$out"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt"
build/tl/tma_ops 15 20 > "$out/tma_ops.txt" 2>&1
