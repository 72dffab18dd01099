#!/usr/bin/env bash
# On the H200 (device call, carry build-dev): the register store-behind A/B. before = main's mpgemm-tune and
# mpgemm-worker (build-dev/bins.tar.xz, unpacked by prep.sh to build/bin); after = the same built with
# reg_behind.patch (build-dev/rb/). Each tunes the same ten configs (only.txt: six the patch changes, four it does
# not) at four shapes with graph-replayed batches, no screen, no re-rank, fresh database, in turns, twice.
# Logs and databases under $OUT/reg_behind, tarred.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../../.."
bash build-dev/prep.sh
o="${OUT:-/tmp/reg_behind}" && w="$o/reg_behind" && mkdir -p "$w"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > "$w/gpu.txt"
only="$(cat results/h200/suite/reg_behind/only.txt)"
shapes=4096x4096x256,8192x8192x1024,2048x2048x2048,1024x1024x1024
for round in 1 2; do
  for build in before after; do
    bin=build/bin
    [ "$build" = after ] && bin=build-dev/rb
    timeout 240 "$bin/mpgemm-tune" configs/sm90a_suite.json --shapes "$shapes" --only "$only" --graphs --no-screen \
      --rerank 0 --no-cublaslt --runs 10 --db "$w/${build}_$round.db" > "$w/${build}_$round.log" 2>&1
    echo "exit $?" >> "$w/${build}_$round.log"
  done
done
for f in "$w"/*.db; do
  echo "== $(basename "$f")"
  build/bin/mpgemm-query "$f" measurements 2>/dev/null | awk 'NR<=2 || /wgmma/' | cut -c1-200 | head -60
done > "$w/summary.txt"
rm -f "$w"/*.db-shm "$w"/*.db-wal; rm -rf "$w"/*.db.cubins
tar cJf "$o/reg_behind.tar.xz" -C "$o" reg_behind
cat "$w/summary.txt" | head -120
