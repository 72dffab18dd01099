"""mpgemm.Library: a results database's (or exported file's) winners, run on CUDA tensors.

Every call says which path ran and why (``plan``, ``last_dispatch``); nothing falls back silently and nothing is
copied: the problem kind is read from the operands' strides and dtypes (a ``.t()`` view of a packed tensor is the
``km`` / ``nk`` layout), and a layout or dtype no kind covers raises ``BadArgument`` saying why. Tensors are
torch tensors or any DLPack producer (CuPy, JAX, ...); the extension links no framework.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterable
from typing import Any

from . import _core
from .problem import Call, Problem, classify, packed_rows

Dispatch = _core.Dispatch
Tuned = _core.Tuned

ProblemLike = Problem | str

# The calling thread's library of its last call: libmpgemm's last dispatch points into it, so it stays alive.
_LAST = threading.local()


def _problem_name(problem: ProblemLike) -> str:
    return problem.name if isinstance(problem, Problem) else Problem.parse(problem).name


def _is_torch(t: Any) -> bool:
    return type(t).__module__.startswith("torch")


class Library:
    """The winners of an mpgemm results database or of a file ``mpgemm-export --format json`` wrote.

    Args:
        path: the database (SQLite, opened read-only) or exported JSON file; every winner in it is checked first.
        min_ratio: a winner runs only where its speed relative to the vendor library at its tuned shape is at least
            this (0: any tuned winner runs).
        allow_vendor: False makes a call the plan gives to the vendor library (cuBLAS) raise ``NoTunedConfig``.
        allow_compile: False makes a winner whose cubin is missing from the cache raise ``CompileFailed`` instead of
            compiling it with NVRTC.
        cubin_cache: the compiled kernels' folder (default: ``<path>.cubins`` beside the file).

    Raises:
        OpenFailed: the file cannot be read, or holds an unsound winner (the message names the entry).
        BadArgument: an option out of range.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        min_ratio: float = 1.0,
        allow_vendor: bool = True,
        allow_compile: bool = True,
        cubin_cache: str | os.PathLike[str] | None = None,
    ) -> None:
        self._lib = _core.Library(
            os.fspath(path), float(min_ratio), bool(allow_vendor), bool(allow_compile),
            os.fspath(cubin_cache) if cubin_cache is not None else "",
        )
        self.min_ratio = float(min_ratio)
        self.allow_vendor = bool(allow_vendor)
        self._torch_calls: dict[tuple[Any, ...], Call] = {}
        # (kind, M, N, K, device, stream) prepared by preload() or a call that ran: safe inside CUDA graph capture.
        self._ready: set[tuple[str, int, int, int, int | None, int]] = set()

    @property
    def path(self) -> str:
        """The file the winners were read from."""
        return self._lib.path

    def tuned(self) -> list[Tuned]:
        """Every tuned (device, kind, shape) entry of the file with its winner, in the file's order."""
        return self._lib.tuned()

    def __len__(self) -> int:
        return self._lib.tuned_shapes

    def __repr__(self) -> str:
        return f"mpgemm.Library({self.path!r}: {len(self)} tuned shape(s))"

    # --- planning -------------------------------------------------------------------------------------------------

    def plan(self, m: int, n: int, k: int, problem: ProblemLike = Problem(), *, device: str | None = None) -> Dispatch:
        """How a GEMM of kind ``problem`` and shape (m, n, k) would run, without compiling or running anything.

        With ``device=None`` the current CUDA device decides (``NoDevice`` without one); ``device="NVIDIA H200"``
        plans for a device the file has winners for, named as the file records it, with no GPU needed."""
        name = _problem_name(problem)
        if device is None:
            return self._lib.plan(name, m, n, k)
        return self._lib.plan_for(device, name, m, n, k)

    def plan_mm(self, a: Any, b: Any, *, out_dtype: Any = None, beta: float = 0.0, device: str | None = None) -> Dispatch:
        """The plan of ``mm(a, b, out_dtype=..., beta=...)``, read from the tensors (or anything with ``shape``,
        ``stride()`` or ``strides`` in elements, and ``dtype``): their kind and extents."""
        call = classify(
            tuple(a.shape), _strides(a), tuple(b.shape), _strides(b), a.dtype, b.dtype,
            out_dtype if out_dtype is not None else a.dtype, beta != 0,
        )
        if call.problem is None:
            raise _core.BadArgument(f"mpgemm: no problem kind computes this call: {call.why_not}")
        return self.plan(call.m, call.n, call.k, call.problem, device=device)

    def preload(self, items: Iterable[tuple[ProblemLike, int, int, int]], stream: Any = None) -> list[Dispatch]:
        """Decides, compiles (or reads from the cubin cache) and loads what each (kind, M, N, K) runs on the current
        device, and prepares ``stream`` (a torch.cuda.Stream, a cudaStream_t as an int, or None: torch's current
        stream when torch is loaded, else the legacy default stream), so that later calls compile and allocate
        nothing: call it before CUDA graph capture."""
        handle = _stream_handle(stream)
        device = _current_device_index()
        out = []
        for p, m, n, k in items:
            name = _problem_name(p)
            out.append(self._lib.preload(name, m, n, k, handle))
            self._ready.add((name, m, n, k, device, handle))
        return out

    # --- running --------------------------------------------------------------------------------------------------

    def mm(
        self,
        a: Any,
        b: Any,
        *,
        out: Any = None,
        out_dtype: Any = None,
        alpha: float = 1.0,
        beta: float = 0.0,
        c: Any = None,
        stream: Any = None,
    ) -> Any:
        """out = alpha * a @ b + beta * c, on CUDA tensors, enqueued on ``stream`` (default: torch's current stream
        of the tensors' device for torch tensors, else the legacy default stream). Returns ``out``.

        ``a`` is (M, K) and ``b`` (K, N), each packed row-major or a transposed view of a packed tensor (``x.t()``),
        both float16 or both bfloat16; ``out`` (M, N, packed row-major) is float32, float16 or bfloat16: given, or
        made with ``out_dtype`` (default: a's dtype) for torch tensors. ``beta != 0`` reads ``c`` (out's shape and
        dtype; it may be ``out``). Raises BadArgument for what no problem kind computes, never copies."""
        if _is_torch(a):
            return self._mm_torch(a, b, out, out_dtype, alpha, beta, c, stream)
        if out is None:
            raise _core.BadArgument("mpgemm: mm() of DLPack tensors that are not torch's needs out=")
        _LAST.library = self._lib
        self._lib.gemm(a, b, out, _stream_handle(stream, torch_default=False), float(alpha), float(beta), c)
        return out

    def _mm_torch(self, a: Any, b: Any, out: Any, out_dtype: Any, alpha: float, beta: float, c: Any, stream: Any) -> Any:
        import torch

        if out is None:
            dtype = out_dtype if out_dtype is not None else a.dtype
            out = torch.empty((a.shape[0], b.shape[1]), dtype=dtype, device=a.device)
        # The checks depend only on devices, extents, strides and dtypes: done once per combination (host cost).
        key = (a.device, b.device, out.device, a.shape, a.stride(), b.shape, b.stride(), out.shape, out.stride(),
               a.dtype, b.dtype, out.dtype, beta != 0)
        call = self._torch_calls.get(key)
        if call is None:
            call = _checked_torch_call(a, b, out, beta)
            if len(self._torch_calls) < 4096:
                self._torch_calls[key] = call
        c_ptr = 0
        if beta != 0:
            if c is None:
                raise _core.BadArgument("mpgemm: beta != 0 reads c: pass c (it may be out)")
            if c.shape != out.shape or c.dtype != out.dtype or c.device != out.device or not _packed_rows(c):
                raise _core.BadArgument("mpgemm: c must be a packed row-major tensor of out's shape, dtype and device")
            c_ptr = c.data_ptr()
        if call.m == 0 or call.n == 0:
            return out  # nothing to compute (torch's answer too)
        if call.k == 0:  # an empty sum: out = beta * c, as torch computes it
            return out.copy_(c).mul_(beta) if beta != 0 else out.zero_()
        index = a.device.index
        handle = _raw_stream(torch, index) if stream is None else _stream_handle(stream)
        ready = (call.problem.name, call.m, call.n, call.k, index, handle)
        if ready not in self._ready and torch.cuda.is_current_stream_capturing():
            raise _core.BadArgument(
                f"mpgemm: a CUDA graph is being captured and {call.problem.name} {call.m}x{call.n}x{call.k} was not "
                "prepared on this stream: call lib.preload([(kind, M, N, K)], stream) with the capture's stream "
                "before capturing (nothing may be compiled or allocated during capture)"
            )
        _LAST.library = self._lib  # keeps the library that made last_dispatch()'s answer alive
        if index == torch.cuda.current_device():
            self._lib.gemm_ptr(call.problem.name, a.data_ptr(), b.data_ptr(), out.data_ptr(), call.m, call.n, call.k,
                               handle, float(alpha), float(beta), c_ptr)
        else:
            with torch.cuda.device(index):
                self._lib.gemm_ptr(call.problem.name, a.data_ptr(), b.data_ptr(), out.data_ptr(), call.m, call.n,
                                   call.k, handle, float(alpha), float(beta), c_ptr)
        if ready not in self._ready and len(self._ready) < 4096:
            self._ready.add(ready)
        return out

    @staticmethod
    def last_dispatch() -> Dispatch | None:
        """How the calling thread's last successful ``mm`` (on any Library) was computed; None before the first."""
        if getattr(_LAST, "library", None) is None:
            return None
        return _core.last_dispatch()


