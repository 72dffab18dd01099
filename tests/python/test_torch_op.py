"""torch.ops.mpgemm.linear and mpgemm::mm on the CPU: opcheck, gradients against F.linear, the library path with a
fake library (which kinds and layouts reach it), plan caching, torch.compile without graph breaks."""

from __future__ import annotations

import time

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the mpgemm.torch tests need it")
import torch.nn.functional as F  # noqa: E402
from fake_library import FakeLibrary  # noqa: E402

import mpgemm.torch as mpt  # noqa: E402

DTYPES = [torch.float32, torch.bfloat16]


def _operands(dtype: torch.dtype, bias: bool = True, lead: tuple[int, ...] = (3, 5)) -> tuple[torch.Tensor, ...]:
    torch.manual_seed(0)
    x = torch.randn(*lead, 16, dtype=dtype, requires_grad=True)
    w = torch.randn(8, 16, dtype=dtype, requires_grad=True)
    b = torch.randn(8, dtype=dtype, requires_grad=True) if bias else None
    return x, w, b


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("with_library", [False, True], ids=["torch", "fake-library"])
def test_linear_passes_opcheck(dtype: torch.dtype, with_library: bool) -> None:
    x, w, b = _operands(dtype)
    lib = FakeLibrary()
    with mpt.use(lib) if with_library else _nothing():
        torch.library.opcheck(torch.ops.mpgemm.linear.default, (x, w, b, 0))
        torch.library.opcheck(torch.ops.mpgemm.linear.default, (x[0], w, None, 0))
    # The library runs what a kind expresses (BF16) and is never asked about FP32.
    assert bool(lib.calls) == (with_library and dtype == torch.bfloat16)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_mm_passes_opcheck_on_transposed_views(dtype: torch.dtype) -> None:
    a = torch.randn(12, 6, dtype=dtype, requires_grad=True)  # a.t(): a km view
    b = torch.randn(4, 12, dtype=dtype, requires_grad=True)  # b.t(): an nk view
    with mpt.use(FakeLibrary()):
        torch.library.opcheck(torch.ops.mpgemm.mm.default, (a.t(), b.t(), 0))
        torch.library.opcheck(torch.ops.mpgemm.mm.default, (a.t().contiguous(), b.t().contiguous(), 0))


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def test_gradients_match_torch_in_float64() -> None:
    x, w, b = (t.double().detach().requires_grad_() for t in _operands(torch.float32))
    assert torch.autograd.gradcheck(lambda x, w, b: torch.ops.mpgemm.linear(x, w, b), (x, w, b))
    assert torch.autograd.gradcheck(lambda a, b: torch.ops.mpgemm.mm(a, b), (x[0], w.t()))


def test_the_library_runs_forward_dx_and_dw_in_their_kinds() -> None:
    x, w, b = _operands(torch.bfloat16)
    lib = FakeLibrary()
    with mpt.use(lib):
        y = torch.ops.mpgemm.linear(x, w, b)
        dy = torch.randn_like(y)
        y.backward(dy)
    ref_x, ref_w, ref_b = (t.detach().float().requires_grad_() for t in (x, w, b))
    ref = F.linear(ref_x, ref_w, ref_b)
    ref.backward(dy.float())
    torch.testing.assert_close(y.float(), ref, atol=0.05, rtol=0.02)
    torch.testing.assert_close(x.grad.float(), ref_x.grad, atol=0.05, rtol=0.02)
    torch.testing.assert_close(w.grad.float(), ref_w.grad, atol=0.1, rtol=0.02)
    torch.testing.assert_close(b.grad.float(), ref_b.grad, atol=0.05, rtol=0.02)
    assert [p[0] for p in lib.plans] == ["mk_nk_bf16_bf16", "mk_kn_bf16_bf16", "km_kn_bf16_bf16"]
    assert [p[1:] for p in lib.plans] == [(15, 8, 16), (15, 16, 8), (8, 16, 15)]
    forward, dx, dw = lib.calls
    # The weight reaches the library as its transposed view (strides (1, K)), dY as its transposed view for dW:
    # nothing was copied.
    assert (forward.b_shape, forward.b_stride) == ((16, 8), (1, 16))
    assert (dx.a_shape, dx.b_shape, dx.b_stride) == ((15, 8), (8, 16), (16, 1))
    assert (dw.a_shape, dw.a_stride) == ((8, 15), (1, 8))


def test_plans_are_asked_once_per_shape_and_the_vendor_path_runs_torch() -> None:
    lib = FakeLibrary(lambda problem, m, n, k: "cublas" if m == 4 else "nearest")
    w = torch.randn(8, 16, dtype=torch.bfloat16)
    with torch.no_grad(), mpt.use(lib):
        for _ in range(3):
            torch.ops.mpgemm.linear(torch.randn(4, 16, dtype=torch.bfloat16), w)
            torch.ops.mpgemm.linear(torch.randn(6, 16, dtype=torch.bfloat16), w)
    assert lib.plans == [("mk_nk_bf16_bf16", 4, 8, 16), ("mk_nk_bf16_bf16", 6, 8, 16)]
    assert len(lib.calls) == 3 and all(c.a_shape == (6, 16) for c in lib.calls)


