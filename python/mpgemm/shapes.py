"""Shape files: the JSON ``mpgemm-tune --shapes FILE`` reads (docs/tuning.md, "Shapes").

``{"description": "...", "problem": KIND, "shapes": [{"M": .., "N": .., "K": .., "problem": KIND, "calls": ..}],
"not_tunable": [{"op": .., "why": .., "calls": ..}]}``. A shape's ``problem`` is its kind (the file's when it names
none, else the default kind); ``calls`` says how often a captured program ran it, and ``not_tunable`` lists the
GEMMs a capture saw that no kind expresses, with why: the tuner reads both and tunes neither.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from collections.abc import Iterable
from typing import Any

from .problem import Problem


@dataclasses.dataclass(frozen=True)
class Shape:
    """One shape of a shape file: extents, kind, and how often a captured program ran it (0: not counted)."""

    m: int
    n: int
    k: int
    problem: Problem = Problem()
    calls: int = 0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"M": self.m, "N": self.n, "K": self.k}
        if self.problem != Problem():
            out["problem"] = self.problem.name
        if self.calls:
            out["calls"] = self.calls
        return out


@dataclasses.dataclass(frozen=True)
class NotTunable:
    """A GEMM a capture saw that no problem kind expresses: the op, why, how often."""

    op: str
    why: str
    calls: int = 1

    def to_json(self) -> dict[str, Any]:
        return {"op": self.op, "why": self.why, "calls": self.calls}


@dataclasses.dataclass
class ShapeFile:
    """A shape file: its shapes (each with its kind and calls), a description, and what a capture saw that no kind
    expresses. ``save`` writes it, ``load`` reads it, ``kinds`` lists the tuning runs it asks for."""

    shapes: list[Shape]
    description: str = ""
    not_tunable: list[NotTunable] = dataclasses.field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.description:
            out["description"] = self.description
        out["shapes"] = [s.to_json() for s in self.shapes]
        if self.not_tunable:
            out["not_tunable"] = [n.to_json() for n in self.not_tunable]
        return out

    def save(self, path: str | os.PathLike[str]) -> None:
        """Writes the file whole or not at all (a temporary file renamed over ``path``)."""
        tmp = f"{os.fspath(path)}.tmp{os.getpid()}"
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(self.to_json(), f, indent=1)
                f.write("\n")
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.remove(tmp)  # no half-written file left beside ``path``
            raise

    def kinds(self) -> list[Problem]:
        """The kinds the file names, in the order it first names them (one tuning run each)."""
        seen: dict[Problem, None] = {}
        for s in self.shapes:
            seen.setdefault(s.problem)
        return list(seen)


def _int_field(entry: dict[str, Any], key: str, where: str, minimum: int) -> int:
    if key not in entry:
        raise ValueError(f"{where}: no {key!r}")
    value = entry[key]
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{where}/{key}: {value!r} is not an integer >= {minimum}")
    return value


def _kind(value: Any, where: str) -> Problem:
    if not isinstance(value, str):
        raise ValueError(f"{where}: {value!r} is not a problem kind's name")
    try:
        return Problem.parse(value)
    except ValueError as error:
        raise ValueError(f"{where}: {error}") from None


def _not_tunable(entries: Any, where: str) -> list[NotTunable]:
    """The ``not_tunable`` list: objects with a string ``op`` and ``why`` and a count ``calls`` (default 1)."""
    if not isinstance(entries, list):
        raise ValueError(f"{where}/not_tunable: not a list")
    out = []
    for i, n in enumerate(entries):
        at = f"{where}/not_tunable/{i}"
        if not isinstance(n, dict) or not isinstance(n.get("op"), str) or not isinstance(n.get("why"), str):
            raise ValueError(f"{at}: not an object with a string op and why")
        unknown = set(n) - {"op", "why", "calls"}
        if unknown:
            raise ValueError(f"{at}: unknown key(s) {sorted(unknown)}")
        out.append(NotTunable(n["op"], n["why"], _int_field(n, "calls", at, 0) if "calls" in n else 1))
    return out


def load(path: str | os.PathLike[str]) -> ShapeFile:
    """Reads a shape file in either form (a bare list of shapes, or the object above). ValueError names the entry
    that is wrong, as ``mpgemm-tune`` does."""
    with open(path, encoding="utf-8") as f:
        root = json.load(f)
    where = os.fspath(path)
    description = ""
    file_kind = Problem()
    not_tunable: list[NotTunable] = []
    if isinstance(root, dict):
        unknown = set(root) - {"shapes", "description", "problem", "not_tunable"}
        if unknown:
            raise ValueError(f"{where}: unknown key(s) {sorted(unknown)}")
        description = str(root.get("description", ""))
        if "problem" in root:
            file_kind = _kind(root["problem"], f"{where}/problem")
        not_tunable = _not_tunable(root.get("not_tunable", []), where)
        if "shapes" not in root:
            raise ValueError(f'{where}: no "shapes" list')
        entries = root["shapes"]
    else:
        entries = root
    if not isinstance(entries, list):
        raise ValueError(f"{where}: the shapes are not a list")
    shapes = []
    for i, e in enumerate(entries):
        at = f"{where}/shapes/{i}"
        if not isinstance(e, dict):
            raise ValueError(f"{at}: not an object")
        unknown = set(e) - {"M", "N", "K", "problem", "calls"}
        if unknown:
            raise ValueError(f"{at}: unknown key(s) {sorted(unknown)}")
        kind = _kind(e["problem"], f"{at}/problem") if "problem" in e else file_kind
        calls = _int_field(e, "calls", at, 0) if "calls" in e else 0
        shapes.append(Shape(_int_field(e, "M", at, 1), _int_field(e, "N", at, 1), _int_field(e, "K", at, 1), kind, calls))
    return ShapeFile(shapes, description, not_tunable)


def merge(shapes: Iterable[Shape]) -> list[Shape]:
    """The same (kind, M, N, K) once, its calls added up, in first-seen order."""
    merged: dict[tuple[Problem, int, int, int], Shape] = {}
    for s in shapes:
        key = (s.problem, s.m, s.n, s.k)
        old = merged.get(key)
        merged[key] = s if old is None else dataclasses.replace(old, calls=old.calls + s.calls)
    return list(merged.values())
