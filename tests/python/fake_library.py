"""A stand-in for mpgemm.Library on the CPU, for the mpgemm.torch tests: its plan says what the test wants and
records each question, its mm records each call's operands and computes with torch.mm."""

from __future__ import annotations

import dataclasses
from typing import Any

import torch


@dataclasses.dataclass
class FakeDispatch:
    path: str
    problem: str
    config: str = "fake_config"
    ratio_cublas: float = 1.25
    reason: str = "the fake library's answer"


@dataclasses.dataclass
class MmCall:
    """One mm call as the library saw it: shapes, strides (elements), dtypes."""

    a_shape: tuple[int, ...]
    a_stride: tuple[int, ...]
    b_shape: tuple[int, ...]
    b_stride: tuple[int, ...]
    dtype: torch.dtype
    out_dtype: torch.dtype


class FakeLibrary:
    """``path`` is the plan's path for every shape, or a function of (problem, m, n, k) giving it."""

    device_types = ("cpu",)  # mpgemm.Library takes CUDA tensors only

    def __init__(self, path: Any = "tuned") -> None:
        self.path = path
        self.plans: list[tuple[str, int, int, int]] = []
        self.calls: list[MmCall] = []
        self.preloaded: list[tuple[str, int, int, int]] = []

    def plan(self, m: int, n: int, k: int, problem: str = "mk_kn_fp16_fp32", *, device: Any = None) -> FakeDispatch:
        self.plans.append((problem, m, n, k))
        path = self.path(problem, m, n, k) if callable(self.path) else self.path
        return FakeDispatch(path, problem)

    def preload(self, items: Any, stream: Any = None) -> list[FakeDispatch]:
        self.preloaded.extend((str(p), m, n, k) for p, m, n, k in items)
        return [self.plan(m, n, k, str(p)) for p, m, n, k in items]

    def mm(self, a: torch.Tensor, b: torch.Tensor, *, out: torch.Tensor | None = None, **_: Any) -> torch.Tensor:
        assert out is not None, "mpgemm.torch passes out= (torch's allocator)"
        self.calls.append(MmCall(tuple(a.shape), a.stride(), tuple(b.shape), b.stride(), a.dtype, out.dtype))
        # FP32 accumulation, rounded once, as mpgemm's kernels do.
        out.copy_(torch.mm(a.float(), b.float()))
        return out
