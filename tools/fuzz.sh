#!/usr/bin/env bash
# Fuzzes the search-space loader with libFuzzer (Debian's clang-14 and libclang-rt-14-dev).
#   tools/fuzz.sh [--merge] [SECONDS] [libFuzzer flags...]
# Builds space_fuzz with clang in its own folder (MPGEMM_FUZZ_BUILD_DIR, default build/fuzz-build; the main build
# keeps its compiler), then fuzzes for SECONDS (default 60) from a copy of tests/fuzz/corpus, with the tokens of
# tests/fuzz/space.dict. An input that crashes, hangs or gets a malformed error ends the run with a nonzero
# status and is saved as <folder>/artifacts/crash-* (or timeout-*, oom-*). With --merge, the inputs the run
# found that add coverage then join tests/fuzz/corpus.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
merge=0
if [ "${1:-}" = "--merge" ]; then merge=1; shift; fi
seconds="${1:-60}"
[ $# -gt 0 ] && shift
build="${MPGEMM_FUZZ_BUILD_DIR:-${MPGEMM_BUILD_DIR:-$root/build}/fuzz-build}"
if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMPGEMM_FUZZ=ON \
    -DMPGEMM_BUILD_TESTS=ON >/dev/null
fi
cmake --build "$build" --target space_fuzz -j "$(nproc)"
rm -rf "$build/corpus"
mkdir -p "$build/corpus" "$build/artifacts"
cp "$root"/tests/fuzz/corpus/* "$build/corpus/"
# -timeout is per input (s): the largest space the loader accepts takes about 6 s under the sanitizers.
"$build/bin/space_fuzz" "$build/corpus" -dict="$root/tests/fuzz/space.dict" -max_total_time="$seconds" \
  -timeout=30 -rss_limit_mb=2048 -artifact_prefix="$build/artifacts/" -print_final_stats=1 "$@"
if ((merge)); then
  # Edges only (no hit counts) and set cover keep the corpus small: a few hundred files.
  "$build/bin/space_fuzz" -set_cover_merge=1 -use_counters=0 "$root/tests/fuzz/corpus" "$build/corpus"
fi
