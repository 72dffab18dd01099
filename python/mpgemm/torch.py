"""mpgemm in PyTorch: capture a model's GEMMs, route its linear layers through the tuned winners.

The loop is capture -> tune offline -> deploy::

    with mpgemm.torch.capture() as cap:          # any device, meta tensors included
        model(x_prefill); model(x_decode)        # every run adds to the counts: the range of M
    cap.save("captured.json")                    # mpgemm-tune SPACE --shapes captured.json ...
    lib = mpgemm.Library("results.db")
    handle = mpgemm.torch.patch(model, lib)      # nn.Linear -> torch.ops.mpgemm.linear
    model(x); print(handle.report()); handle.undo()

Two custom ops, ``torch.ops.mpgemm.linear(x, weight, bias=None, library=0)`` and ``torch.ops.mpgemm.mm(a, b,
library=0)``, run a GEMM on a library's tuned or nearest winner where its plan names one, and on torch's own
``F.linear`` / ``torch.mm`` where it names the vendor path or no library is active. Both have fake (meta)
implementations and autograd (dX and dW through ``mpgemm::mm``, so the backward kinds ``mk_kn`` and ``km_kn`` take
their winners too), pass ``torch.library.opcheck`` and compile with ``torch.compile(fullgraph=True)``.

``library=0`` is the library of the innermost ``use(lib)`` context; ``patch`` passes its own library's handle, so a
patched model runs on the library it was patched with. The active library is process-wide, not per thread: the
autograd engine runs backward passes on its own threads, which must see it too.

This module is the only one of mpgemm that imports torch; nothing here needs ``mpgemm._core`` at import (a library
is any object with ``plan`` and ``mm`` as ``mpgemm.Library`` has them).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode, _get_current_dispatch_mode

from .problem import Problem, classify
from .shapes import NotTunable, Shape, ShapeFile, merge

__all__ = [
    "LibraryLike",
    "linear",
    "mm",
    "use",
    "current_library",
    "capture",
    "Capture",
    "patch",
    "Patch",
]

# Paths of a plan that run mpgemm's own kernels; anything else ("cublas") runs torch's.
_MPGEMM_PATHS = frozenset(("tuned", "nearest"))


class LibraryLike(Protocol):
    """What this module needs of a library: ``mpgemm.Library`` has it; a test may pass any object that does."""

    def plan(self, m: int, n: int, k: int, problem: str = ...) -> Any: ...

    def mm(self, a: torch.Tensor, b: torch.Tensor, *, out: torch.Tensor | None = None, **kwargs: Any) -> Any: ...


# --------------------------------------------------------------------------------------------------------------
# Routes: a library, its cached plan decisions and its call counts.


@dataclasses.dataclass
class _Decision:
    """What one (op, extents, strides, dtype, device) runs on, decided once from the library's plan."""

    problem: Problem | None  # None: no kind expresses the call (torch runs it)
    path: str  # the plan's path ("tuned", "nearest", "cublas"), or "torch" when no plan was asked
    dispatch: Any  # the plan (None when none was asked)
    calls: int = 0  # how often it ran

    @property
    def uses_library(self) -> bool:
        return self.path in _MPGEMM_PATHS


class _Route:
    """One library as the ops see it: the plan decisions it made, cached, so a call costs a dict lookup."""

    def __init__(self, lib: LibraryLike, handle: int) -> None:
        self.lib = lib
        self.handle = handle
        self.decisions: dict[tuple[Any, ...], _Decision] = {}
        # The decision of the last call on this route: patch's per-layer counts read it right after the op returns.
        self.last: _Decision | None = None
        # Device types whose tensors lib.mm takes: mpgemm.Library takes CUDA tensors only; a fake may say "cpu".
        self.device_types: frozenset[str] = frozenset(getattr(lib, "device_types", ("cuda",)))

    def decide(
        self, key: tuple[Any, ...], call_problem: Problem | None, m: int, n: int, k: int, device: torch.device
    ) -> _Decision:
        """The decision for a call not seen before: the library's plan when a kind expresses the call."""
        if call_problem is None or device.type not in self.device_types or min(m, n, k) == 0:
            decision = _Decision(call_problem, "torch", None)
        else:
            dispatch = self._plan(m, n, k, call_problem, device)
            decision = _Decision(call_problem, str(dispatch.path), dispatch)
        self.decisions[key] = decision
        return decision

    def _plan(self, m: int, n: int, k: int, call_problem: Problem, device: torch.device) -> Any:
        """The library's plan on the tensors' device: a plan is for the current CUDA device, so a CUDA tensor's
        device is made current while it is asked."""
        if device.type == "cuda":
            with torch.cuda.device(device):
                return self.lib.plan(m, n, k, call_problem.name)
        return self.lib.plan(m, n, k, call_problem.name)


