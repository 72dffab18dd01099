#!/usr/bin/env bash
# One array task of tools/slurm/submit.sh: shard $SLURM_ARRAY_TASK_ID of N of the space, into its own database.
#
#   tune_shard.sh SPACE.json OUTDIR N [mpgemm-tune options...]   (inside a Slurm job array, tasks 1..N)
#
# Resumable: run again (sbatch --array=I), it measures only what its database lacks. A shard does not re-rank
# (it sees a slice of each shape): merge_shards.sh re-ranks the merged database.
#SBATCH --job-name=mpgemm-tune
set -euo pipefail

die() { echo "tune_shard.sh: $*" >&2; exit 2; }
[[ $# -ge 3 ]] || die "usage: tune_shard.sh SPACE.json OUTDIR N [mpgemm-tune options...]"
space=$1 outdir=$2 shards=$3
shift 3
task=${SLURM_ARRAY_TASK_ID:-}
[[ $task =~ ^[0-9]+$ ]] || die "SLURM_ARRAY_TASK_ID is not set: submit with sbatch --array=1-$shards"
(( task >= 1 && task <= shards )) || die "array task $task is outside 1..$shards (submit with --array=1-$shards)"
bin=${MPGEMM_BIN:?MPGEMM_BIN is not set (submit.sh sets it)}

db="$outdir/shard-$task-of-$shards.db"
echo "shard $task/$shards of $space on $(hostname) into $db"
# srun makes the tune a job step (accounting, signals on time-out); without Slurm's srun the tune runs directly.
launcher=()
if command -v "${SRUN:-srun}" >/dev/null 2>&1; then launcher=("${SRUN:-srun}" --ntasks=1); fi
exec "${launcher[@]}" "$bin/mpgemm-tune" "$space" --shard "$task/$shards" --db "$db" --rerank 0 "$@"
