#!/usr/bin/env bash
# Tunes a space as a Slurm job array of N shards, then merges the shards' databases and re-ranks the result in a
# job that depends on them. mpgemm itself schedules nothing: Slurm does; each array task is one
# `mpgemm-tune --shard I/N` writing its own database (tools/slurm/tune_shard.sh), and the dependent job is
# `mpgemm-query merge` followed by `mpgemm-run --rerank` per shape (tools/slurm/merge_shards.sh).
#
#   tools/slurm/submit.sh SPACE.json OUTDIR N [mpgemm-tune options...]
#
#   SPACE.json   the search space (the exhaustive strategy: shards are fixed slices of it)
#   OUTDIR       a directory every node sees; gets shard-I-of-N.db (+ .cubins), logs/, and merged.db
#   N            how many shards (array tasks)
#   the rest     passed to every mpgemm-tune, e.g. --M 4096 --N 4096 --K 4096 --gpus all
#
# Environment:
#   MPGEMM_BIN      directory of the mpgemm binaries (default: build/bin of this checkout)
#   SBATCH_ARGS     options for both sbatch calls: partition, account, GPUs, time, e.g.
#                   "--partition=h200 --gres=gpu:1 --time=02:00:00"; split into words by xargs's quoting
#                   (tools/split_args.sh), so a value with spaces is quoted inside: "--comment='tune run 3'"
#   MPGEMM_RERANK   K of the final re-rank on the merged database (merge_shards.sh's default 5; 0 skips it: then
#                   the merge job needs no GPU)
#   MPGEMM_RERANK_ARGS  more mpgemm-run options for that re-rank, e.g. "--rounds 20 --rerank-within 0.10", split
#                   like SBATCH_ARGS and checked before anything is submitted (a
#                   shard does not re-rank, so the tune's --rerank-* options are refused)
#   SBATCH          the sbatch command (default sbatch; tests put a fake one here)
#   MPGEMM_ARRAY    which shards to submit (default 1-N; e.g. 3 or 2,5): OUTDIR/resubmit.sh sets it
#
# Before submitting anything it checks the space and the options as shard 1 would take them (mpgemm-tune
# --dry-run, no GPU needed), so a typo fails here and not in N array tasks. Prints the two job ids. The merge job
# runs only if every shard submitted succeeded (afterok), and Slurm cancels it when one fails
# (--kill-on-invalid-dep); OUTDIR/resubmit.sh I[,J...], written here, resubmits those shards with the same
# options (each resumes its database) and a new merge after them. That merge waits for the shards named only; it
# merges nothing unless every shard's run has finished (merge_shards.sh), so it fails, saying which, while
# others are still running: run merge_shards.sh again after them.
set -euo pipefail