def test_no_library_and_odd_strides_run_torch() -> None:
    lib = FakeLibrary()
    x = torch.randn(6, 32, dtype=torch.bfloat16)[:, :16]  # padded rows: no kind
    w = torch.randn(8, 16, dtype=torch.bfloat16)
    torch.testing.assert_close(torch.ops.mpgemm.linear(x, w), F.linear(x, w))
    with mpt.use(lib):
        torch.testing.assert_close(torch.ops.mpgemm.linear(x, w), F.linear(x, w))
    assert lib.plans == [] and lib.calls == []


def test_use_nests_and_restores() -> None:
    outer, inner = FakeLibrary(), FakeLibrary()
    assert mpt.current_library() is None
    with mpt.use(outer):
        with mpt.use(inner):
            assert mpt.current_library() is inner
        assert mpt.current_library() is outer
    assert mpt.current_library() is None


def test_a_bad_library_handle_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="names no library"):
        torch.ops.mpgemm.linear(torch.randn(2, 4), torch.randn(3, 4), None, 10_000)


class _Linear(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(8, 16, dtype=torch.bfloat16))
        self.bias = torch.nn.Parameter(torch.randn(8, dtype=torch.bfloat16))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(mpt.linear(x, self.weight, self.bias))


def test_compiles_with_fullgraph_and_runs_the_library() -> None:
    torch._dynamo.reset()
    module = _Linear()
    compiled = torch.compile(module, fullgraph=True, backend="aot_eager")
    x = torch.randn(4, 16, dtype=torch.bfloat16, requires_grad=True)
    lib = FakeLibrary()
    with mpt.use(lib):
        y = compiled(x)
        y.sum().backward()
    torch.testing.assert_close(y, module(x.detach()))
    # Forward, then dX and dW: the library is asked at run time, not at trace time.
    assert [c[0] for c in lib.plans] == ["mk_nk_bf16_bf16", "mk_kn_bf16_bf16", "km_kn_bf16_bf16"]
    explanation = torch._dynamo.explain(module)(x)
    assert explanation.graph_break_count == 0


def _per_call_us(fn, calls: int = 2000) -> float:  # type: ignore[no-untyped-def]
    for _ in range(100):
        fn()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls * 1e6


def test_host_cost(capsys: pytest.CaptureFixture[str]) -> None:
    """Prints the eager host cost per call (no assertion: CI machines are noisy; the choice is in mpgemm/torch.py)."""
    x, w, b = (t.detach() for t in _operands(torch.bfloat16, lead=(2,)))
    lib = FakeLibrary()
    with torch.no_grad(), mpt.use(lib):
        figures = {
            "F.linear": _per_call_us(lambda: F.linear(x, w, b)),
            "torch.ops.mpgemm.linear": _per_call_us(lambda: torch.ops.mpgemm.linear(x, w, b)),
            "the implementation (patch's eager path)": _per_call_us(lambda: mpt._linear_impl(x, w, b, 0)),
        }
    with capsys.disabled():
        print("\nhost cost per call, 2 x 8 x 16 BF16 on the CPU, fake library:")
        for name, us in figures.items():
            print(f"  {us:7.1f} us  {name}")


def test_mm_with_an_fp32_output_is_the_default_kind() -> None:
    a = torch.randn(8, 16, dtype=torch.float16, requires_grad=True)
    b = torch.randn(16, 4, dtype=torch.float16, requires_grad=True)
    lib = FakeLibrary()
    with mpt.use(lib):
        torch.library.opcheck(torch.ops.mpgemm.mm.default, (a, b, torch.float32, 0))
        d = mpt.mm(a, b, out_dtype=torch.float32)
        d.backward(torch.ones_like(d))
    assert d.dtype == torch.float32 and a.grad.dtype == torch.float16
    torch.testing.assert_close(d, a.detach().float() @ b.detach().float())
    assert lib.plans[0] == ("mk_kn_fp16_fp32", 8, 4, 16)
    assert lib.calls[0].out_dtype == torch.float32


def test_empty_operands_run_torch_without_a_plan() -> None:
    lib = FakeLibrary()
    w = torch.randn(8, 16, dtype=torch.bfloat16)
    with mpt.use(lib):
        assert torch.ops.mpgemm.linear(torch.randn(0, 16, dtype=torch.bfloat16), w).shape == (0, 8)
        assert torch.ops.mpgemm.linear(torch.randn(2, 3, 16, dtype=torch.bfloat16), w).shape == (2, 3, 8)
        assert torch.ops.mpgemm.linear(torch.randn(16, dtype=torch.bfloat16), w).shape == (8,)
    assert [p[1] for p in lib.plans] == [6, 1]  # never asked about M = 0
