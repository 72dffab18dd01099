"""mpgemm: GEMM kernels tuned for your GPU and your shapes, from Python.

    import mpgemm, torch
    lib = mpgemm.Library("results/results.db")        # what mpgemm-tune found (or an mpgemm-export file)
    y = lib.mm(x, w.t())                              # x (M, K), w (N, K), BF16: the kind mk_nk_bf16_bf16
    print(lib.last_dispatch())                        # tuned / nearest / cublas, which config, and why

``mpgemm.torch`` adds a PyTorch op (``torch.ops.mpgemm.linear``), ``capture()`` of a model's GEMMs into a shapes
file for ``mpgemm-tune --shapes`` and ``patch()`` to run a model's linear layers on the winners. ``environment()``
says where the CUDA pieces mpgemm needs at run time are found. docs/python.md has the whole picture.
"""

from __future__ import annotations

from ._cuda import Environment, environment
from .problem import Problem, classify
from .shapes import ShapeFile

from . import _cuda as _environment


def _import_core():  # type: ignore[no-untyped-def]
    """The extension, loading cuBLAS/NVRTC from the nvidia wheels first when the loader does not find them."""
    import importlib.util
    import os

    if importlib.util.find_spec(f"{__name__}._core") is None:
        raise ImportError(
            f"the extension mpgemm._core is not built beside {os.path.dirname(__file__)}: `pip install .`, or "
            "tools/bootstrap.sh and PYTHONPATH=build/python (docs/python.md)"
        )
    try:
        from . import _core as core
    except ImportError as error:
        if ".so" not in str(error) or not _environment.preload_wheel_libraries():
            raise
        from . import _core as core
    _environment.use_wheel_headers(core.cuda_include_dirs)
    return core


try:
    _core = _import_core()
except ImportError as _error:  # the package's Python files without the built extension, or no CUDA libraries
    _core = None  # type: ignore[assignment]
    _core_error: ImportError | None = _error
else:
    _core_error = None

if _core is not None:
    from ._core import (
        BadArgument,
        CompileFailed,
        CublasFailed,
        CudaFailed,
        GemmError,
        LaunchFailed,
        LoadFailed,
        NoDevice,
        NoTunedConfig,
        OpenFailed,
    )
    from ._library import Dispatch, Library, Tuned

    __version__: str = _core.__version__
else:
    __version__ = "unknown"

_CORE_NAMES = frozenset(
    ("BadArgument", "CompileFailed", "CublasFailed", "CudaFailed", "Dispatch", "GemmError", "LaunchFailed",
     "Library", "LoadFailed", "NoDevice", "NoTunedConfig", "OpenFailed", "Tuned")
)
_TORCH_NAMES = frozenset(("capture", "patch", "use"))


def __getattr__(name: str) -> object:
    """``mpgemm.capture``, ``mpgemm.patch`` and ``mpgemm.use`` are mpgemm.torch's, imported on first use (so that
    ``import mpgemm`` needs no torch); the extension's names say why they are missing when it did not load."""
    if name in _TORCH_NAMES:
        from . import torch as torch_module

        return getattr(torch_module, name)
    if name in _CORE_NAMES:
        raise ImportError(
            f"mpgemm.{name} needs the extension mpgemm._core, which did not load: {_core_error} "
            "(mpgemm.environment() says what is missing)"
        )
    raise AttributeError(f"module 'mpgemm' has no attribute {name!r}")


__all__ = [
    "BadArgument",
    "CompileFailed",
    "CublasFailed",
    "CudaFailed",
    "Environment",
    "Dispatch",
    "GemmError",
    "LaunchFailed",
    "Library",
    "LoadFailed",
    "NoDevice",
    "NoTunedConfig",
    "OpenFailed",
    "Problem",
    "ShapeFile",
    "Tuned",
    "capture",
    "classify",
    "environment",
    "patch",
    "use",
]