def _checked_torch_call(a: Any, b: Any, out: Any, beta: float) -> Call:
    """The kind and extents of mm(a, b, out=out) on torch tensors, or BadArgument saying why no kind computes it."""
    call = classify(a.shape, a.stride(), b.shape, b.stride(), a.dtype, b.dtype, out.dtype, beta != 0)
    if call.problem is None:
        raise _core.BadArgument(f"mpgemm: no problem kind computes this call: {call.why_not}")
    if not (a.is_cuda and b.is_cuda and out.is_cuda):
        raise _core.BadArgument("mpgemm: mm() needs CUDA tensors")
    if not (a.device == b.device == out.device):
        raise _core.BadArgument(f"mpgemm: the tensors are on different devices ({a.device}, {b.device}, {out.device})")
    if tuple(out.shape) != (call.m, call.n):
        raise _core.BadArgument(f"mpgemm: out is {tuple(out.shape)}, not ({call.m}, {call.n})")
    if not _packed_rows(out):
        raise _core.BadArgument(f"mpgemm: out must be packed row-major; its strides are {out.stride()}")
    return call


def _packed_rows(t: Any) -> bool:
    """A 2-D tensor stored row-major and packed (problem.packed_rows)."""
    return packed_rows(*t.shape, *t.stride())


def _current_device_index() -> int | None:
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available() and torch.cuda.is_initialized():
        return int(torch.cuda.current_device())
    return None


