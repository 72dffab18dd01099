#!/usr/bin/env bash
# Installs what is missing (Debian packages), then configures and builds mpgemm into build/.
# Idempotent: on a machine that has everything it only runs the (incremental) build.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# clang-14 and libclang-rt-14-dev (libFuzzer) serve only the space loader's fuzz smoke test, which builds in its own
# folder (tools/fuzz.sh); the build here keeps the default compiler, g++.
packages=(cmake make g++ nlohmann-json3-dev libspdlog-dev libfmt-dev libsqlite3-dev libgtest-dev sqlite3 python3
          clang-14 libclang-rt-14-dev)
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
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$build" -j "$(nproc)"