_ROUTES: list[_Route | None] = [None]  # handle -> route; handle 0 is "the current library"
_ROUTE_OF: dict[int, _Route] = {}  # id(lib) -> its route (libraries are long-lived; the route keeps lib alive)
_STACK: list[_Route] = []  # use() contexts, innermost last


def _route_for(lib: LibraryLike) -> _Route:
    route = _ROUTE_OF.get(id(lib))
    if route is None or route.lib is not lib:
        route = _Route(lib, len(_ROUTES))
        _ROUTES.append(route)
        _ROUTE_OF[id(lib)] = route
    return route


def _route(handle: int) -> _Route | None:
    if handle == 0:
        return _STACK[-1] if _STACK else None
    if not 0 < handle < len(_ROUTES):
        raise ValueError(f"library handle {handle} names no library (handles come from patch or use)")
    return _ROUTES[handle]


@contextlib.contextmanager
def use(lib: LibraryLike) -> Iterator[LibraryLike]:
    """Within the block, ``torch.ops.mpgemm.linear`` / ``mm`` called with ``library=0`` (the default) run on
    ``lib`` where its plan names a tuned or nearest winner. Contexts nest; the innermost wins. Process-wide."""
    _STACK.append(_route_for(lib))
    try:
        yield lib
    finally:
        _STACK.pop()


def current_library() -> LibraryLike | None:
    """The library of the innermost ``use`` context, or None."""
    return _STACK[-1].lib if _STACK else None


# --------------------------------------------------------------------------------------------------------------
# The ops.
#
# Host cost, measured on the CPU machine of this repository (2 shared cores, torch 2.11, a 2 x 8 x 8 BF16 linear with
# bias, median of 20000 calls, noisy: tests/python/test_torch_op.py::test_host_cost prints it again): F.linear
# ~12 us; the implementation below ~13 us with no library and ~26 us on a fake library whose plan says "tuned"
# (the decision is a dict lookup keyed by extents, strides, dtypes and device, ~1 us; the rest is new_empty, the
# weight.t() view, the fake's mm and the bias add); torch.ops.mpgemm.linear ~57 us with no library and ~78 us on
# the fake: the custom-op dispatcher (its Python autograd and dispatch layers) costs ~45-50 us here, most of the
# call. So a patched layer calls the implementation directly when nothing needs the op as an op: not compiling,
# no gradient wanted, a plain tensor and no dispatch mode or functorch transform active (those checks ~1 us).
# Autograd, torch.compile (where the op is one node and costs nothing per call beyond the graph's own), fake
# tensors and capture go through the op.


def _linear_impl(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, library: int) -> torch.Tensor:
    route = _route(library)
    n, k = weight.shape
    if route is None or x.dim() == 0:
        return F.linear(x, weight, bias)
    x2d = x if x.dim() == 2 else x.reshape(-1, k)
    m = x2d.shape[0]
    key = ("linear", m, n, k, x2d.stride(), weight.stride(), x.dtype, weight.dtype, x.device)
    decision = route.decisions.get(key)
    if decision is None:
        # B = weight.t(): (K, N) with weight's strides swapped; the output is x's type.
        call = classify((m, k), x2d.stride(), (k, n), weight.stride()[::-1], x.dtype, weight.dtype, x.dtype)
        decision = route.decide(key, call.problem, m, n, k, x.device)
    decision.calls += 1
    route.last = decision
    if not decision.uses_library:
        return F.linear(x, weight, bias)
    out = x2d.new_empty((m, n))  # torch's caching allocator, so nothing allocates outside it (CUDA graphs)
    route.lib.mm(x2d, weight.t(), out=out)
    if bias is not None:
        out.add_(bias)  # a fused bias epilogue comes with the epilogue issue
    return out.view(*x.shape[:-1], n)


