"""mpgemm.torch.capture on the CPU and on meta tensors: the decoder blocks of examples/python, every GEMM kind a
linear layer's forward and backward run, what no kind expresses, the shape file's round trip."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the mpgemm.torch tests need it")
from fake_library import FakeLibrary  # noqa: E402

import mpgemm.shapes  # noqa: E402
import mpgemm.torch as mpt  # noqa: E402
from mpgemm.problem import Problem  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "python" / "decoder_blocks.py"
LINEAR = Problem.parse("mk_nk_bf16_bf16")


@pytest.fixture(scope="module")
def example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("decoder_blocks", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["decoder_blocks"] = module
    spec.loader.exec_module(module)
    return module


def _counts(cap: mpt.Capture) -> dict[tuple[str, int, int, int], int]:
    return {(s.problem.name, s.m, s.n, s.k): s.calls for s in cap.shapes()}


@pytest.mark.parametrize("device", ["meta", "cpu"])
def test_gpt_block_at_two_token_counts(example: ModuleType, device: str) -> None:
    dims = example.GPT_SMALL
    block = example.GPTBlock(dims, device=device, dtype=torch.bfloat16).eval()
    d, f = dims.d_model, dims.ffn
    with torch.no_grad(), mpt.capture() as cap:
        for tokens in (dims.prefill, dims.decode):
            block(torch.randn(2, tokens, d, device=device, dtype=torch.bfloat16))
    expected = {}
    for m in (2 * dims.prefill, 2 * dims.decode):  # batch 2: M = 2 x tokens
        expected |= {("mk_nk_bf16_bf16", m, n, k): 1 for n, k in ((3 * d, d), (d, d), (f, d), (d, f))}
    assert _counts(cap) == expected
    # The attention's GEMMs are not dropped: two SDPA calls, one per token count, listed with why.
    rest = cap.not_tunable()
    assert sum(n.calls for n in rest) >= 2
    assert all("attention" in n.why or "batched" in n.why for n in rest)
    assert cap.calls == 8 + sum(n.calls for n in rest)


def test_llama_block_merges_equal_shapes(example: ModuleType) -> None:
    dims = example.LLAMA_SMALL
    block = example.LlamaBlock(dims, device="meta", dtype=torch.bfloat16)
    d, f, kv = dims.d_model, dims.ffn, dims.d_model // dims.heads * dims.kv_heads
    with torch.inference_mode(), mpt.capture() as cap:
        block(torch.randn(1, 16, d, device="meta", dtype=torch.bfloat16))
    # wq and wo are both d x d, gate and up both d -> ffn: one shape each, two calls.
    assert _counts(cap) == {
        ("mk_nk_bf16_bf16", 16, d, d): 2,
        ("mk_nk_bf16_bf16", 16, kv, d): 2,
        ("mk_nk_bf16_bf16", 16, f, d): 2,
        ("mk_nk_bf16_bf16", 16, d, f): 1,
    }
    (attention,) = cap.not_tunable()
    assert "attention" in attention.why and attention.calls == 1


def test_runs_accumulate_across_with_blocks() -> None:
    w = torch.randn(8, 16, device="meta", dtype=torch.float16)
    cap = mpt.capture()
    for m in (1, 32, 32):
        with cap:
            torch.nn.functional.linear(torch.randn(m, 16, device="meta", dtype=torch.float16), w)
    assert _counts(cap) == {("mk_nk_fp16_fp16", 1, 8, 16): 1, ("mk_nk_fp16_fp16", 32, 8, 16): 2}


def test_backward_kinds_of_a_linear_layer() -> None:
    layer = torch.nn.Linear(16, 8, dtype=torch.bfloat16)
    x = torch.randn(4, 16, dtype=torch.bfloat16, requires_grad=True)
    with mpt.capture() as cap:
        y = layer(x)
        y.backward(torch.randn_like(y))  # a dense dY: a .sum() would give a broadcast one
    assert _counts(cap) == {
        ("mk_nk_bf16_bf16", 4, 8, 16): 1,  # addmm(bias, x, W.t())
        ("mk_kn_bf16_bf16", 4, 16, 8): 1,  # dX = dY . W
        ("km_kn_bf16_bf16", 8, 16, 4): 1,  # dW = dY^T . X
    }


def test_what_no_kind_expresses_is_listed_with_why() -> None:
    meta = {"device": "meta"}
    a16 = torch.randn(8, 16, dtype=torch.float16, **meta)
    with mpt.capture() as cap:
        torch.mm(a16.float(), torch.randn(16, 4, **meta))  # FP32
        torch.mm(
            torch.randn(8, 32, dtype=torch.float16, **meta)[:, :16], torch.randn(16, 4, dtype=torch.float16, **meta)
        )
        torch.bmm(
            torch.randn(3, 8, 16, dtype=torch.float16, **meta), torch.randn(3, 16, 4, dtype=torch.float16, **meta)
        )
        torch.mm(torch.randn(0, 16, dtype=torch.float16, **meta), torch.randn(16, 4, dtype=torch.float16, **meta))
        torch.mv(a16, torch.randn(16, dtype=torch.float16, **meta))
    assert cap.shapes() == []
    whys = [(n.op, n.why) for n in cap.not_tunable()]
    assert len(whys) == 5
    assert "FP16 or BF16" in whys[0][1]
    assert "strides (32, 1)" in whys[1][1]
    assert whys[2] == ("aten.bmm", "batched: 3 GEMMs of 8x4x16 float16; mpgemm runs one 2-D GEMM per call")
    assert "empty" in whys[3][1]
    assert "matrix-vector" in whys[4][1]
    assert "5 call(s) no kind expresses" in cap.summary()


def test_addmm_with_a_full_c_is_a_beta_kind_and_a_bias_is_not() -> None:
    a = torch.randn(8, 16, dtype=torch.bfloat16, device="meta")
    b = torch.randn(16, 4, dtype=torch.bfloat16, device="meta")
    with mpt.capture() as cap:
        torch.addmm(torch.randn(4, dtype=torch.bfloat16, device="meta"), a, b)
        torch.addmm(torch.randn(8, 4, dtype=torch.bfloat16, device="meta"), a, b, beta=0.5)
        torch.addmm(torch.randn(8, 4, dtype=torch.bfloat16, device="meta"), a, b, beta=0)
        torch.bmm(a[None], b[None])  # a batch of one is one GEMM
    assert _counts(cap) == {("mk_kn_bf16_bf16", 8, 4, 16): 3, ("mk_kn_bf16_bf16_beta", 8, 4, 16): 1}


def test_the_ops_are_captured_as_what_they_compute() -> None:
    x = torch.randn(2, 3, 16, dtype=torch.bfloat16)
    w = torch.randn(8, 16, dtype=torch.bfloat16)
    with torch.no_grad(), mpt.use(FakeLibrary()), mpt.capture() as cap:
        mpt.linear(x, w)
        mpt.mm(x[0].t(), torch.randn(3, 4, dtype=torch.bfloat16))
    assert _counts(cap) == {("mk_nk_bf16_bf16", 6, 8, 16): 1, ("km_kn_bf16_bf16", 16, 4, 3): 1}
    assert [n.op for n in cap.not_tunable()] == []


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    w = torch.randn(8, 16, device="meta", dtype=torch.bfloat16)
    with mpt.capture("two calls") as cap:
        for m in (4, 4, 64):
            torch.nn.functional.linear(torch.randn(m, 16, device="meta", dtype=torch.bfloat16), w)
        torch.bmm(torch.randn(2, 4, 4, device="meta"), torch.randn(2, 4, 4, device="meta"))
    path = tmp_path / "captured.json"
    cap.save(path)
    loaded = mpgemm.shapes.load(path)
    assert loaded.description == "two calls"
    assert [(s.problem, s.m, s.n, s.k, s.calls) for s in loaded.shapes] == [
        (LINEAR, 4, 8, 16, 2),
        (LINEAR, 64, 8, 16, 1),
    ]
    assert loaded.not_tunable == cap.not_tunable() and loaded.not_tunable[0].op == "aten.bmm"
    assert loaded.kinds() == [LINEAR]
    assert json.loads(path.read_text())["shapes"][0] == {
        "M": 4,
        "N": 8,
        "K": 16,
        "problem": "mk_nk_bf16_bf16",
        "calls": 2,
    }


def test_summary_reads_as_a_table() -> None:
    with mpt.capture() as cap:
        torch.mm(
            torch.randn(64, 32, dtype=torch.float16, device="meta"),
            torch.randn(32, 16, dtype=torch.float16, device="meta"),
        )
    lines = cap.summary().splitlines()
    assert lines[0] == "1 tunable GEMM call(s) at 1 (kind, shape)(s):"
    assert lines[1].split() == ["kind", "M", "N", "K", "calls", "GFLOP/call", "share"]
    assert lines[2].split() == ["mk_kn_fp16_fp16", "64", "16", "32", "1", "0.000", "100.0%"]


def test_the_example_captures_on_meta(example: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "captured.json"
    assert example.main(["capture", "--small", "--out", str(out)]) == 0
    loaded = mpgemm.shapes.load(out)
    assert loaded.kinds() == [LINEAR]
    assert {s.m for s in loaded.shapes} == {example.GPT_SMALL.prefill, example.GPT_SMALL.decode}
    assert sum(n.calls for n in loaded.not_tunable) == 4  # SDPA: 2 blocks x 2 token counts
    assert "wrote" in capsys.readouterr().out


def test_the_example_runs_patched_on_a_library(
    example: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    lib = FakeLibrary()
    monkeypatch.setattr(example, "_open_library", lambda db: lib)
    assert example.main(["run", "--small", "--device", "cpu", "--no-compile", "--iters", "1", "--db", "fake"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[1:]]
    assert [r[:2] for r in rows] == [["gpt", "prefill"], ["gpt", "decode"], ["llama", "prefill"], ["llama", "decode"]]
    assert all(float(r[-1]) < 0.1 for r in rows)  # the largest difference from torch's output
    assert {p[0] for p in lib.preloaded} == {"mk_nk_bf16_bf16"} and lib.calls
