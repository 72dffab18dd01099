"""Problem kinds: what a GEMM computes apart from its size, named as mpgemm names them everywhere.

D (M x N, row-major) = alpha * A.B + beta * C, accumulated in FP32 and rounded once to D's type, with A stored
M x K ("mk") or K x M ("km"), B stored K x N ("kn") or N x K ("nk": a linear layer's weight), A and B in FP16 or
BF16, C and D in FP32, FP16 or BF16; a kind ending in "_beta" reads C. The default kind, ``mk_kn_fp16_fp32``, is
mpgemm's first problem. ``classify`` reads a call's kind off its operands' shapes, strides and dtypes, as
``Library.mm`` and ``mpgemm.torch.capture`` do: a transposed view is a layout, never a copy.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Literal

ALayout = Literal["mk", "km"]
BLayout = Literal["kn", "nk"]
InType = Literal["fp16", "bf16"]
OutType = Literal["fp32", "fp16", "bf16"]

IN_TYPES: tuple[str, ...] = ("fp16", "bf16")
OUT_TYPES: tuple[str, ...] = ("fp32", "fp16", "bf16")

# Type names as DLPack producers, NumPy and torch spell them, to mpgemm's.
_DTYPE_NAMES = {
    "float16": "fp16",
    "half": "fp16",
    "fp16": "fp16",
    "bfloat16": "bf16",
    "bf16": "bf16",
    "float32": "fp32",
    "float": "fp32",
    "fp32": "fp32",
}


def type_name(dtype: object) -> str | None:
    """mpgemm's name of a dtype ("fp16", "bf16", "fp32"), from a string or a torch/NumPy dtype; None otherwise."""
    text = str(dtype).rsplit(".", 1)[-1]  # "torch.bfloat16" -> "bfloat16"
    return _DTYPE_NAMES.get(text)


@dataclasses.dataclass(frozen=True)
class Problem:
    """A problem kind. ``Problem()`` is the default kind; ``Problem.parse("mk_nk_bf16_bf16")`` a linear layer's
    forward pass in BF16."""

    a: ALayout = "mk"
    b: BLayout = "kn"
    dtype_in: InType = "fp16"
    dtype_out: OutType = "fp32"
    beta: bool = False

    def __post_init__(self) -> None:
        if self.a not in ("mk", "km"):
            raise ValueError(f"A's layout is 'mk' or 'km', not {self.a!r}")
        if self.b not in ("kn", "nk"):
            raise ValueError(f"B's layout is 'kn' or 'nk', not {self.b!r}")
        if self.dtype_in not in IN_TYPES:
            raise ValueError(f"the input type is one of {', '.join(IN_TYPES)}, not {self.dtype_in!r}")
        if self.dtype_out not in OUT_TYPES:
            raise ValueError(f"the output type is one of {', '.join(OUT_TYPES)}, not {self.dtype_out!r}")

    @property
    def name(self) -> str:
        """The procedural name: "mk_kn_fp16_fp32", "mk_nk_bf16_bf16_beta", ..."""
        return f"{self.a}_{self.b}_{self.dtype_in}_{self.dtype_out}" + ("_beta" if self.beta else "")

    def __str__(self) -> str:
        return self.name

    @classmethod
    def parse(cls, name: str) -> Problem:
        """The kind ``name`` names; ValueError saying why not."""
        if not isinstance(name, str):
            raise ValueError(f"{name!r} is not a problem kind: a kind is named by a string, e.g. mk_nk_bf16_bf16")
        parts = name.split("_")
        beta = len(parts) == 5 and parts[4] == "beta"
        if len(parts) not in (4, 5) or (len(parts) == 5 and not beta):
            raise ValueError(
                f"{name!r} is not a problem kind: its name is A's layout, B's layout, the input type, the output "
                "type and an optional _beta, e.g. mk_nk_bf16_bf16"
            )
        a, b, dtype_in, dtype_out = parts[:4]
        try:
            return cls(a, b, dtype_in, dtype_out, beta)  # type: ignore[arg-type]
        except ValueError as error:
            raise ValueError(f"{name!r} is not a problem kind: {error}") from None

    @classmethod
    def all(cls) -> list[Problem]:
        """Every kind, the default first."""
        return [
            cls(a, b, i, o, beta)  # type: ignore[arg-type]
            for beta in (False, True)
            for a in ("mk", "km")
            for b in ("kn", "nk")
            for i in IN_TYPES
            for o in OUT_TYPES
        ]


