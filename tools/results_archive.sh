#!/usr/bin/env bash
# Result files that are not records of current figures (results/README.md lists those), kept in git's history
# instead of the work tree. results/archived.tsv names each one: its path when it was here, bytes, sha256 and the
# commit that holds it; `restore` brings it back from there, byte for byte.
#
# Usage: tools/results_archive.sh archive FILE...    record committed, unchanged files in the index and `git rm`
#                                                     them (commit afterwards)
#        tools/results_archive.sh restore [PATH...]  write archived files back from their commits (every one when
#                                                     no PATH is given; a PATH may name a folder); each is checked
#                                                     against its sha256 and listed in .git/info/exclude, so it
#                                                     is not an untracked file that a device call would carry
#        tools/results_archive.sh list               the index: each file archived, present, or present but changed
# Paths are taken from the folder the command runs in, as git takes them. Exit: 0 done; 1 a file could not be
# archived or restored (the reason on stderr, the others still done); 2 bad usage.
set -uo pipefail
start="$PWD"
root="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." > /dev/null && pwd)"
cd -- "$root" || exit 2
index="results/archived.tsv"
header=$'path\tbytes\tsha256\tcommit'
tmp=""
trap '[ -z "$tmp" ] || rm -f -- "$tmp"' EXIT
trap 'exit 130' INT TERM

usage() { sed -n '6,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
bad_usage() {
  echo "results_archive: $*" >&2
  exit 2
}
sha_of() { sha256sum -- "$1" | cut -d' ' -f1; }
ensure_index() { [ -f "$index" ] || printf '%s\n' "$header" > "$index"; }
in_index() { tail -n +2 "$index" | cut -f1 | grep -qxF -- "$1"; }
exclude_pattern() { printf '/%s\n' "$(printf '%s' "$1" | sed 's/[][*?\\!#]/\\&/g')"; }

archive_one() {  # archive_one PATH (as given, from the starting folder): 0 archived, 1 refused
  local given="$1" path commit sha bytes
  path="$(git -C "$start" ls-files --full-name -- "$given" 2> /dev/null)"
  if [ -z "$path" ] && in_index "$(git -C "$start" rev-parse --show-prefix 2> /dev/null)${given#./}"; then
    echo "results_archive: $given is archived already (results_archive.sh list)" >&2
    return 1
  fi
  if [ -z "$path" ] || [ "$(printf '%s\n' "$path" | wc -l)" != 1 ] || ! (cd -- "$start" && [ -f "$given" ]); then
    echo "results_archive: $given is not one tracked file (a folder, or not committed yet?)" >&2
    return 1
  fi
  if ! git diff --quiet HEAD -- "$path"; then
    echo "results_archive: $path differs from HEAD (commit it first, so the index names a commit that holds it)" >&2
    return 1
  fi
  commit="$(git rev-parse HEAD)" sha="$(sha_of "$path")" bytes="$(stat -c %s -- "$path")"
  git rm -q -- "$path" || return 1
  P="$path" awk -F'\t' 'NR == 1 || $1 != ENVIRON["P"]' "$index" > "$index.tmp" && mv "$index.tmp" "$index"
  printf '%s\t%s\t%s\t%s\n' "$path" "$bytes" "$sha" "$commit" >> "$index"
  echo "archived $path ($bytes bytes, in ${commit:0:12})"
}

restore_one() {  # restore_one PATH SHA COMMIT: 0 restored or present, 1 failed
  local path="$1" sha="$2" commit="$3" exclude pattern
  exclude="$(git rev-parse --git-path info/exclude)"
  pattern="$(exclude_pattern "$path")"
  mkdir -p "$(dirname -- "$exclude")"
  grep -qxF -- "$pattern" "$exclude" 2> /dev/null || printf '%s\n' "$pattern" >> "$exclude"
  if [ -f "$path" ] && [ "$(sha_of "$path")" = "$sha" ]; then
    echo "present  $path"
    return 0
  fi
  if ! git cat-file -e "$commit:$path" 2> /dev/null; then
    echo "results_archive: $commit:$path is not in this clone (a shallow clone? git fetch --unshallow)" >&2
    return 1
  fi
  mkdir -p "$(dirname -- "$path")"
  tmp="$(mktemp "${TMPDIR:-/tmp}/results_archive.XXXXXX")" || return 1
  git cat-file blob "$commit:$path" > "$tmp" || return 1
  if [ "$(sha_of "$tmp")" != "$sha" ]; then
    echo "results_archive: $commit:$path does not match its sha256 in $index" >&2
    return 1
  fi
  mv -- "$tmp" "$path" && tmp=""
  echo "restored $path"
}

[ $# -ge 1 ] || {
  usage
  exit 2
}
command="$1"
shift
status=0
case "$command" in
  -h | --help) usage ;;
  archive)
    [ $# -ge 1 ] || bad_usage "archive needs at least one FILE"
    ensure_index
    for p in "$@"; do archive_one "$p" || status=1; done
    git add -- "$index" || status=1
    ;;
  restore)
    [ -f "$index" ] || bad_usage "no $index: nothing is archived"
    prefix="$(git -C "$start" rev-parse --show-prefix 2> /dev/null)"
    wanted=()
    for w in "$@"; do
      w="${w%/}"
      prefix_of_w="$prefix"
      if [[ "$w" == "$root"/* ]]; then
        w="${w#"$root"/}"
        prefix_of_w=""
      fi
      w="${w#./}"
      [ "$w" = . ] && w=""
      wanted+=("$prefix_of_w$w")
    done
    matched=0
    while IFS=$'\t' read -r path bytes sha commit; do
      if [ ${#wanted[@]} -gt 0 ]; then
        take=0
        for w in "${wanted[@]}"; do [[ -z "$w" || "$path" == "$w" || "$path" == "$w"/* ]] && take=1; done
        [ $take = 1 ] || continue
      fi
      matched=$((matched + 1))
      restore_one "$path" "$sha" "$commit" || status=1
    done < <(tail -n +2 "$index")
    if [ ${#wanted[@]} -gt 0 ] && [ $matched = 0 ]; then
      echo "results_archive: nothing in $index under $*" >&2
      status=1
    fi
    ;;
  list)
    [ -f "$index" ] || bad_usage "no $index: nothing is archived"
    while IFS=$'\t' read -r path bytes sha commit; do
      state=archived
      if [ -f "$path" ]; then
        state=present
        [ "$(sha_of "$path")" = "$sha" ] || state=changed
      fi
      printf '%-9s %10s  %s  %s\n' "$state" "$bytes" "${commit:0:12}" "$path"
    done < <(tail -n +2 "$index")
    ;;
  *) bad_usage "unknown command $command (archive, restore or list; see --help)" ;;
esac
exit $status