def _raw_stream(torch: Any, index: int) -> int:
    """torch's current stream on device ``index`` as a cudaStream_t int (the cheap accessor Inductor uses, where
    this torch has it)."""
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return int(raw(index))
    return int(torch.cuda.current_stream(index).cuda_stream)


def _strides(t: Any) -> tuple[int, ...]:
    """Strides in elements: torch's ``stride()``, or NumPy/CuPy-style ``strides`` in bytes divided by the item size."""
    stride = getattr(t, "stride", None)
    if callable(stride):
        return tuple(stride())
    return tuple(s // t.itemsize for s in t.strides)


def _stream_handle(stream: Any, torch_default: bool = True) -> int:
    """A cudaStream_t as an int from a torch.cuda.Stream (``cuda_stream``), a CuPy stream (``ptr``), an int, or
    None: torch's current stream when torch is loaded and ``torch_default``, else 0 (the legacy default stream)."""
    if stream is None:
        torch = sys.modules.get("torch")
        if torch_default and torch is not None and torch.cuda.is_available() and torch.cuda.is_initialized():
            return int(torch.cuda.current_stream().cuda_stream)
        return 0
    for attribute in ("cuda_stream", "ptr"):
        if hasattr(stream, attribute):
            return int(getattr(stream, attribute))
    return int(stream)