@torch.library.custom_op("mpgemm::linear", mutates_args=())
def _linear_op(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None, library: int = 0
) -> torch.Tensor:
    """y = x . weight^T + bias, x (..., K), weight (N, K), y (..., N) in x's type: a library's winner where its plan
    names one (kind mk_nk_<t>_<t>), else torch's F.linear."""
    return _linear_impl(x, weight, bias, library)


@_linear_op.register_fake
def _linear_fake(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None, library: int = 0
) -> torch.Tensor:
    torch._check(
        x.shape[-1] == weight.shape[1], lambda: f"x has {x.shape[-1]} features but weight takes {weight.shape[1]}"
    )
    return x.new_empty((*x.shape[:-1], weight.shape[0]))


def _torch_mm(a: torch.Tensor, b: torch.Tensor, out_dtype: torch.dtype) -> torch.Tensor:
    """torch's mm with D of ``out_dtype``: in FP32 and rounded once where the types differ, as mpgemm does."""
    if a.dtype == b.dtype == out_dtype:
        return torch.mm(a, b)
    return torch.mm(a.float(), b.float()).to(out_dtype)


def _mm_impl(a: torch.Tensor, b: torch.Tensor, out_dtype: torch.dtype | None, library: int) -> torch.Tensor:
    route = _route(library)
    dtype = a.dtype if out_dtype is None else out_dtype
    if route is None or a.dim() != 2 or b.dim() != 2:
        return _torch_mm(a, b, dtype)
    (m, k), n = a.shape, b.shape[1]
    key = ("mm", m, n, k, a.stride(), b.stride(), a.dtype, b.dtype, dtype, a.device)
    decision = route.decisions.get(key)
    if decision is None:
        call = classify((m, k), a.stride(), tuple(b.shape), b.stride(), a.dtype, b.dtype, dtype)
        decision = route.decide(key, call.problem, m, n, k, a.device)
    decision.calls += 1
    route.last = decision
    if not decision.uses_library:
        return _torch_mm(a, b, dtype)
    out = a.new_empty((m, n), dtype=dtype)
    route.lib.mm(a, b, out=out)
    return out


@torch.library.custom_op("mpgemm::mm", mutates_args=())
def _mm_op(a: torch.Tensor, b: torch.Tensor, out_dtype: torch.dtype | None = None, library: int = 0) -> torch.Tensor:
    """D = A . B, A (M, K), B (K, N), D of ``out_dtype`` (default A's type), accumulated in FP32; the layouts are
    the strides' (a .t() view is km / nk): a library's winner where its plan names one, else torch.mm."""
    return _mm_impl(a, b, out_dtype, library)


@_mm_op.register_fake
def _mm_fake(a: torch.Tensor, b: torch.Tensor, out_dtype: torch.dtype | None = None, library: int = 0) -> torch.Tensor:
    torch._check(a.dim() == 2 and b.dim() == 2, lambda: "mpgemm::mm takes 2-D A and B")
    torch._check(a.shape[1] == b.shape[0], lambda: f"A is {tuple(a.shape)} but B is {tuple(b.shape)}")
    return a.new_empty((a.shape[0], b.shape[1]), dtype=a.dtype if out_dtype is None else out_dtype)


def _linear_setup(ctx: Any, inputs: tuple[Any, ...], output: torch.Tensor) -> None:
    x, weight, bias, library = inputs
    ctx.save_for_backward(x, weight)
    ctx.has_bias = bias is not None
    ctx.library = library


