"""mpgemm.Library on a CUDA device, against torch: every path (tuned, nearest, cublas) and every layout a kind
reads from strides, streams, beta with C, other DLPack producers, and preload before CUDA graph capture.

The tuned and nearest paths need winners tuned on this very GPU model: MPGEMM_TEST_GPU_DB names such a database
(tools/python_gpu_check.sh tunes one in a minute: 512^3 and 2048^3 of several kinds). Without it those tests skip,
saying so, and the rest run on the vendor path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the GPU tests of the library use its tensors")
mpgemm = pytest.importorskip("mpgemm")

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="gpu: no CUDA device on this machine"),
]

TYPES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}


def tuned_db() -> Path:
    db = os.environ.get("MPGEMM_TEST_GPU_DB")
    if not db:
        pytest.skip("MPGEMM_TEST_GPU_DB is not set: no database tuned on this GPU (tools/python_gpu_check.sh)")
    return Path(db)


def operands(kind: mpgemm.Problem, m: int, n: int, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    dtype = TYPES[kind.dtype_in]
    gen = torch.Generator(device="cuda").manual_seed(m * 7 + n * 3 + k)
    a = torch.randn((m, k) if kind.a == "mk" else (k, m), device="cuda", dtype=dtype, generator=gen)
    b = torch.randn((k, n) if kind.b == "kn" else (n, k), device="cuda", dtype=dtype, generator=gen)
    return (a if kind.a == "mk" else a.t()), (b if kind.b == "kn" else b.t())


def check_close(out: torch.Tensor, a: torch.Tensor, b: torch.Tensor, alpha: float = 1.0, beta: float = 0.0,
                c: torch.Tensor | None = None) -> None:
    ref = alpha * (a.float() @ b.float())
    if beta:
        ref += beta * c.float()
    tol = 1e-2 if out.dtype == torch.float32 else 3e-2
    err = ((out.float() - ref).abs() / (ref.abs() + 1)).max().item()
    assert err < tol, f"max relative error {err}"


@pytest.mark.parametrize("kind_name", ["mk_kn_fp16_fp32", "mk_nk_bf16_bf16", "mk_kn_bf16_bf16", "km_kn_bf16_bf16"])
@pytest.mark.parametrize("shape,path", [((2048, 2048, 2048), "tuned"), ((2000, 2048, 2048), "nearest")])
def test_tuned_and_nearest_winners_match_torch(kind_name: str, shape: tuple[int, int, int], path: str) -> None:
    lib = mpgemm.Library(tuned_db(), min_ratio=0.0)
    kind = mpgemm.Problem.parse(kind_name)
    a, b = operands(kind, *shape)
    plan = lib.plan_mm(a, b, out_dtype=TYPES[kind.dtype_out])
    if plan.path == "cublas":
        pytest.skip(f"{kind_name} has no winner on this GPU in {lib.path}: {plan.reason}")
    assert plan.path == path, plan.reason
    out = lib.mm(a, b, out_dtype=TYPES[kind.dtype_out])
    torch.cuda.synchronize()
    d = lib.last_dispatch()
    assert (d.path, d.problem, d.config) == (plan.path, kind_name, plan.config)
    check_close(out, a, b)


def test_vendor_path_of_every_layout_matches_torch(db_dir: Path) -> None:
    lib = mpgemm.Library(db_dir / "h200_rerank_three_cubes.db", min_ratio=1e9)  # nothing tuned may run
    for a_layout in ("mk", "km"):
        for b_layout in ("kn", "nk"):
            for dtype_in, dtype_out in (("fp16", "fp32"), ("bf16", "bf16"), ("fp16", "fp16"), ("bf16", "fp32")):
                kind = mpgemm.Problem(a_layout, b_layout, dtype_in, dtype_out)
                a, b = operands(kind, 96, 136, 72)
                out = lib.mm(a, b, out_dtype=TYPES[dtype_out])
                torch.cuda.synchronize()
                assert lib.last_dispatch().path == "cublas" and lib.last_dispatch().problem == kind.name
                check_close(out, a, b)


def test_beta_reads_c_and_alpha_scales(db_dir: Path) -> None:
    lib = mpgemm.Library(db_dir / "h200_rerank_three_cubes.db")
    a, b = operands(mpgemm.Problem.parse("mk_nk_bf16_bf16"), 128, 256, 64)
    c = torch.randn(128, 256, device="cuda", dtype=torch.bfloat16)
    out = lib.mm(a, b, alpha=0.5, beta=2.0, c=c)
    torch.cuda.synchronize()
    assert lib.last_dispatch().problem == "mk_nk_bf16_bf16_beta"
    check_close(out, a, b, 0.5, 2.0, c)
    in_place = c.clone()
    lib.mm(a, b, out=in_place, beta=1.0, c=in_place)
    torch.cuda.synchronize()
    check_close(in_place, a, b, 1.0, 1.0, c)


def test_a_side_stream_is_used_and_honoured(db_dir: Path) -> None:
    lib = mpgemm.Library(db_dir / "h200_rerank_three_cubes.db")
    a, b = operands(mpgemm.Problem(), 512, 512, 512)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        out = lib.mm(a, b, out_dtype=torch.float32)
    side.synchronize()
    check_close(out, a, b)
    explicit = torch.empty(512, 512, device="cuda", dtype=torch.float32)
    lib.mm(a, b, out=explicit, stream=side)
    side.synchronize()
    check_close(explicit, a, b)


def test_what_no_kind_reads_is_refused(db_dir: Path) -> None:
    lib = mpgemm.Library(db_dir / "h200_rerank_three_cubes.db")
    a = torch.randn(64, 80, device="cuda", dtype=torch.float16)
    with pytest.raises(mpgemm.BadArgument, match="strides"):
        lib.mm(a[:, :64], torch.randn(64, 64, device="cuda", dtype=torch.float16))  # a padded (sliced) A
    with pytest.raises(mpgemm.BadArgument, match="FP16 or BF16|float16 or"):
        lib.mm(a.float(), torch.randn(80, 8, device="cuda"))
    with pytest.raises(mpgemm.BadArgument, match="one type|both"):
        lib.mm(a, torch.randn(80, 8, device="cuda", dtype=torch.bfloat16))
    with pytest.raises(mpgemm.BadArgument, match="CUDA"):
        lib.mm(a, torch.randn(80, 8, dtype=torch.float16))


def test_other_dlpack_producers_pass_out(db_dir: Path) -> None:
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed: the non-torch DLPack path is not exercised")
    lib = mpgemm.Library(db_dir / "h200_rerank_three_cubes.db")
    a = cupy.random.standard_normal((256, 128)).astype(cupy.float16)
    b = cupy.random.standard_normal((128, 64)).astype(cupy.float16)
    out = cupy.empty((256, 64), dtype=cupy.float32)
    lib.mm(a, b, out=out)
    cupy.cuda.Device().synchronize()
    ref = a.astype(cupy.float32) @ b.astype(cupy.float32)
    assert float(cupy.abs(out - ref).max()) < 0.05
    lib.mm(a.T.T, b.T.copy().T, out=out)  # B as a transposed view: nk, read from its strides
    cupy.cuda.Device().synchronize()
    assert float(cupy.abs(out - ref).max()) < 0.05


def test_preload_then_cuda_graph_capture() -> None:
    lib = mpgemm.Library(tuned_db(), min_ratio=0.0)
    kind = mpgemm.Problem.parse("mk_nk_bf16_bf16")
    a, b = operands(kind, 2048, 2048, 2048)
    out = torch.empty(2048, 2048, device="cuda", dtype=torch.bfloat16)
    stream = torch.cuda.Stream()
    dispatches = lib.preload([(kind, 2048, 2048, 2048)], stream)
    assert dispatches[0].problem == kind.name
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        lib.mm(a, b, out=out)
    out.zero_()
    graph.replay()
    torch.cuda.synchronize()
    check_close(out, a, b)


def test_a_misaligned_pointer_takes_the_vendor_path_and_says_why() -> None:
    lib = mpgemm.Library(tuned_db(), min_ratio=0.0)
    kind = mpgemm.Problem.parse("mk_nk_bf16_bf16")
    a, b = operands(kind, 2048, 2048, 2048)
    if lib.plan_mm(a, b).path != "tuned":
        pytest.skip(f"no tuned winner of {kind.name} at 2048^3 on this GPU in {lib.path}")
    storage = torch.empty(2048 * 2048 + 8, device="cuda", dtype=torch.bfloat16)
    shifted = storage[1 : 1 + 2048 * 2048].view(2048, 2048)  # packed, but 2 bytes past an aligned address
    shifted.copy_(a)
    out = lib.mm(shifted, b)
    torch.cuda.synchronize()
    d = lib.last_dispatch()
    assert d.path == "cublas" and "16-byte" in d.reason, d.reason
    check_close(out, a, b)
    lib.mm(a, b)  # the aligned call still takes the winner
    assert lib.last_dispatch().path == "tuned"


def test_outputs_that_are_not_packed_rows_and_empty_products(db_dir: Path) -> None:
    lib = mpgemm.Library(db_dir / "h200_rerank_three_cubes.db")
    a, b = operands(mpgemm.Problem.parse("mk_nk_bf16_bf16"), 6, 1, 8)
    big = torch.zeros(6, 4, device="cuda", dtype=torch.bfloat16)
    with pytest.raises(mpgemm.BadArgument, match="packed row-major"):
        lib.mm(a, b, out=big[:, :1])  # one column of a wider array: D would be written packed over row 0
    assert not big.any()
    empty_k = torch.empty(6, 0, device="cuda", dtype=torch.float16)
    out = lib.mm(empty_k, torch.empty(0, 5, device="cuda", dtype=torch.float16), out_dtype=torch.float32)
    torch.cuda.synchronize()
    assert out.shape == (6, 5) and not out.any()
    assert lib.mm(torch.empty(0, 8, device="cuda", dtype=torch.float16),
                  torch.randn(8, 5, device="cuda", dtype=torch.float16)).shape == (0, 5)


def test_capture_of_a_call_not_prepared_is_refused(db_dir: Path) -> None:
    lib = mpgemm.Library(db_dir / "h200_rerank_three_cubes.db")
    a, b = operands(mpgemm.Problem.parse("mk_kn_fp16_fp32"), 96, 104, 112)
    out = torch.empty(96, 104, device="cuda", dtype=torch.float32)
    stream = torch.cuda.Stream()
    graph = torch.cuda.CUDAGraph()
    with pytest.raises(mpgemm.BadArgument, match="preload"):
        with torch.cuda.graph(graph, stream=stream):
            lib.mm(a, b, out=out)
    torch.cuda.synchronize()
