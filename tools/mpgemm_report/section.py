"""What a section hands to the report: pictures with their numbers and notes, and the numbers as data (JSON)."""
from dataclasses import dataclass, field


@dataclass
class Item:
    """One picture (or, when there is nothing to draw, a note instead of it) with the numbers it shows."""

    heading: str
    image: str = None  # PNG file name in the output folder; None when nothing was drawn
    table: list = field(default_factory=list)  # markdown table: header row first, then rows (strings)
    notes: list = field(default_factory=list)  # one sentence each


@dataclass
class Section:
    key: str  # "ladder", ...: the numbers' key in numbers.json
    title: str
    intro: str  # what the pictures show and how the numbers were chosen
    items: list = field(default_factory=list)
    numbers: list = field(default_factory=list)  # JSON-able records: exactly what was drawn
    notes: list = field(default_factory=list)  # section-wide notes (e.g. nothing to draw at all)


@dataclass
class Context:
    """What every section needs: the read-only connection, the scope, the output folder and the options."""

    conn: object
    scope: object
    out_dir: object  # pathlib.Path
    note: str = ""  # --note: provenance, printed on every figure and atop report.md
    heatmap: tuple = ("BM", "BN")
    metrics: list = None  # --metrics: Nsight Compute metrics to draw; None for the default choice

    def image(self, *parts):
        """A PNG file name made of `parts` (lower case, safe characters only)."""
        name = "_".join(str(p) for p in parts if p)
        safe = "".join(c if c.isalnum() or c in "-." else "_" for c in name.lower())
        return safe + ".png"

    def footnote(self, text=""):
        return "  ".join(t for t in (text, self.note) if t)


def slug(device):
    return device.replace("NVIDIA ", "").replace(" ", "_")


def fmt(value, digits=1):
    """A number for a table cell, '–' for None."""
    if value is None:
        return "–"
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.{digits}f}"


def fmt_ms(value):
    return "–" if value is None else f"{value:.4g}"
