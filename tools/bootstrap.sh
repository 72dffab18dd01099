#!/usr/bin/env bash
# Installs what is missing (Debian packages), then configures and builds mpgemm into build/.
# Idempotent: on a machine that has everything it only runs the (incremental) build.
#   tools/bootstrap.sh           everything: the executables, the library and every test (tools/test.sh)
#   tools/bootstrap.sh --tools   what tuning needs (tools/tune.sh): the packages that build the executables, and
#                                mpgemm-tune, -worker, -query and -run only; a build folder configured here leaves
#                                the tests out (MPGEMM_BUILD_TESTS=OFF) until a plain bootstrap turns them on
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mode=all
case "${1:-}" in
  "") ;;
  --tools) mode=tools ;;
  *) echo "bootstrap: unknown argument $1 (--tools, or nothing)" >&2; exit 2 ;;
esac
# clang-14 and libclang-rt-14-dev (libFuzzer) serve only the space loader's fuzz smoke test, which builds in its own
# folder (tools/fuzz.sh); the build here keeps the default compiler, g++.
# python3-pip serves the cuobjdump install below when the toolkit has none. python3-matplotlib draws mpgemm-report's
# pictures (Debian's, for /usr/bin/python3: the launcher in build/bin looks there first).
# git: tools/results_archive.sh and its test read the archived results from git's history.
# python3-dev: the headers the Python extension (src/python) compiles against, for Debian's python3.
packages=(cmake make g++ nlohmann-json3-dev libspdlog-dev libfmt-dev libsqlite3-dev libgtest-dev sqlite3 python3
          python3-pip python3-dev python3-matplotlib clang-14 libclang-rt-14-dev git)
# The executables alone need the compiler, CMake and the libraries' headers (git: the build records its commit).
[ "$mode" = tools ] && packages=(cmake make g++ nlohmann-json3-dev libspdlog-dev libfmt-dev libsqlite3-dev git)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}" >&2
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "bootstrap: the CUDA toolkit (12.5 or newer: nvcc, NVRTC, cuBLAS, headers) is required and was not found." >&2
  echo "           Install it from NVIDIA's packages; mpgemm finds it with CMake's FindCUDAToolkit." >&2
  exit 1
fi
export PATH="/usr/local/cuda/bin:$PATH"
build="${MPGEMM_BUILD_DIR:-$root/build}"
# cuobjdump, and the nvdisasm it runs, for the tests that read a cubin's SASS: the toolkit's when it has both, else
# PyPI's nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm installed into the build folder. pip --target needs no venv
# and is not refused by a system Python that is externally managed (PEP 668); CMake looks there (tests/CMakeLists).
# A failed install only warns: the build goes on and the SASS tests fail, saying why.
cuda_tools="$build/cuda-tools"
reconfigure=0
if [ "$mode" = all ] && ! { command -v cuobjdump && command -v nvdisasm; } >/dev/null 2>&1 &&
  [ ! -x "$cuda_tools/nvidia/cu13/bin/cuobjdump" ]; then
  echo "bootstrap: installing cuobjdump and nvdisasm (PyPI) into $cuda_tools" >&2
  if python3 -m pip install --quiet --disable-pip-version-check --no-warn-script-location --root-user-action=ignore \
      --upgrade --target "$cuda_tools" "nvidia-cuda-cuobjdump==13.*" "nvidia-cuda-nvdisasm==13.*" >&2; then
    reconfigure=1
  else
    echo "bootstrap: could not install cuobjdump from PyPI; the SASS tests (ctest -R Sass) will fail" >&2
  fi
fi
# The Python package (src/python, python/mpgemm) builds with the python3 first on PATH: nanobind and pytest from PyPI,
# installed into build/python-deps (pip --target, as above) unless that Python has them; the tests put the folder on
# PYTHONPATH. A failed install stops here: CMake would refuse the build without nanobind.
py_deps="$build/python-deps"
python="$(python3 -c 'import sys; print(sys.executable)')"
if [ "$mode" = all ] && ! PYTHONPATH="$py_deps" "$python" -c "import nanobind, pytest" >/dev/null 2>&1; then
  echo "bootstrap: installing nanobind and pytest (PyPI) into $py_deps for $python" >&2
  "$python" -m pip install --quiet --disable-pip-version-check --no-warn-script-location --root-user-action=ignore \
    --upgrade --target "$py_deps" "nanobind>=2.4" "pytest>=7" >&2 ||
    { echo "bootstrap: could not install nanobind and pytest for $python from PyPI" >&2; exit 1; }
  reconfigure=1
fi
python_args=()
if [ "$mode" = all ]; then
  nanobind_dir="$(PYTHONPATH="$py_deps" "$python" -m nanobind --cmake_dir)"
  python_args=(-DMPGEMM_PYTHON=ON -DPython_EXECUTABLE="$python" -Dnanobind_DIR="$nanobind_dir")
  [ -f "$build/CMakeCache.txt" ] && ! grep -q '^MPGEMM_PYTHON:BOOL=ON$' "$build/CMakeCache.txt" && reconfigure=1
fi
# A fresh build takes about 1 GB (RelWithDebInfo, debug information split out and compressed; 2026-12-01). Too little
# free space shows late, as a link failing with "No space left on device"; say so before the build starts.
if [ ! -f "$build/CMakeCache.txt" ]; then
  where="$build"; [ -d "$where" ] || where="$(dirname "$build")"
  free_kib=$(df -Pk "$where" 2>/dev/null | awk 'NR == 2 { print $4 }' || true)
  if [[ "$free_kib" =~ ^[0-9]+$ ]] && [ "$free_kib" -lt $((2 * 1024 * 1024)) ]; then
    echo "bootstrap: warning: $((free_kib / 1024)) MiB free under $where; a fresh build takes about 1 GB," \
         "so it may fail with 'No space left on device'" >&2
  fi
fi
# --tools configures a new build folder without the tests; a plain bootstrap turns them on in a folder configured
# without them (the objects built so far are kept). --tools on a folder that has them leaves them configured.
tests=ON
[ "$mode" = tools ] && tests=OFF
if [ -f "$build/CMakeCache.txt" ] && grep -q '^MPGEMM_BUILD_TESTS:BOOL=OFF$' "$build/CMakeCache.txt"; then
  [ "$mode" = all ] && reconfigure=1
fi
if [ ! -f "$build/CMakeCache.txt" ] || [ "$reconfigure" -eq 1 ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMPGEMM_BUILD_TESTS="$tests" "${python_args[@]}" \
    >/dev/null
fi
if [ "$mode" = tools ]; then
  cmake --build "$build" -j "$(nproc)" --target mpgemm-tune mpgemm-worker mpgemm-query mpgemm-run
else
  cmake --build "$build" -j "$(nproc)"
fi
