#!/usr/bin/env bash
# One array task of tools/slurm/submit.sh: shard $SLURM_ARRAY_TASK_ID of N of the space, into its own database.
#
#   tune_shard.sh SPACE.json OUTDIR N [mpgemm-tune options...]   (inside a Slurm job array, tasks 1..N)
#
# Resumable: run again (OUTDIR/resubmit.sh I), it measures only what its database lacks. A shard does not re-rank
# (it sees a slice of each shape): merge_shards.sh re-ranks the merged database. The shard, its database and the
# re-rank are this script's to set: options that would change them are refused, not silently overridden.
# MPGEMM_DRY_RUN=1 checks the space and options (mpgemm-tune --dry-run) and runs nothing; submit.sh does that
# before it submits.
#SBATCH --job-name=mpgemm-tune
set -euo pipefail

die() { echo "tune_shard.sh: $*" >&2; exit 2; }
[[ $# -ge 3 ]] || die "usage: tune_shard.sh SPACE.json OUTDIR N [mpgemm-tune options...]"
space=$1 outdir=$2 shards=$3
shift 3
for arg in "$@"; do
  case $arg in
    --db | --db=* | --shard | --shard=* | --rerank | --rerank=*)
      die "${arg%%=*} is set by the script for each shard (its own database, shard I/N, no re-rank: merge_shards.sh re-ranks)" ;;
    --rerank-* | --tie-band | --tie-band=*)
      die "${arg%%=*}: a shard does not re-rank; the merge does, with mpgemm-run: put its options in MPGEMM_RERANK_ARGS (e.g. \"--rounds 20 --rerank-within 0.10\")" ;;
  esac
done
task=${SLURM_ARRAY_TASK_ID:-}
[[ $task =~ ^[0-9]+$ ]] || die "SLURM_ARRAY_TASK_ID is not set: submit with sbatch --array=1-$shards"
(( task >= 1 && task <= shards )) || die "array task $task is outside 1..$shards (submit with --array=1-$shards)"
bin=${MPGEMM_BIN:?MPGEMM_BIN is not set (submit.sh sets it)}

db="$outdir/shard-$task-of-$shards.db"
tune=("$bin/mpgemm-tune" "$space" --shard "$task/$shards" --db "$db" --rerank 0 "$@")
if [[ ${MPGEMM_DRY_RUN:-0} == 1 ]]; then exec "${tune[@]}" --dry-run; fi
echo "shard $task/$shards of $space on $(hostname) into $db"
# srun makes the tune a job step (accounting, signals on time-out); without Slurm's srun the tune runs directly.
launcher=()
if command -v "${SRUN:-srun}" >/dev/null 2>&1; then launcher=("${SRUN:-srun}" --ntasks=1); fi
exec "${launcher[@]}" "${tune[@]}"
