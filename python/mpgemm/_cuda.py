"""Where the CUDA pieces libmpgemm needs at run time are found, and how the package finds them.

libmpgemm links cuBLAS, cuBLASLt and NVRTC (CUDA 13) and compiles a winner whose cubin is missing with NVRTC, which
needs the CUDA headers (cuda_fp16.h, ...). Each is looked for in the CUDA toolkit the package was built against
(/usr/local/cuda by default) and in the ``nvidia-*`` wheels PyTorch installs (site-packages/nvidia/cu13):
``environment()`` says which one is used, or what is missing and how to get it.
"""

from __future__ import annotations

import ctypes
import dataclasses
import os
import site
import sys
from pathlib import Path

# The shared libraries libmpgemm loads, by soname (CUDA 13).
LIBRARIES = ("libcublas.so.13", "libcublasLt.so.13", "libnvrtc.so.13")
_HEADER = "cuda_fp16.h"


def _site_dirs() -> list[Path]:
    dirs = [Path(p) for p in sys.path if p.endswith("site-packages")]
    try:
        dirs += [Path(p) for p in site.getsitepackages()]
    except AttributeError:  # a virtualenv's old site module
        pass
    seen: list[Path] = []
    for d in dirs:
        if d not in seen:
            seen.append(d)
    return seen


def wheel_dirs(sub: str) -> list[Path]:
    """``lib`` or ``include`` folders of the CUDA wheels PyPI's torch brings (nvidia/cu13, nvidia/<component>)."""
    out = []
    for root in _site_dirs():
        nvidia = root / "nvidia"
        if not nvidia.is_dir():
            continue
        out += [p for p in [nvidia / "cu13" / sub, *sorted(nvidia.glob(f"*/{sub}"))] if p.is_dir()]
    return list(dict.fromkeys(out))


def preload_wheel_libraries() -> list[str]:
    """Loads cuBLAS, cuBLASLt and NVRTC from the nvidia wheels (RTLD_GLOBAL) so that the extension finds them by
    soname where no toolkit is on the loader's path. Returns the files loaded."""
    loaded = []
    for soname in LIBRARIES:
        for d in wheel_dirs("lib"):
            candidate = d / soname
            if candidate.is_file():
                try:
                    ctypes.CDLL(str(candidate), mode=ctypes.RTLD_GLOBAL)
                except OSError:
                    continue
                loaded.append(str(candidate))
                break
    return loaded


def include_candidates(built_in: str = "") -> list[tuple[str, Path]]:
    """Where NVRTC's CUDA headers are looked for, in order, as (where from, folder)."""
    out: list[tuple[str, Path]] = []
    if os.environ.get("MPGEMM_CUDA_INCLUDE_DIR"):
        out.append(("$MPGEMM_CUDA_INCLUDE_DIR", Path(os.environ["MPGEMM_CUDA_INCLUDE_DIR"])))
    out += [("the toolkit mpgemm was built with", Path(p)) for p in built_in.split("|") if p]
    out.append(("/usr/local/cuda", Path("/usr/local/cuda/include")))
    out += [("the nvidia wheels", d) for d in wheel_dirs("include")]
    return out


def use_wheel_headers(built_in: str = "") -> Path | None:
    """Points NVRTC at the nvidia wheels' CUDA headers (MPGEMM_CUDA_INCLUDE_DIR, for this process) when neither the
    variable nor a toolkit provides them; returns that folder, or None when nothing changed."""
    candidates = include_candidates(built_in)
    first = next((c for c in candidates if (c[1] / _HEADER).is_file()), None)
    if first is None or first[0] != "the nvidia wheels":
        return None
    os.environ["MPGEMM_CUDA_INCLUDE_DIR"] = str(first[1])
    return first[1]


def _loaded(soname: str) -> str | None:
    """The file of a shared library this process has loaded, from /proc/self/maps."""
    stem = soname.split(".so")[0] + ".so"
    try:
        with open("/proc/self/maps", encoding="utf-8") as maps:
            for line in maps:
                path = line.rstrip("\n").split(" ")[-1]
                if Path(path).name.startswith(stem):
                    return path
    except OSError:
        pass
    return None


@dataclasses.dataclass
class Environment:
    """What ``environment()`` found: each piece's file or folder, or None, and one line of advice per problem."""

    extension: str | None
    libraries: dict[str, str | None]
    cuda_include: str | None
    include_from: str
    problems: list[str]

    def __str__(self) -> str:
        lines = [f"mpgemm extension: {self.extension or 'not built'}"]
        lines += [f"{name}: {path or 'not loaded'}" for name, path in self.libraries.items()]
        lines.append(f"CUDA headers for NVRTC: {self.cuda_include or 'not found'} ({self.include_from})")
        lines += [f"problem: {p}" for p in self.problems]
        return "\n".join(lines)

    @property
    def ok(self) -> bool:
        return not self.problems


def environment() -> Environment:
    """Where the extension, cuBLAS/cuBLASLt/NVRTC and the CUDA headers come from (print it: one line each)."""
    problems: list[str] = []
    extension = None
    built_in = ""
    try:
        from . import _core

        extension = _core.__file__
        built_in = getattr(_core, "cuda_include_dirs", "")
    except ImportError as error:
        problems.append(f"the extension mpgemm._core does not load: {error}")
    libraries = {soname: _loaded(soname) for soname in LIBRARIES}
    for soname, path in libraries.items():
        if extension and path is None:
            problems.append(f"{soname} is not loaded")
    found = next(((w, d) for w, d in include_candidates(built_in) if (d / _HEADER).is_file()), None)
    if found is None:
        problems.append(
            "no CUDA headers for NVRTC (cuda_fp16.h): winners whose cubins are not cached cannot be compiled; install "
            "the CUDA toolkit 13 or `pip install nvidia-cuda-runtime nvidia-cuda-nvrtc`, or set MPGEMM_CUDA_INCLUDE_DIR"
        )
    return Environment(extension, libraries, str(found[1]) if found else None, found[0] if found else "", problems)
