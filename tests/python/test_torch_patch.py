"""mpgemm.torch.patch with a fake library on the CPU: which layers it routes, what runs where, the report, undo,
autograd and torch.compile through patched layers."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the mpgemm.torch tests need it")
import torch.nn as nn  # noqa: E402
from fake_library import FakeLibrary  # noqa: E402

import mpgemm.torch as mpt  # noqa: E402


class _Scaled(nn.Linear):
    """A subclass with its own forward: patch must leave it alone (its forward is not nn.Linear's)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return super().forward(x) * 2


class _Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.up = nn.Linear(16, 32, dtype=torch.bfloat16)
        self.down = nn.Linear(32, 16, bias=False, dtype=torch.bfloat16)
        self.scaled = _Scaled(16, 16, dtype=torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.scaled(self.down(torch.relu(self.up(x))))


def _x(tokens: int = 4, requires_grad: bool = False) -> torch.Tensor:
    return torch.randn(2, tokens, 16, dtype=torch.bfloat16, requires_grad=requires_grad)


def test_patch_routes_plain_linear_layers_and_undo_restores_them() -> None:
    model, lib = _Model(), FakeLibrary()
    x = _x()
    with torch.no_grad():
        reference = model(x)
        handle = mpt.patch(model, lib)
        assert sorted(handle.layers) == ["down", "up"]
        assert isinstance(model.up, nn.Linear) and type(model.up).__name__ == "MpgemmLinear"
        assert type(model.scaled) is _Scaled
        patched = model(x)
        handle.undo()
        handle.undo()  # a second undo does nothing
    assert type(model.up) is nn.Linear and not hasattr(model.up, "_mpgemm_patch")
    torch.testing.assert_close(patched, reference, atol=0.05, rtol=0.02)
    # up and down ran on the library (the plain eager path: no dispatcher), the scaled subclass on torch.
    assert [(c.a_shape, c.b_shape, c.b_stride) for c in lib.calls] == [
        ((8, 16), (16, 32), (1, 16)),
        ((8, 32), (32, 16), (1, 32)),
    ]
    assert handle.counts() == {"up": {"tuned": 1}, "down": {"tuned": 1}}


def test_the_report_says_which_layer_ran_where() -> None:
    model = _Model()
    lib = FakeLibrary(lambda problem, m, n, k: "cublas" if n == 16 else "tuned")
    with torch.no_grad(), mpt.patch(model, lib) as handle:
        for tokens in (4, 4, 8):
            model(_x(tokens))
        report = handle.report()
    assert handle.counts() == {"up": {"tuned": 3}, "down": {"cublas": 3}}
    lines = report.splitlines()
    assert lines[1] == "up  16 x 32  tuned 3"
    assert lines[2] == "down  32 x 16  cublas 3"
    assert "linear 8x32x16  2 call(s)  mk_nk_bf16_bf16 -> tuned fake_config x1.25 of cuBLAS" in report
    assert "linear 8x16x32  2 call(s)  mk_nk_bf16_bf16 -> cublas fake_config x1.25 of cuBLAS (the fake" in report
    assert type(model.up) is nn.Linear  # the context undid the patch


def test_verbose_prints_each_layers_path_when_it_changes(capsys: pytest.CaptureFixture[str]) -> None:
    model = _Model()
    with torch.no_grad(), mpt.patch(model, FakeLibrary(), verbose=True):
        model(_x())
        model(_x())
        model(_x(8))
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "mpgemm: 2 linear layer(s) of _Model routed through mpgemm"
    assert sum("mpgemm: up: mk_nk_bf16_bf16 -> tuned" in line for line in out) == 2  # M = 8, then M = 16


def test_patching_twice_is_refused() -> None:
    model = _Model()
    with mpt.patch(model, FakeLibrary()):
        with pytest.raises(ValueError, match="already patched"):
            mpt.patch(model, FakeLibrary())
    mpt.patch(model, FakeLibrary()).undo()  # after undo it may be patched again


def test_gradients_flow_through_patched_layers() -> None:
    model, lib = _Model(), FakeLibrary()
    x = _x(requires_grad=True)
    reference = _Model()
    x_ref = x.detach().clone().requires_grad_()
    reference(x_ref).float().pow(2).sum().backward()
    with mpt.patch(model, lib):
        model(x).float().pow(2).sum().backward()
    torch.testing.assert_close(x.grad, x_ref.grad, atol=0.1, rtol=0.05)
    torch.testing.assert_close(model.up.weight.grad, reference.up.weight.grad, atol=0.5, rtol=0.05)
    torch.testing.assert_close(model.up.bias.grad, reference.up.bias.grad, atol=0.1, rtol=0.05)
    kinds = sorted({p[0] for p in lib.plans})
    assert kinds == ["km_kn_bf16_bf16", "mk_kn_bf16_bf16", "mk_nk_bf16_bf16"]


def test_a_patched_model_compiles_with_fullgraph() -> None:
    torch._dynamo.reset()
    model, lib = _Model(), FakeLibrary()
    x = _x()
    with torch.no_grad():
        reference = model(x)
        with mpt.patch(model, lib):
            compiled = torch.compile(model, fullgraph=True, backend="aot_eager")
            torch.testing.assert_close(compiled(x), reference, atol=0.05, rtol=0.02)
    assert len(lib.calls) == 2  # up and down, at run time


def test_the_patch_uses_its_own_library_not_the_current_one() -> None:
    model, mine, other = _Model(), FakeLibrary(), FakeLibrary()
    with torch.no_grad(), mpt.use(other), mpt.patch(model, mine):
        model(_x())
    assert len(mine.calls) == 2 and other.calls == []


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="gpu: no CUDA device on this machine")
def test_a_patched_model_on_cuda_without_winners_matches_torch() -> None:
    """On a GPU with a library whose plan says cuBLAS everywhere, the patched model is torch's, bit for bit."""
    model = _Model().cuda()
    x = _x().cuda()
    with torch.no_grad():
        reference = model(x)
        with mpt.patch(model, FakeLibrary("cublas")) as handle:
            out = model(x)
    assert torch.equal(out, reference)
    assert handle.counts() == {"up": {"torch": 1}, "down": {"torch": 1}}  # the fake takes CPU tensors only
