#!/usr/bin/env bash
# Fuzzes one of mpgemm's input readers with libFuzzer (Debian's clang-14 and libclang-rt-14-dev).
#   tools/fuzz.sh [--merge] [--target space|shapes|export] [SECONDS] [libFuzzer flags...]
# Targets (tests/fuzz/CMakeLists.txt): space (default) fuzzes the search-space loader from tests/fuzz/corpus,
# shapes the shape list readers from tests/fuzz/shapes_corpus, export the exported-file reader from
# tests/fuzz/export_corpus, each with the tokens of tests/fuzz/<target>.dict.
# Builds <target>_fuzz with clang in its own folder (MPGEMM_FUZZ_BUILD_DIR, default build/fuzz-build; the main
# build keeps its compiler), then fuzzes for SECONDS (default 60) from a copy of the target's corpus. An input that
# crashes, hangs or breaks the target's contract (tests/fuzz/<target>_check.hpp) ends the run with a nonzero status
# and is saved as <folder>/artifacts/<target>-crash-* (or -timeout-*, -oom-*). With --merge, the inputs the run
# found that add coverage then join the target's corpus.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
merge=0
target=space
while [ $# -gt 0 ]; do
  case "$1" in
    --merge) merge=1; shift ;;
    --target) target="${2:?--target needs space, shapes or export}"; shift 2 ;;
    *) break ;;
  esac
done
case "$target" in
  space) corpus="$root/tests/fuzz/corpus" ;;
  shapes | export) corpus="$root/tests/fuzz/${target}_corpus" ;;
  *) echo "fuzz.sh: unknown target '$target' (space, shapes or export)" >&2; exit 2 ;;
esac
seconds="${1:-60}"
[ $# -gt 0 ] && shift
build="${MPGEMM_FUZZ_BUILD_DIR:-${MPGEMM_BUILD_DIR:-$root/build}/fuzz-build}"
if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMPGEMM_FUZZ=ON \
    -DMPGEMM_BUILD_TESTS=ON >/dev/null
fi
cmake --build "$build" --target "${target}_fuzz" -j "$(nproc)"
work="$build/${target}_corpus"
rm -rf "$work"
mkdir -p "$work" "$build/artifacts"
cp "$corpus"/* "$work/"
# -timeout is per input (s): the largest space the loader accepts takes about 6 s under the sanitizers.
"$build/bin/${target}_fuzz" "$work" -dict="$root/tests/fuzz/${target}.dict" -max_total_time="$seconds" \
  -timeout=30 -rss_limit_mb=2048 -artifact_prefix="$build/artifacts/${target}-" -print_final_stats=1 "$@"
if ((merge)); then
  # Edges only (no hit counts) and set cover keep the corpus small: a few hundred files.
  "$build/bin/${target}_fuzz" -set_cover_merge=1 -use_counters=0 "$corpus" "$work"
fi
