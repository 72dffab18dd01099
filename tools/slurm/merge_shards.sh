#!/usr/bin/env bash
# The job after the array of tools/slurm/submit.sh: merges the N shard databases into OUTDIR/merged.db and
# re-ranks each shape's K fastest on a GPU (MPGEMM_RERANK, default 5; 0 skips; MPGEMM_RERANK_ARGS: more
# mpgemm-run options for it, e.g. "--rounds 20 --rerank-within 0.10", split by tools/split_args.sh, which it finds
# through MPGEMM_TOOLS (submit.sh sets it) or beside this script), so the winners are crowned over the whole
# space, never per shard. Every shard must have finished (its run recorded as finished), or nothing is merged.
#
#   merge_shards.sh OUTDIR N
#
# Merging is idempotent: running this again (or after one shard was re-run) gives the same database.
#SBATCH --job-name=mpgemm-merge
set -euo pipefail

die() { echo "merge_shards.sh: $*" >&2; exit 2; }
[[ $# -eq 2 ]] || die "usage: merge_shards.sh OUTDIR N"
outdir=$1 shards=$2
[[ $shards =~ ^[1-9][0-9]*$ ]] || die "N must be a positive whole number, got '$shards'"
bin=${MPGEMM_BIN:?MPGEMM_BIN is not set (submit.sh sets it)}
rerank=${MPGEMM_RERANK:-5}
[[ $rerank =~ ^[0-9]+$ ]] || die "MPGEMM_RERANK must be a whole number, got '$rerank'"
# mpgemm-run's re-rank options, e.g. --rounds 20, split by tools/split_args.sh. Under Slurm this script runs from a
# copy in the spool, so submit.sh names the helper's folder (MPGEMM_TOOLS); run in place, it is found beside this.
# Without re-rank options the helper is not needed.
rerank_args=()
if [[ $rerank != 0 && -n ${MPGEMM_RERANK_ARGS:-} ]]; then
  tools=${MPGEMM_TOOLS:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
  # shellcheck source=SCRIPTDIR/../split_args.sh
  source "$tools/split_args.sh" 2>/dev/null ||
    die "no $tools/split_args.sh to split MPGEMM_RERANK_ARGS (set MPGEMM_TOOLS to mpgemm's tools folder)"
  split_args rerank_args MPGEMM_RERANK_ARGS || die "MPGEMM_RERANK_ARGS does not split into words (above)"
fi

# Every shard must have finished: a database exists from a shard's first second on, so one that is still
# running, was killed or failed would be merged as if its slice were all there is.
inputs=() unfinished=()
for ((i = 1; i <= shards; ++i)); do
  db="$outdir/shard-$i-of-$shards.db"
  [[ -f $db ]] || { unfinished+=("$i (no database)"); continue; }
  done_runs=$("$bin/mpgemm-query" "$db" --format csv --sql \
    "SELECT count(*) FROM runs WHERE shard = '$i/$shards' AND status = 'finished'" | tail -n 1)
  if [[ $done_runs == 0 ]]; then
    last=$("$bin/mpgemm-query" "$db" --format csv --sql \
      "SELECT status FROM runs WHERE shard = '$i/$shards' ORDER BY id DESC LIMIT 1" | tail -n +2)
    unfinished+=("$i (${last:-no run of shard $i/$shards})")
    continue
  fi
  inputs+=("$db")
done
if (( ${#unfinished[@]} > 0 )); then
  indexes=$(printf '%s\n' "${unfinished[@]}" | cut -d' ' -f1 | paste -sd, -)
  die "shard(s) not finished: ${unfinished[*]}; nothing merged. If they failed: $outdir/resubmit.sh $indexes;" \
    "if they are still running, run this merge again after them"
fi
merged="$outdir/merged.db"
"$bin/mpgemm-query" merge "$merged" "${inputs[@]}"

if [[ $rerank == 0 ]]; then
  echo "re-rank skipped (MPGEMM_RERANK=0): mpgemm-run $merged --rerank K --M .. --N .. --K .. crowns the winners"
  exit 0
fi
# Every shape the shards measured, from the merged database: one re-rank each. None is a failure: the shards
# verified nothing (a compile-only pass on nodes without a GPU, say), so there are no winners to crown.
launcher=()
if command -v "${SRUN:-srun}" >/dev/null 2>&1; then launcher=("${SRUN:-srun}" --ntasks=1); fi
shapes=$("$bin/mpgemm-query" "$merged" best_per_shape --format csv | tail -n +2 | cut -d, -f1-3 | sort -u)
if [[ -z $shapes ]]; then
  echo "merge_shards.sh: $merged holds no verified measurement, so there is nothing to re-rank: did the shards" \
    "run compile-only (no GPU on their nodes)? Give the tune --gpus all to make that an error." >&2
  exit 1
fi
while IFS=, read -r m n k; do
  echo "re-rank of ${m}x${n}x${k}"
  "${launcher[@]}" "$bin/mpgemm-run" --db "$merged" --rerank "$rerank" ${rerank_args[@]+"${rerank_args[@]}"} \
    --M "$m" --N "$n" --K "$k" </dev/null
done <<<"$shapes"
