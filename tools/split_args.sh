# shellcheck shell=bash
# Sourced by the tools' scripts for their *_ARGS variables (more options for a command they run).
#   split_args ARRAY VAR
# splits the value of the variable VAR into the array ARRAY as a shell splits words: quotes are kept together
# ("--comment='two words'" is one word, so is --db 'my results/x.db'), and nothing is evaluated (no globs, no $,
# no command substitution). An unmatched quote is refused: "VAR: xargs: unmatched single quote; ..." on standard
# error and status 1, before anything runs. A quoted newline cannot be kept inside one word. ARRAY may have any
# name but split_args_* (the function's own variables).
split_args() {
  local -n split_args_into=$1
  local split_args_name=$2 split_args_words split_args_err split_args_status=0
  split_args_into=()
  split_args_err=$(mktemp)
  split_args_words=$(xargs -r printf '%s\n' <<<"${!split_args_name:-}" 2>"$split_args_err") || split_args_status=$?
  if ((split_args_status != 0)); then
    echo "$split_args_name: $(cat "$split_args_err")" >&2
    rm -f "$split_args_err"
    return 1
  fi
  rm -f "$split_args_err"
  # shellcheck disable=SC2034 # a nameref: the caller's array
  [[ -z $split_args_words ]] || mapfile -t split_args_into <<<"$split_args_words"
}
