# shellcheck shell=bash
# Sourced by the tools' scripts for their *_ARGS variables (more options for a command they run).
#   split_args ARRAY VAR
# splits the value of the variable VAR into the array ARRAY by xargs's quoting rules: single or double quotes keep a
# word together ("--comment='two words'" is one word, so is --db 'my results/x.db', and '' is an empty word), and
# nothing is evaluated (no globs, no $, no command substitution, no comments). Unlike a shell: a backslash outside
# quotes is dropped (write 'bm\d+' quoted), a backslash-escaped quote inside quotes is refused, and a quoted newline
# cannot be kept inside one word. A value that does not split (an unmatched quote) is refused: "VAR: xargs: ..." on
# standard error and status 1, ARRAY left empty. ARRAY may have any name but split_args_* (the function's own
# variables); needs bash 4.3 or later (namerefs).
split_args() {
  if ((BASH_VERSINFO[0] < 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] < 3))); then
    echo "split_args: needs bash 4.3 or later, this is $BASH_VERSION" >&2
    return 1
  fi
  local -n split_args_into=$1
  local split_args_name=$2
  local split_args_value=${!split_args_name:-}  # read before ARRAY is cleared: ARRAY and VAR may be one variable
  split_args_into=()
  local split_args_why
  # xargs parses the whole value before it runs anything, so `true` fails exactly when the value does not split.
  if ! split_args_why=$(xargs -r true <<<"$split_args_value" 2>&1); then
    echo "$split_args_name: $split_args_why" >&2
    return 1
  fi
  # One word per line, empty words too (a process substitution keeps a trailing empty line, $(...) would not).
  # shellcheck disable=SC2034 # a nameref: the caller's array
  mapfile -t split_args_into < <(xargs -r printf '%s\n' <<<"$split_args_value")
}
