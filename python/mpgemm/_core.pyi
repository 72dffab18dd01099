# Type stubs of the extension (src/python/core_module.cpp), written by nanobind.stubgen from a built module:
# `python -m nanobind.stubgen -m mpgemm._core -o python/mpgemm/_core.pyi`, then cuda_include_dirs made generic.
"""
libmpgemm's bindings (import mpgemm, not this module: mpgemm.Library is the documented API).
"""

from typing import Annotated

from numpy.typing import NDArray


cuda_include_dirs: str

__version__: str

class GemmError(RuntimeError):
    """
    Every failure of libmpgemm. `code` is the CUDA / driver / cuBLAS status that caused it (0 when none did).
    """

class OpenFailed(GemmError):
    """The database or exported file cannot be read."""

class NoDevice(GemmError):
    """No CUDA driver or device."""

class BadArgument(GemmError, ValueError):
    """
    A dimension, tensor, layout, dtype or option no kind accepts (also a ValueError).
    """

class NoTunedConfig(GemmError):
    """
    The plan chose the vendor path and allow_vendor is False, or the vendor does not compute the kind.
    """

class CompileFailed(GemmError):
    """
    A winner's cubin is missing and NVRTC could not build it (or allow_compile is False).
    """

class LoadFailed(GemmError):
    """The cubin does not load or fit on this device."""

class LaunchFailed(GemmError):
    """The launch was refused, or its arguments could not be built."""

class CublasFailed(GemmError):
    """cuBLAS refused the call."""

class CudaFailed(GemmError):
    """Another CUDA runtime or driver call failed."""

class Dispatch:
    """How a GEMM is (or would be) computed, and why."""

    @property
    def path(self) -> str:
        """
        'tuned' (the winner tuned at this shape), 'nearest' (the nearest tuned shape's winner) or 'cublas'
        """

    @property
    def problem(self) -> str:
        """the kind's name, e.g. 'mk_nk_bf16_bf16'"""

    @property
    def family(self) -> str:
        """the kernel family ('wgmma', 'wmma'); '' for cuBLAS"""

    @property
    def config(self) -> str:
        """the config's procedural name; 'cublasGemmEx' for cuBLAS"""

    @property
    def arch(self) -> str:
        """the compile target ('sm_90a'); '' for cuBLAS"""

    @property
    def tuned_m(self) -> int: ...

    @property
    def tuned_n(self) -> int: ...

    @property
    def tuned_k(self) -> int: ...

    @property
    def ratio_cublas(self) -> float:
        """the winner's speed / cuBLAS's at its tuned shape; 0: unknown"""

    @property
    def compiled(self) -> bool:
        """NVRTC compiled the winner's cubin when this shape was first used"""

    @property
    def reason(self) -> str:
        """one sentence"""

    def __repr__(self) -> str: ...

class Tuned:
    """One tuned (device, kind, shape) entry of the file and its winner."""

    @property
    def device(self) -> str: ...

    @property
    def problem(self) -> str: ...

    @property
    def m(self) -> int: ...

    @property
    def n(self) -> int: ...

    @property
    def k(self) -> int: ...

    @property
    def family(self) -> str: ...

    @property
    def config(self) -> str: ...

    @property
    def arch(self) -> str: ...

    @property
    def ratio_cublas(self) -> float: ...

    @property
    def from_rerank(self) -> bool: ...

    def __repr__(self) -> str: ...

class Library:
    """libmpgemm's Library (use mpgemm.Library)."""

    def __init__(self, path: str, min_ratio: float = 1.0, allow_vendor: bool = True, allow_compile: bool = True, cubin_cache: str = '') -> None: ...

    @property
    def path(self) -> str: ...

    @property
    def tuned_shapes(self) -> int: ...

    def tuned(self) -> list[Tuned]: ...

    def plan(self, problem: str, m: int, n: int, k: int) -> Dispatch: ...

    def plan_for(self, device: str, problem: str, m: int, n: int, k: int) -> Dispatch: ...

    def preload(self, problem: str, m: int, n: int, k: int, stream: int = 0) -> Dispatch: ...

    def gemm(self, a: Annotated[NDArray, dict(writable=False)], b: Annotated[NDArray, dict(writable=False)], d: NDArray, stream: int, alpha: float = 1.0, beta: float = 0.0, c: Annotated[NDArray, dict(writable=False)] | None = None) -> None:
        """
        D = alpha * A.B + beta * C on `stream` (a cudaStream_t as an int); the kind is read from the tensors. Returns nothing (last_dispatch() says how it ran): no Python object is made per call
        """

    def gemm_ptr(self, problem: str, a: int, b: int, d: int, m: int, n: int, k: int, stream: int, alpha: float = 1.0, beta: float = 0.0, c: int = 0) -> None:
        """
        gemm() on raw device pointers of the named kind (no checks of layout); returns nothing
        """

def last_dispatch() -> Dispatch | None:
    """
    The calling thread's last successful gemm()'s dispatch (a copy); None before the first.
    """

def host_cost_us(lib: Library, problem: str, a: int, b: int, d: int, m: int, n: int, k: int, stream: int, calls: int = 64, batches: int = 100) -> list[float]:
    """
    Host microseconds per call of the C++ Library::gemm() on raw pointers, one figure per batch (a benchmark aid).
    """

def problem_kinds() -> list[str]: ...
