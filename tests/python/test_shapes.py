"""mpgemm.shapes: both file forms, kinds per file and per shape, calls and not_tunable, errors that name the
entry, merge, and the all-or-nothing save (pure Python)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mpgemm.problem import Problem
from mpgemm.shapes import NotTunable, Shape, ShapeFile, load, merge

LINEAR = Problem.parse("mk_nk_bf16_bf16")


def _write(tmp_path: Path, content: Any) -> Path:
    path = tmp_path / "shapes.json"
    path.write_text(json.dumps(content))
    return path


def test_a_bare_list_is_the_default_kind(tmp_path: Path) -> None:
    loaded = load(_write(tmp_path, [{"M": 1, "N": 2, "K": 3}]))
    assert loaded.shapes == [Shape(1, 2, 3)] and loaded.kinds() == [Problem()] and loaded.not_tunable == []


def test_the_shapes_kind_wins_over_the_files(tmp_path: Path) -> None:
    loaded = load(
        _write(
            tmp_path,
            {
                "problem": "mk_nk_bf16_bf16",
                "shapes": [
                    {"M": 1, "N": 2, "K": 3},
                    {"M": 4, "N": 5, "K": 6, "problem": "km_kn_fp16_fp32", "calls": 9},
                ],
            },
        )
    )
    assert loaded.shapes == [Shape(1, 2, 3, LINEAR), Shape(4, 5, 6, Problem("km", "kn"), 9)]
    assert loaded.kinds() == [LINEAR, Problem("km", "kn")]


def test_round_trip_keeps_calls_and_not_tunable(tmp_path: Path) -> None:
    original = ShapeFile(
        [Shape(16, 4096, 4096, LINEAR, 32), Shape(2048, 4096, 4096)],
        "a capture",
        [NotTunable("aten.bmm", "batched", 4), NotTunable("aten.mm", "FP32", 1)],
    )
    path = tmp_path / "out.json"
    original.save(path)
    assert load(path) == original
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]  # no temporary file left


def test_a_failed_save_leaves_no_file(tmp_path: Path) -> None:
    class Unserialisable(ShapeFile):
        def to_json(self) -> dict[str, Any]:
            return {"shapes": [object()]}

    with pytest.raises(TypeError):
        Unserialisable([]).save(tmp_path / "out.json")
    assert list(tmp_path.iterdir()) == []


def test_not_tunable_calls_default_to_one(tmp_path: Path) -> None:
    loaded = load(_write(tmp_path, {"shapes": [], "not_tunable": [{"op": "aten.bmm", "why": "batched"}]}))
    assert loaded.not_tunable == [NotTunable("aten.bmm", "batched", 1)]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ([{"M": 1, "N": 2}], "shapes/0: no 'K'"),
        ([{"M": 0, "N": 2, "K": 3}], "shapes/0/M: 0 is not an integer >= 1"),
        ([{"M": 1, "N": 2, "K": 3, "calls": -1}], "shapes/0/calls"),
        ([{"M": 1, "N": 2, "K": True}], "shapes/0/K"),
        ([{"M": 1, "N": 2, "K": 3, "tile": 4}], "shapes/0: unknown key(s) ['tile']"),
        ([{"M": 1, "N": 2, "K": 3, "problem": "mk_kn_fp8_fp32"}], "shapes/0/problem: 'mk_kn_fp8_fp32' is not"),
        ([{"M": 1, "N": 2, "K": 3, "problem": 5}], "shapes/0/problem: 5 is not a problem kind's name"),
        ([3], "shapes/0: not an object"),
        ({"description": "x"}, 'no "shapes" list'),
        ({"shapes": {}}, "the shapes are not a list"),
        ({"shapes": [], "extra": 1}, "unknown key(s) ['extra']"),
        ({"shapes": [], "not_tunable": 3}, "/not_tunable: not a list"),
        ({"shapes": [], "not_tunable": [{"op": "aten.bmm"}]}, "not_tunable/0: not an object with a string op and why"),
        ({"shapes": [], "not_tunable": [{"op": "a", "why": "b", "calls": -2}]}, "not_tunable/0/calls"),
    ],
)
def test_errors_name_the_entry(tmp_path: Path, content: Any, message: str) -> None:
    with pytest.raises(ValueError) as error:
        load(_write(tmp_path, content))
    assert message in str(error.value)


def test_merge_adds_calls_per_kind_and_shape() -> None:
    shapes = [Shape(1, 2, 3, LINEAR, 2), Shape(1, 2, 3, calls=1), Shape(1, 2, 3, LINEAR, 5), Shape(4, 5, 6)]
    assert merge(shapes) == [Shape(1, 2, 3, LINEAR, 7), Shape(1, 2, 3, calls=1), Shape(4, 5, 6)]


def test_the_repositorys_shape_files_load() -> None:
    folder = Path(__file__).resolve().parents[2] / "configs" / "shapes"
    files = sorted(folder.glob("*.json"))
    assert files, f"no shape files in {folder}"
    for path in files:
        assert load(path).shapes, path