def _linear_backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
    """dX = dY . W (kind mk_kn), dW = dY^T . X (dY.t() is a km view: kind km_kn), dbias = the sum over tokens."""
    x, weight = ctx.saved_tensors
    n, k = weight.shape
    g2d = grad.reshape(-1, n)
    dx = dw = db = None
    if ctx.needs_input_grad[0]:
        dx = torch.ops.mpgemm.mm(g2d, weight, library=ctx.library).view(x.shape)
    if ctx.needs_input_grad[1]:
        dw = torch.ops.mpgemm.mm(g2d.t(), x.reshape(-1, k), library=ctx.library)
    if ctx.has_bias and ctx.needs_input_grad[2]:
        db = g2d.sum(0)
    return dx, dw, db, None


def _mm_setup(ctx: Any, inputs: tuple[Any, ...], output: torch.Tensor) -> None:
    a, b, _, library = inputs
    ctx.save_for_backward(a, b)
    ctx.library = library


def _mm_backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
    """dA = dD . B^T, dB = A^T . dD in A's and B's types, through mpgemm::mm (transposed views, no copies)."""
    a, b = ctx.saved_tensors
    da = db = None
    if ctx.needs_input_grad[0]:
        da = torch.ops.mpgemm.mm(grad, b.t(), out_dtype=a.dtype, library=ctx.library)
    if ctx.needs_input_grad[1]:
        db = torch.ops.mpgemm.mm(a.t(), grad, out_dtype=b.dtype, library=ctx.library)
    return da, db, None, None


_linear_op.register_autograd(_linear_backward, setup_context=_linear_setup)
_mm_op.register_autograd(_mm_backward, setup_context=_mm_setup)