@dataclasses.dataclass(frozen=True)
class Call:
    """A GEMM as one call computes it: its extents and its kind, or why no kind expresses it (``problem`` None)."""

    m: int
    n: int
    k: int
    problem: Problem | None
    why_not: str = ""

    @property
    def shape(self) -> str:
        return f"{self.m}x{self.n}x{self.k}"


def packed_rows(rows: int, cols: int, row_stride: int, col_stride: int) -> bool:
    """A rows x cols array stored row-major and packed: strides (cols, 1). A dimension of extent 0 or 1 has any
    stride (only the other one tells), so an empty or single-row operand is never refused for its strides."""
    return (cols <= 1 or col_stride == 1) and (rows <= 1 or row_stride == cols)


def _layout(
    shape: Sequence[int], strides: Sequence[int], row_major: str, col_major: str, what: str
) -> tuple[str | None, str]:
    """The layout of a 2-D operand whose logical shape is (rows, cols): ``row_major`` when stored rows x cols
    row-major (strides (cols, 1)), ``col_major`` when it is the transposed view of a cols x rows row-major array
    (strides (1, rows)). Anything else (padded rows, a slice, a broadcast) has no kind: (None, why)."""
    rows, cols = shape
    s0, s1 = strides
    if packed_rows(rows, cols, s0, s1):
        return row_major, ""
    if packed_rows(cols, rows, s1, s0):
        return col_major, ""
    return None, (
        f"{what} ({rows} x {cols}) has strides ({s0}, {s1}): neither packed row-major ({cols}, 1) "
        f"nor a transposed packed view (1, {rows})"
    )


def classify(
    a_shape: Sequence[int],
    a_strides: Sequence[int],
    b_shape: Sequence[int],
    b_strides: Sequence[int],
    dtype_in: object,
    dtype_b: object,
    dtype_out: object,
    beta: bool = False,
) -> Call:
    """The kind of D = A.B with A of logical shape (M, K) and B (K, N), given their strides in elements and the
    dtypes; ``Call.problem`` is None, with ``why_not``, when no kind computes it (batched or 1-D operands, FP32 or
    mixed inputs, strides no layout has)."""
    if len(a_shape) != 2 or len(b_shape) != 2:
        return Call(0, 0, 0, None, f"operands of {len(a_shape)} and {len(b_shape)} dimensions: mpgemm takes 2-D A and B")
    m, k = int(a_shape[0]), int(a_shape[1])
    k2, n = int(b_shape[0]), int(b_shape[1])
    if k != k2:
        return Call(m, n, k, None, f"A is {m} x {k} but B is {k2} x {n}")
    name_a, name_b, name_out = type_name(dtype_in), type_name(dtype_b), type_name(dtype_out)
    if name_a != name_b:
        return Call(m, n, k, None, f"A is {dtype_in} and B is {dtype_b}: mpgemm takes A and B of one type")
    if name_a not in IN_TYPES:
        return Call(m, n, k, None, f"inputs of {dtype_in}: mpgemm takes FP16 or BF16 A and B")
    if name_out not in OUT_TYPES:
        return Call(m, n, k, None, f"an output of {dtype_out}: mpgemm writes FP32, FP16 or BF16")
    a, why_a = _layout((m, k), a_strides, "mk", "km", "A")
    if a is None:
        return Call(m, n, k, None, why_a)
    b, why_b = _layout((k, n), b_strides, "kn", "nk", "B")
    if b is None:
        return Call(m, n, k, None, why_b)
    return Call(m, n, k, Problem(a, b, name_a, name_out, beta))  # type: ignore[arg-type]
