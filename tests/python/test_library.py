"""mpgemm.Library on the CPU: the extension imports, reads a recorded database, plans for a named device, and
every failure is its own exception class. Needs the built extension (build/python), no GPU."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

mpgemm = pytest.importorskip("mpgemm")
if getattr(mpgemm, "_core", None) is None:  # the package's files without the built extension
    pytest.skip(f"mpgemm._core is not built: {mpgemm._core_error}", allow_module_level=True)

from conftest import SOURCE_DIR  # noqa: E402

H200 = "NVIDIA H200"
WINNER_4096 = "wgmma_bm128_bn128_bk64_s5_c2_pingpong_cl1x1_m8_tma4_pers"


@pytest.fixture
def lib(db_dir: Path) -> mpgemm.Library:
    return mpgemm.Library(db_dir / "h200_rerank_three_cubes.db")


def test_version_is_the_cmake_projects() -> None:
    cmake = (SOURCE_DIR / "CMakeLists.txt").read_text()
    version = re.search(r"project\(mpgemm VERSION ([0-9.]+)", cmake)
    assert version is not None
    assert mpgemm.__version__ == version.group(1)


def test_reads_every_tuned_shape(lib: mpgemm.Library) -> None:
    assert len(lib) == 3
    entries = lib.tuned()
    assert {(t.m, t.n, t.k) for t in entries} == {(2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192)}
    assert all(t.device == H200 and t.problem == "mk_kn_fp16_fp32" and t.family == "wgmma" for t in entries)
    assert "3 tuned shape(s)" in repr(lib)


def test_plans_for_a_named_device_without_a_gpu(lib: mpgemm.Library) -> None:
    tuned = lib.plan(4096, 4096, 4096, device=H200)
    assert (tuned.path, tuned.config, tuned.problem) == ("tuned", WINNER_4096, "mk_kn_fp16_fp32")
    assert tuned.ratio_cublas > 1 and (tuned.tuned_m, tuned.tuned_n, tuned.tuned_k) == (4096, 4096, 4096)
    assert tuned.reason.startswith("mk_kn_fp16_fp32: tuned at 4096x4096x4096")
    near = lib.plan(4000, 4096, 4096, device=H200)
    assert near.path == "nearest" and near.tuned_m == 4096
    # Another kind has no winner in this file: the vendor path of that kind.
    other = lib.plan(4096, 4096, 4096, "mk_nk_bf16_bf16", device=H200)
    assert (other.path, other.config) == ("cublas", "cublasGemmEx")
    assert other.reason.startswith("mk_nk_bf16_bf16")
    assert lib.plan(4096, 4096, 4096, mpgemm.Problem.parse("mk_nk_bf16_bf16"), device=H200).path == "cublas"


def test_min_ratio_keeps_winners_below_it_off(db_dir: Path) -> None:
    strict = mpgemm.Library(db_dir / "h200_rerank_three_cubes.db", min_ratio=10.0)
    assert strict.plan(4096, 4096, 4096, device=H200).path == "cublas"
    with pytest.raises(mpgemm.BadArgument, match="min_ratio"):
        mpgemm.Library(db_dir / "h200_rerank_three_cubes.db", min_ratio=math.nan)


def test_plan_mm_reads_the_kind_from_strides(lib: mpgemm.Library) -> None:
    class Meta:  # shape, stride() in elements and dtype: what plan_mm reads of a tensor
        def __init__(self, shape: tuple[int, int], stride: tuple[int, int], dtype: str) -> None:
            self.shape, self._stride, self.dtype = shape, stride, dtype

        def stride(self) -> tuple[int, int]:
            return self._stride

    x = Meta((4096, 4096), (4096, 1), "float16")
    w_t = Meta((4096, 4096), (1, 4096), "float16")  # a weight (N, K) seen through .t(): B is nk
    assert lib.plan_mm(x, x, out_dtype="float32", device=H200).path == "tuned"
    assert lib.plan_mm(x, w_t, out_dtype="float32", device=H200).problem == "mk_nk_fp16_fp32"
    padded = Meta((4096, 4096), (4104, 1), "float16")
    with pytest.raises(mpgemm.BadArgument, match="strides"):
        lib.plan_mm(padded, x, device=H200)
    with pytest.raises(ValueError, match="float16 or bfloat16|FP16 or BF16"):
        lib.plan_mm(Meta((8, 8), (8, 1), "float32"), Meta((8, 8), (8, 1), "float32"), device=H200)


def test_each_failure_is_its_own_class(lib: mpgemm.Library, tmp_path: Path) -> None:
    with pytest.raises(mpgemm.OpenFailed, match="nonexistent"):
        mpgemm.Library(tmp_path / "nonexistent.db")
    with pytest.raises(mpgemm.BadArgument, match="devices"):
        lib.plan(64, 64, 64, device="NVIDIA B200")  # the message names the devices the file knows
    with pytest.raises(ValueError, match="not a problem kind"):
        lib.plan(64, 64, 64, "mk_kn_fp8_fp32", device=H200)
    with pytest.raises(mpgemm.BadArgument, match="outside"):
        lib.plan(0, 64, 64, device=H200)
    for cls in (mpgemm.OpenFailed, mpgemm.NoDevice, mpgemm.BadArgument, mpgemm.NoTunedConfig, mpgemm.CompileFailed,
                mpgemm.LoadFailed, mpgemm.LaunchFailed, mpgemm.CublasFailed, mpgemm.CudaFailed):
        assert issubclass(cls, mpgemm.GemmError) and issubclass(cls, RuntimeError)
        assert cls.__doc__


def test_errors_carry_the_cuda_status(lib: mpgemm.Library) -> None:
    try:
        lib.plan(64, 64, 64)
    except mpgemm.NoDevice as error:
        assert isinstance(error.code, int) and error.code != 0
        assert "no current CUDA device" in str(error)
    else:
        pytest.skip("a CUDA device is present: the CPU-only refusal is not seen")


def test_mm_without_a_device_or_with_foreign_tensors_says_why(lib: mpgemm.Library) -> None:
    np = pytest.importorskip("numpy", reason="numpy provides a DLPack producer on the CPU")
    a = np.zeros((8, 8), dtype=np.float16)
    with pytest.raises(mpgemm.BadArgument, match="needs out="):
        lib.mm(a, a)
    out = np.zeros((8, 8), dtype=np.float32)
    with pytest.raises(mpgemm.BadArgument, match="not a CUDA tensor"):
        lib.mm(a, a, out=out)


def test_environment_says_where_each_piece_is() -> None:
    env = mpgemm.environment()
    text = str(env)
    assert env.extension and "_core" in env.extension
    for soname in ("libcublas.so.13", "libnvrtc.so.13"):
        assert soname in text
    assert "CUDA headers for NVRTC" in text
    assert env.ok, text


def test_problem_kinds_match_the_library() -> None:
    assert len(mpgemm._core.problem_kinds()) == 48
    assert {p.name for p in mpgemm.Problem.all()} == set(mpgemm._core.problem_kinds())


def test_help_is_useful() -> None:
    for thing in (mpgemm.Library, mpgemm.Library.mm, mpgemm.Library.plan, mpgemm.Library.preload, mpgemm.environment):
        assert thing.__doc__ and len(thing.__doc__) > 80, thing


def test_python_dash_m_mpgemm_says_where_things_are_and_plans(db_dir: Path) -> None:
    import subprocess
    import sys

    env = subprocess.run([sys.executable, "-m", "mpgemm"], capture_output=True, text=True, check=False)
    assert env.returncode == 0, env.stderr
    assert "libnvrtc.so.13" in env.stdout and "mpgemm-tune" in env.stdout
    db = str(db_dir / "h200_rerank_three_cubes.db")
    plan = subprocess.run([sys.executable, "-m", "mpgemm", "plan", db, "3000", "4096", "4096", "--device", H200],
                          capture_output=True, text=True, check=False)
    assert plan.returncode == 0, plan.stderr
    assert "path:    nearest" in plan.stdout and WINNER_4096 in plan.stdout
    unknown = subprocess.run([sys.executable, "-m", "mpgemm", "plan", db, "64", "64", "64", "--device", "NVIDIA B200"],
                             capture_output=True, text=True, check=False)
    assert unknown.returncode == 1 and "NVIDIA H200" in unknown.stderr


def test_an_output_must_be_packed_rows_whatever_its_extents() -> None:
    from mpgemm._library import _packed_rows

    class T:
        def __init__(self, shape: tuple[int, int], stride: tuple[int, int]) -> None:
            self.shape, self._stride = shape, stride

        def stride(self) -> tuple[int, int]:
            return self._stride

    assert _packed_rows(T((6, 4), (4, 1))) and _packed_rows(T((1, 4), (99, 1))) and _packed_rows(T((6, 1), (1, 7)))
    assert not _packed_rows(T((6, 1), (4, 1)))  # big[:, :1]: one column of a wider array
    assert not _packed_rows(T((1, 4), (4, 2)))  # one row, every other element
    assert not _packed_rows(T((6, 4), (1, 6)))  # a transposed view