def linear(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
    """``torch.ops.mpgemm.linear`` on the current library (``use``): F.linear's contract, mpgemm's winners."""
    return torch.ops.mpgemm.linear(x, weight, bias)


def mm(a: torch.Tensor, b: torch.Tensor, out_dtype: torch.dtype | None = None) -> torch.Tensor:
    """``torch.ops.mpgemm.mm`` on the current library (``use``): torch.mm's contract for 2-D A and B, D of
    ``out_dtype`` (default A's type; FP32 from FP16 is mpgemm's default kind)."""
    return torch.ops.mpgemm.mm(a, b, out_dtype=out_dtype)


# --------------------------------------------------------------------------------------------------------------
# Capture: the GEMMs a program runs, read at the dispatcher, where strides reveal the layouts (nn.Linear reaches
# it as addmm / mm with weight.t(), an nk view).

_aten = torch.ops.aten
# Ops whose GEMM one kind may express, by overload packet.
_MM = {_aten.mm}
_ADDMM = {_aten.addmm, _aten._addmm_activation}  # C, A, B
_BMM = {_aten.bmm}
_BADDBMM = {_aten.baddbmm, _aten.addbmm}  # C, A, B (batched)
_LINEAR = {_aten.linear}  # reaches the dispatcher only where a backend implements it whole
_MATMUL = {_aten.matmul}
# GEMM-like ops no kind expresses, with why.
_NEVER = {
    _aten.mv: "a matrix-vector product",
    _aten.addmv: "a matrix-vector product",
    _aten.dot: "a dot product",
    _aten.vdot: "a dot product",
    _aten._int_mm: "int8 inputs: mpgemm takes FP16 or BF16",
    _aten._scaled_mm: "FP8 (scaled) inputs: mpgemm takes FP16 or BF16",
}
_ATTENTION_WORDS = ("scaled_dot_product", "flash_attention", "efficient_attention", "cudnn_attention")


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _is_attention(name: str) -> bool:
    return any(word in name for word in _ATTENTION_WORDS)


def _rows_view(x: torch.Tensor) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """(shape, strides) of x (..., K) seen as (prod(...), K) without copying, or None when no 2-D view exists
    (the leading dims fold into one when each steps over the next whole; dims of extent 1 have any stride)."""
    if x.dim() < 2:
        return None
    k = x.shape[-1]
    lead = [(size, stride) for size, stride in zip(x.shape[:-1], x.stride()[:-1], strict=True) if size != 1]
    for (_, outer), (size, inner) in zip(lead, lead[1:]):
        if outer != inner * size:
            return None
    m = math.prod(x.shape[:-1])
    return (m, k), (lead[-1][1] if lead else k, x.stride(-1))


class Capture:
    """The GEMMs seen while it was active (``with cap:``; re-entering adds to the same counts): per (kind, M, N,
    K) how often, and what no kind expresses, with why. ``shapes()``, ``not_tunable()``, ``save(path)`` (a file
    ``mpgemm-tune --shapes`` takes), ``summary()`` (a table)."""

    def __init__(self, description: str = "") -> None:
        self.description = description
        self._calls: dict[tuple[Problem, int, int, int], int] = {}
        self._not_tunable: dict[tuple[str, str], int] = {}
        self._modes: list[_CaptureMode] = []

    def __enter__(self) -> Capture:
        mode = _CaptureMode(self)
        mode.__enter__()
        self._modes.append(mode)
        return self

    def __exit__(self, *exc: object) -> None:
        self._modes.pop().__exit__(*exc)

    # -- recording ------------------------------------------------------------------------------------------

    def add(self, op: str, m: int, n: int, k: int, problem: Problem | None, why_not: str = "", calls: int = 1) -> None:
        """Counts one call: a tunable GEMM of ``problem``, or (``problem`` None) one no kind expresses."""
        if problem is not None and min(m, n, k) < 1:
            problem, why_not = None, f"an empty GEMM ({m}x{n}x{k})"
        if problem is None:
            key = (op, why_not or f"{m}x{n}x{k}: no kind")
            self._not_tunable[key] = self._not_tunable.get(key, 0) + calls
        else:
            shape = (problem, m, n, k)
            self._calls[shape] = self._calls.get(shape, 0) + calls

    def _record(self, func: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> None:
        packet = func.overloadpacket
        name = f"{func.namespace}.{packet.__name__}"
        if packet in _MM or name == "mpgemm.mm":
            out_dtype = kwargs.get("out_dtype", args[2] if len(args) > 2 else None)  # aten.mm.dtype, mpgemm::mm
            self._record_mm(name, args[0], args[1], out_dtype=out_dtype if isinstance(out_dtype, torch.dtype) else None)
        elif packet in _ADDMM:
            beta = kwargs.get("beta", args[3] if len(args) > 3 else 1)
            self._record_mm(name, args[1], args[2], c=args[0], beta=beta)
        elif packet in _BMM or packet in _BADDBMM:
            a, b = (args[0], args[1]) if packet in _BMM else (args[1], args[2])
            self._record_batched(name, a, b)
        elif packet in _LINEAR or name == "mpgemm.linear":
            self._record_linear(name, args[0], args[1])
        elif packet in _MATMUL:
            self._record_matmul(name, args[0], args[1])
        elif packet in _NEVER:
            self.add(name, 0, 0, 0, None, f"{_NEVER[packet]} ({_shapes_text(args)})")
        elif _is_attention(packet.__name__):
            self.add(name, 0, 0, 0, None, f"attention: its GEMMs run inside one fused kernel ({_shapes_text(args)})")

    def _record_mm(
        self,
        op: str,
        a: torch.Tensor,
        b: torch.Tensor,
        c: Any = None,
        beta: Any = 0,
        out_dtype: torch.dtype | None = None,
    ) -> None:
        reads_c, why_c = _reads_c(a, b, c, beta)
        d_type = a.dtype if out_dtype is None else out_dtype
        call = classify(tuple(a.shape), a.stride(), tuple(b.shape), b.stride(), a.dtype, b.dtype, d_type, reads_c)
        self.add(op, call.m, call.n, call.k, None if why_c else call.problem, why_c or _why(call.why_not, a, b))

    def _record_batched(self, op: str, a: torch.Tensor, b: torch.Tensor) -> None:
        if a.dim() == 3 and b.dim() == 3 and a.shape[0] == 1 and b.shape[0] == 1:
            self._record_mm(op, a[0], b[0])  # one GEMM: a 2-D one
            return
        why = f"batched: {a.shape[0]} GEMMs of {a.shape[-2]}x{b.shape[-1]}x{a.shape[-1]} {_dtype_name(a.dtype)}"
        self.add(op, 0, 0, 0, None, f"{why}; mpgemm runs one 2-D GEMM per call")

    def _record_linear(self, op: str, x: torch.Tensor, weight: torch.Tensor) -> None:
        rows = _rows_view(x)
        if rows is None:
            self.add(op, 0, 0, 0, None, f"x {_shapes_text([x])} folds to no 2-D view")
            return
        (m, k), strides = rows
        n = weight.shape[0]
        call = classify((m, k), strides, (k, n), weight.stride()[::-1], x.dtype, weight.dtype, x.dtype)
        self.add(op, m, n, k, call.problem, _why(call.why_not, x, weight))

    def _record_matmul(self, op: str, a: torch.Tensor, b: torch.Tensor) -> None:
        if b.dim() == 2 and a.dim() >= 2:
            rows = _rows_view(a)
            if rows is not None:
                (m, k), strides = rows
                call = classify((m, k), strides, tuple(b.shape), b.stride(), a.dtype, b.dtype, a.dtype)
                self.add(op, call.m, call.n, call.k, call.problem, _why(call.why_not, a, b))
                return
        if a.dim() > 2 or b.dim() > 2:
            self._record_batched(op, a, b)
        else:
            self.add(op, 0, 0, 0, None, f"operands of {a.dim()} and {b.dim()} dimensions ({_shapes_text([a, b])})")

    # -- reading --------------------------------------------------------------------------------------------

    def shapes(self) -> list[Shape]:
        """Every tunable (kind, M, N, K) seen, once, with its calls, in first-seen order."""
        return merge(Shape(m, n, k, problem, calls) for (problem, m, n, k), calls in self._calls.items())

    def not_tunable(self) -> list[NotTunable]:
        """Every GEMM no kind expresses, grouped by (op, why), with its calls."""
        return [NotTunable(op, why, calls) for (op, why), calls in self._not_tunable.items()]

    def shape_file(self, description: str | None = None) -> ShapeFile:
        """The capture as a shape file (``mpgemm.shapes.ShapeFile``)."""
        text = self.description if description is None else description
        return ShapeFile(self.shapes(), text or "captured by mpgemm.torch.capture", self.not_tunable())

    def save(self, path: str | os.PathLike[str], description: str | None = None) -> None:
        """Writes the shape file ``mpgemm-tune --shapes PATH`` takes (whole or not at all)."""
        self.shape_file(description).save(path)

    @property
    def calls(self) -> int:
        """All GEMM calls seen, tunable or not."""
        return sum(self._calls.values()) + sum(self._not_tunable.values())

    def summary(self) -> str:
        """A table of the tunable GEMMs (kind, M, N, K, calls, GFLOP per call, share of the FLOPs) and the list of
        the rest with why."""
        rows = [("kind", "M", "N", "K", "calls", "GFLOP/call", "share")]
        flops = {s: 2.0 * s.m * s.n * s.k for s in self.shapes()}
        total = sum(f * s.calls for s, f in flops.items()) or 1.0
        for s, f in flops.items():
            rows.append(
                (
                    s.problem.name,
                    str(s.m),
                    str(s.n),
                    str(s.k),
                    str(s.calls),
                    f"{f / 1e9:.3f}",
                    f"{100 * f * s.calls / total:.1f}%",
                )
            )
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = [
            "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
            for r in rows
        ]
        tunable = sum(s.calls for s in flops)
        lines.insert(0, f"{tunable} tunable GEMM call(s) at {len(flops)} (kind, shape)(s):")
        rest = self.not_tunable()
        if rest:
            lines.append(f"{sum(n.calls for n in rest)} call(s) no kind expresses (not tuned):")
            lines.extend(f"  {n.calls:6d}  {n.op}: {n.why}" for n in rest)
        return "\n".join(lines)


def _reads_c(a: torch.Tensor, b: torch.Tensor, c: Any, beta: Any) -> tuple[bool, str]:
    """Whether addmm's C makes it a ``_beta`` kind, or why no kind expresses it. A bias (C broadcast over the rows)
    is no C: the kind is the GEMM's, the bias an epilogue (mpgemm.torch.linear adds it after)."""
    if c is None or beta == 0:
        return False, ""
    m, n = a.shape[0], b.shape[-1]
    if c.dim() == 1 or (c.dim() == 2 and (c.shape[0] == 1 or c.stride(0) == 0)):
        return False, ""
    if c.dim() == 2 and tuple(c.shape) == (m, n) and (c.stride(1) == 1 or n == 1) and (c.stride(0) == n or m == 1):
        if c.dtype != a.dtype:
            return False, f"C is {_dtype_name(c.dtype)} and A {_dtype_name(a.dtype)}: D and C are of one type"
        return True, ""
    return False, f"C {_shapes_text([c])} is neither a bias nor a packed row-major {m} x {n} matrix"


def _why(why_not: str, *tensors: torch.Tensor) -> str:
    return f"{why_not} ({_shapes_text(tensors)})" if why_not else ""


def _shapes_text(args: Sequence[Any]) -> str:
    parts = []
    for t in args:
        if isinstance(t, torch.Tensor):
            parts.append(f"{'x'.join(map(str, t.shape)) or 'scalar'} {_dtype_name(t.dtype)}")
    return ", ".join(parts)


class _CaptureMode(TorchDispatchMode):
    """The dispatch mode behind ``Capture``: counts, then runs the op as it would have run."""

    def __init__(self, capture: Capture) -> None:
        super().__init__()
        self.capture = capture

    def __torch_dispatch__(
        self, func: Any, types: Any, args: Sequence[Any] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        kwargs = kwargs or {}
        self.capture._record(func, args, kwargs)
        return func(*args, **kwargs)


def capture(description: str = "") -> Capture:
    """A ``Capture`` to use as ``with mpgemm.torch.capture() as cap: model(x)``; works on any device, meta
    tensors included (shapes and strides are all it reads)."""
    return Capture(description)


# --------------------------------------------------------------------------------------------------------------
# Patch: nn.Linear modules through torch.ops.mpgemm.linear.


def _direct_ok(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None) -> bool:
    """Whether the eager call may skip the dispatcher: plain tensors, no gradient wanted, no mode, no transform."""
    if type(x) is not torch.Tensor or _get_current_dispatch_mode() is not None:
        return False
    if torch.is_grad_enabled() and (
        x.requires_grad or weight.requires_grad or (bias is not None and bias.requires_grad)
    ):
        return False
    return not torch._C._are_functorch_transforms_active()


def _patched_forward(self: Any, x: torch.Tensor) -> torch.Tensor:
    """nn.Linear.forward through mpgemm (the class ``patch`` swaps in): the op under compile or autograd, the
    implementation itself in plain eager inference (no dispatcher: see "Host cost" above)."""
    handle: int = self._mpgemm_handle
    if torch.compiler.is_compiling():
        return torch.ops.mpgemm.linear(x, self.weight, self.bias, handle)
    route = _ROUTES[handle]
    assert route is not None
    route.last = None
    if _direct_ok(x, self.weight, self.bias):
        y = _linear_impl(x, self.weight, self.bias, handle)
    else:
        y = torch.ops.mpgemm.linear(x, self.weight, self.bias, handle)
    if route.last is not None:  # None: a fake or meta run, nothing ran
        self._mpgemm_patch._count(self, route.last)
    return y


_PATCHED_CLASSES: dict[type, type] = {}


def _patched_class(cls: type) -> type:
    """A subclass of ``cls`` whose forward is mpgemm's; isinstance(m, nn.Linear) stays true."""
    sub = _PATCHED_CLASSES.get(cls)
    if sub is None:
        sub = type(f"Mpgemm{cls.__name__}", (cls,), {"forward": _patched_forward, "__module__": __name__})
        _PATCHED_CLASSES[cls] = sub
    return sub


@dataclasses.dataclass
class _LayerCounts:
    features: tuple[int, int]  # (in, out)
    paths: dict[str, int] = dataclasses.field(default_factory=dict)  # path -> calls (eager calls only)
    last: _Decision | None = None


class Patch:
    """The handle ``patch`` returns: ``undo()`` restores the model, ``report()`` says which layer ran on which path
    how often. Also a context manager that undoes on exit."""

    def __init__(self, model: torch.nn.Module, lib: LibraryLike, verbose: bool = False) -> None:
        self.model = model
        self.route = _route_for(lib)
        self.verbose = verbose
        self.layers: dict[str, torch.nn.Module] = {}
        self._counts: dict[int, _LayerCounts] = {}
        self._names: dict[int, str] = {}
        for name, module in model.named_modules():
            if isinstance(module, torch.nn.Linear) and type(module).forward is torch.nn.Linear.forward:
                self._patch_one(name or "(model)", module)
            elif hasattr(module, "_mpgemm_patch"):
                raise ValueError(f"{name or '(model)'} is already patched: undo that patch first")
        if verbose:
            print(f"mpgemm: {len(self.layers)} linear layer(s) of {type(model).__name__} routed through mpgemm")

    def _patch_one(self, name: str, module: torch.nn.Module) -> None:
        module._mpgemm_patch = self  # type: ignore[assignment]
        module._mpgemm_handle = self.route.handle  # type: ignore[assignment]
        module.__class__ = _patched_class(type(module))
        self.layers[name] = module
        self._names[id(module)] = name
        self._counts[id(module)] = _LayerCounts((module.in_features, module.out_features))  # type: ignore[arg-type]

    def _count(self, module: torch.nn.Module, decision: _Decision) -> None:
        counts = self._counts[id(module)]
        counts.paths[decision.path] = counts.paths.get(decision.path, 0) + 1
        if self.verbose and decision is not counts.last:
            print(f"mpgemm: {self._names[id(module)]}: {_describe(decision)}")
        counts.last = decision

    def undo(self) -> None:
        """Gives every patched layer its own class back; a second undo does nothing."""
        for module in self.layers.values():
            module.__class__ = type(module).__mro__[1]
            del module._mpgemm_patch, module._mpgemm_handle
        self.layers = {}

    def counts(self) -> dict[str, dict[str, int]]:
        """Per patched layer, the eager calls per path ("tuned", "nearest", "cublas", "torch")."""
        return {self._names[key]: dict(c.paths) for key, c in self._counts.items()}

    def report(self) -> str:
        """A table: per layer its features and calls per path (eager calls; a compiled model's calls are in the
        per-shape table below it), then per (kind, M, N, K) the path, calls, config and ratio to cuBLAS."""
        lines = ["layer  in x out  calls per path"]
        for key, c in self._counts.items():
            paths = ", ".join(f"{p} {n}" for p, n in sorted(c.paths.items())) or "not run"
            lines.append(f"{self._names[key]}  {c.features[0]} x {c.features[1]}  {paths}")
        lines.append("per GEMM on this library (all callers, backward included):")
        for d_key, d in self.route.decisions.items():
            if d.calls:
                lines.append(f"  {d_key[0]} {d_key[1]}x{d_key[2]}x{d_key[3]}  {d.calls} call(s)  {_describe(d)}")
        return "\n".join(lines)

    def __enter__(self) -> Patch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.undo()


def _describe(d: _Decision) -> str:
    """One line on a decision: kind, path, and the plan's config and ratio where there is a plan."""
    kind = d.problem.name if d.problem else "no kind"
    if d.dispatch is None:
        return f"{kind} -> torch"
    plan = d.dispatch
    config = getattr(plan, "config", "") or ""
    ratio = getattr(plan, "ratio_cublas", 0.0) or 0.0
    extra = f" {config}" if config else ""
    extra += f" x{ratio:.2f} of cuBLAS" if ratio else ""
    reason = getattr(plan, "reason", "")
    return f"{kind} -> {d.path}{extra}" + (f" ({reason})" if reason and d.path not in _MPGEMM_PATHS else "")


def patch(model: torch.nn.Module, lib: LibraryLike, verbose: bool = False) -> Patch:
    """Routes ``model``'s nn.Linear layers (those whose forward is nn.Linear's) through ``torch.ops.mpgemm.linear``
    on ``lib``: each call runs on a tuned or nearest winner where lib's plan for its (kind, M, N, K) names one,
    else on torch's F.linear. Returns a ``Patch``: ``.undo()``, ``.report()``; ``verbose`` prints each layer's
    path when it changes."""
    return Patch(model, lib, verbose)