die() { echo "submit.sh: $*" >&2; exit 2; }
[[ $# -ge 3 ]] || die "usage: submit.sh SPACE.json OUTDIR N [mpgemm-tune options...]"
space=$1 outdir=$2 shards=$3
shift 3
[[ -f $space ]] || die "no space file '$space'"
[[ $shards =~ ^[1-9][0-9]*$ ]] || die "N must be a positive whole number, got '$shards'"
[[ ${MPGEMM_RERANK:-5} =~ ^[0-9]+$ ]] || die "MPGEMM_RERANK must be a whole number, got '$MPGEMM_RERANK'"
array=${MPGEMM_ARRAY:-1-$shards}
[[ $array =~ ^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$ ]] || die "MPGEMM_ARRAY must be like 3, 2,5 or 1-4, got '$array'"
IFS=, read -r -a ranges <<<"$array"
for range in "${ranges[@]}"; do
  first=${range%-*} last=${range#*-}
  (( first >= 1 && last <= shards && first <= last )) || die "MPGEMM_ARRAY: '$range' is not within shards 1..$shards"
done

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tools=$(cd "$here/.." && pwd)  # the merge job, run from Slurm's spool, finds split_args.sh through MPGEMM_TOOLS
bin=${MPGEMM_BIN:-$(cd "$tools/.." && pwd)/build/bin}
[[ -x $bin/mpgemm-tune ]] || die "no mpgemm-tune in $bin (set MPGEMM_BIN)"
sbatch=${SBATCH:-sbatch}
# Quotes kept ("--comment='two words'" is one option), nothing evaluated: tools/split_args.sh.
# shellcheck source=SCRIPTDIR/../split_args.sh
source "$tools/split_args.sh" || die "no $tools/split_args.sh"
sbatch_args=()
split_args sbatch_args SBATCH_ARGS || die "nothing submitted: SBATCH_ARGS does not split into words (above)"
# The merge splits MPGEMM_RERANK_ARGS the same way, hours later: a quote that does not close is refused now.
split_args rerank_words MPGEMM_RERANK_ARGS ||
  die "nothing submitted: MPGEMM_RERANK_ARGS does not split into words (above)"

# The options as the shards will take them (tune_shard.sh refuses what it sets itself), checked before anything
# is written or submitted.
SLURM_ARRAY_TASK_ID=1 MPGEMM_BIN=$bin MPGEMM_DRY_RUN=1 "$here/tune_shard.sh" "$space" "$outdir" "$shards" "$@" ||
  die "nothing submitted: the space or the mpgemm-tune options do not check out (above)"
mkdir -p "$outdir/logs"
outdir=$(cd "$outdir" && pwd)
space=$(cd "$(dirname "$space")" && pwd)/$(basename "$space")
# Resubmitting shards later takes the same space, options, binaries and re-rank settings.
{
  echo "#!/usr/bin/env bash"
  echo "# Written by tools/slurm/submit.sh: resubmits shards of this run (each resumes its database) and a merge"
  echo "# that waits for them (it merges only when every shard has finished)."
  echo "#   resubmit.sh I[,J,...]"
  echo "[[ \$# -eq 1 ]] || { echo 'usage: resubmit.sh I[,J,...]' >&2; exit 2; }"
  printf 'cd %q || exit 1  # where the run was submitted: relative paths among the options stay right\n' "$PWD"
  for var in SBATCH_ARGS MPGEMM_RERANK MPGEMM_RERANK_ARGS; do
    if [[ -n ${!var+set} ]]; then printf 'export %s=%q\n' "$var" "${!var}"; fi
  done
  printf 'MPGEMM_ARRAY="$1" MPGEMM_BIN=%q exec %q' "$bin" "$here/submit.sh"
  printf ' %q' "$space" "$outdir" "$shards" "$@"
  echo
} >"$outdir/resubmit.sh"
chmod +x "$outdir/resubmit.sh"

# --export=ALL carries this shell's environment (MPGEMM_RERANK, MPGEMM_RERANK_ARGS) to the jobs.
tune_job=$("$sbatch" --parsable "${sbatch_args[@]}" --job-name=mpgemm-tune --array="$array" \
  --output="$outdir/logs/tune-%A_%a.out" \
  --export="ALL,MPGEMM_BIN=$bin,MPGEMM_DRY_RUN=0" "$here/tune_shard.sh" "$space" "$outdir" "$shards" "$@")
tune_job=${tune_job%%;*}  # --parsable prints "id" or "id;cluster"
merge_job=$("$sbatch" --parsable "${sbatch_args[@]}" --job-name=mpgemm-merge --dependency="afterok:$tune_job" \
  --kill-on-invalid-dep=yes \
  --output="$outdir/logs/merge-%j.out" \
  --export="ALL,MPGEMM_BIN=$bin,MPGEMM_TOOLS=$tools" "$here/merge_shards.sh" "$outdir" "$shards")
merge_job=${merge_job%%;*}
echo "tune array: job $tune_job (shards $array of $shards, logs in $outdir/logs)"
echo "merge: job $merge_job (after those shards succeed; result in $outdir/merged.db)"
echo "a shard that fails: $outdir/resubmit.sh I (the same options, then a new merge)"
