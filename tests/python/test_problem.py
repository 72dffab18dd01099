"""mpgemm.problem: kind names both ways, and classify reading a call's kind off shapes, strides and dtypes (pure
Python: the expected kinds are written out by hand from docs/library.md's table)."""

from __future__ import annotations

import pytest

from mpgemm.problem import Problem, classify, type_name


def test_names_round_trip_for_every_kind() -> None:
    kinds = Problem.all()
    assert len(kinds) == 2 * 2 * 2 * 3 * 2 and kinds[0] == Problem()
    assert Problem().name == "mk_kn_fp16_fp32"
    for kind in kinds:
        assert Problem.parse(kind.name) == kind
    assert Problem.parse("km_nk_bf16_fp16_beta") == Problem("km", "nk", "bf16", "fp16", True)


@pytest.mark.parametrize(
    "name",
    ["", "mk_kn_fp16", "mk_kn_fp16_fp32_alpha", "kn_mk_fp16_fp32", "mk_kn_fp32_fp32", "mk_kn_fp16_fp8", 7, None],
)
def test_parse_refuses_what_is_no_kind(name: object) -> None:
    with pytest.raises(ValueError, match="is not a problem kind"):
        Problem.parse(name)  # type: ignore[arg-type]


def test_type_names() -> None:
    assert [type_name(t) for t in ("torch.bfloat16", "float16", "half", "torch.float32", "float64", "int8")] == [
        "bf16",
        "fp16",
        "fp16",
        "fp32",
        None,
        None,
    ]


# (M, K) and (K, N) packed row-major, and their transposed views, for M, K, N = 4, 8, 6.
MK, KM = (8, 1), (1, 4)
KN, NK = (6, 1), (1, 8)


@pytest.mark.parametrize(
    ("a_strides", "b_strides", "name"),
    [(MK, KN, "mk_kn"), (MK, NK, "mk_nk"), (KM, KN, "km_kn"), (KM, NK, "km_nk")],
)
def test_layouts_come_from_the_strides(a_strides: tuple[int, int], b_strides: tuple[int, int], name: str) -> None:
    call = classify((4, 8), a_strides, (8, 6), b_strides, "bfloat16", "bfloat16", "bfloat16")
    assert (call.m, call.n, call.k, call.problem) == (4, 6, 8, Problem.parse(f"{name}_bf16_bf16"))
    assert call.shape == "4x6x8"


def test_a_dimension_of_one_takes_any_stride() -> None:
    # A single row (decode at batch 1) has any row stride; a single column any column stride.
    assert classify((1, 8), (999, 1), (8, 6), KN, "float16", "float16", "float32").problem == Problem()
    assert classify((4, 1), (1, 77), (1, 6), (6, 1), "float16", "float16", "float32").problem == Problem()
    assert classify((1, 1), (5, 5), (1, 1), (3, 3), "float16", "float16", "float16").problem is not None


@pytest.mark.parametrize(
    ("a_shape", "a_strides", "b_dtype", "d_dtype", "why"),
    [
        ((4, 8), (16, 1), "float16", "float32", "strides (16, 1)"),  # padded rows: a slice
        ((4, 8), (0, 1), "float16", "float32", "strides (0, 1)"),  # a broadcast
        ((4, 8), (8, 1), "bfloat16", "float32", "of one type"),
        ((4, 8), (8, 1), "float16", "float64", "an output of float64"),
        ((2, 4, 8), (32, 8, 1), "float16", "float32", "2-D A and B"),
    ],
)
def test_what_no_kind_computes_says_why(
    a_shape: tuple[int, ...], a_strides: tuple[int, ...], b_dtype: str, d_dtype: str, why: str
) -> None:
    call = classify(a_shape, a_strides, (8, 6), KN, "float16", b_dtype, d_dtype)
    assert call.problem is None and why in call.why_not


def test_fp32_inputs_and_mismatched_k() -> None:
    assert "FP16 or BF16" in classify((4, 8), MK, (8, 6), KN, "float32", "float32", "float32").why_not
    call = classify((4, 8), MK, (9, 6), KN, "float16", "float16", "float32")
    assert call.problem is None and "A is 4 x 8 but B is 9 x 6" == call.why_not


def test_beta_names_the_beta_kind() -> None:
    call = classify((4, 8), MK, (8, 6), NK, "bfloat16", "bfloat16", "bfloat16", beta=True)
    assert call.problem is not None and call.problem.name == "mk_nk_bf16_bf16_beta"


def test_a_bad_field_is_refused_when_made() -> None:
    with pytest.raises(ValueError, match="A's layout"):
        Problem(a="nk")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="the output type"):
        Problem(dtype_out="fp8")  # type: ignore[arg-type]


def test_an_empty_operand_is_not_refused_for_its_strides() -> None:
    from mpgemm.problem import classify

    # torch gives an empty (5, 0) tensor strides (1, 1): K = 0 is an empty sum, not a layout no kind reads.
    call = classify((5, 0), (1, 1), (0, 7), (7, 1), "float16", "float16", "float32")
    assert call.problem is not None and (call.m, call.n, call.k) == (5, 7, 0)
